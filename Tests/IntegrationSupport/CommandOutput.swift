import Foundation

/// What a short command printed and how it exited.
package struct CommandOutput: CustomStringConvertible {
    /// The shell-style exit status: 0 for success, 128 + n if signal n ended it.
    package let status: Int32
    /// Everything written to standard output, decoded as UTF-8.
    package let stdout: String
    /// Everything written to standard error, decoded as UTF-8.
    package let stderr: String

    /// Whether the command exited with status 0.
    package var succeeded: Bool { status == 0 }

    package var description: String {
        "status \(status), stdout: \(stdout.debugDescription), stderr: \(stderr.debugDescription)"
    }
}

extension ChildProcess {
    /// Runs a short command to completion and returns its output.
    ///
    /// Output goes to temporary files rather than pipes, so a chatty command
    /// cannot deadlock against a full pipe buffer.
    ///
    /// - Throws: `FixtureError.missingExecutable` if the program is not
    ///   installed, `FixtureError.timedOut` (after killing it) if it runs longer
    ///   than `timeout`. A non-zero exit status is returned, not thrown.
    package static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        timeout: Duration = .seconds(10)
    ) throws -> CommandOutput {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("voicememo-run-\(UUID().uuidString)")
        let stdoutURL = scratch.appendingPathExtension("out")
        let stderrURL = scratch.appendingPathExtension("err")
        defer {
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
        }
        let child = try ChildProcess(
            executable, arguments, environment: environment,
            standardOutput: .file(stdoutURL), standardError: .file(stderrURL))
        let termination: Termination
        do {
            termination = try child.waitForExit(timeout: timeout)
        } catch {
            child.kill()
            let command = ([executable] + arguments).joined(separator: " ")
            throw FixtureError.timedOut(waitingUntil: "'\(command)' exits", after: timeout)
        }
        return CommandOutput(
            status: termination.status,
            stdout: (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
    }
}
