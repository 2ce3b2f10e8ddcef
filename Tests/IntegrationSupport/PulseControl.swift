import Foundation

/// `pactl`, the PulseAudio command-line client, run against the audio server of
/// one `TestSession`. PulseAudio and pipewire-pulse both answer it, so whatever
/// the fixture does through `pactl` is done the same way on either server.
package struct PulseControl {
    /// The session whose `$XDG_RUNTIME_DIR/pulse/native` pactl connects to.
    package let session: TestSession

    /// Binds `pactl` to `session`.
    ///
    /// - Throws: `FixtureError.missingExecutable` if pactl is not installed.
    package init(session: TestSession) throws {
        _ = try Executable.find("pactl")
        self.session = session
    }

    /// Runs `pactl` and returns its standard output without surrounding whitespace.
    ///
    /// - Throws: `FixtureError.commandFailed` if pactl fails, for instance
    ///   because no server answers.
    package func run(_ arguments: [String]) throws -> String {
        let output = try session.run("pactl", arguments)
        guard output.succeeded else {
            throw FixtureError.commandFailed(command: "pactl " + arguments.joined(separator: " "), output: output)
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `pactl` as `run(_:)` does, but returns `nil` where `run(_:)` throws
    /// `commandFailed`: for polling a server that may not answer yet.
    package func query(_ arguments: [String]) throws -> String? {
        let output = try session.run("pactl", arguments)
        return output.succeeded ? output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    /// The names of the server's sinks, or `nil` if it does not answer.
    package func sinkNames() throws -> [String]? {
        try query(["list", "short", "sinks"]).map { table in
            table.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: "\t")
                return fields.count > 1 ? String(fields[1]) : nil
            }
        }
    }
}
