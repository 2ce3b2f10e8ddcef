import Foundation

/// A private PulseAudio daemon serving `$XDG_RUNTIME_DIR/pulse/native` of one
/// `TestSession`, configured by a generated script rather than the system's
/// default.pa, so no real sound card or user setting is involved.
///
/// Running as root (as on CI) works; PulseAudio only logs a warning.
final class PulseAudioServer: AudioServer {
    let serverName = "PulseAudio"

    /// How long `restart()` and the initializer wait for the server to answer.
    let startupTimeout: Duration

    private let session: TestSession
    private let script: URL
    private var process: ChildProcess?

    /// Writes the configuration script, starts the server and waits until
    /// `pactl` reports `AudioDevices.microphone` as the default source.
    init(session: TestSession, startupTimeout: Duration = .seconds(10)) throws {
        self.session = session
        self.startupTimeout = startupTimeout
        script = session.root.appendingPathComponent("pulseaudio.pa")
        let socket = session.runtimeDirectory.appendingPathComponent("pulse/native").path
        try Self.script(socketPath: socket).write(to: script, atomically: true, encoding: .utf8)
        _ = try Executable.find("pactl")
        try start()
    }

    var isRunning: Bool { process?.isRunning ?? false }

    func pactl(_ arguments: [String]) throws -> String {
        let output = try session.run("pactl", arguments)
        guard output.succeeded else {
            throw FixtureError.commandFailed(command: "pactl " + arguments.joined(separator: " "), output: output)
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func kill() {
        process?.kill()
    }

    func stop() {
        process?.terminate()
    }

    func restart() throws {
        stop()
        try start()
    }

    private func start() throws {
        let server = try session.launch(
            "pulseaudio",
            [
                "-n", "-F", script.path, "--daemonize=no", "--exit-idle-time=-1", "--log-target=stderr",
                // A restart after kill() must not trip over the dead server's pid file.
                "--use-pid-file=no",
                // A loaded CI machine must not get the server killed for CPU use.
                "--no-cpu-limit=yes",
                // Keep away from rtkit on the system bus.
                "--realtime=no", "--high-priority=no",
            ],
            logName: "pulseaudio")
        process = server
        do {
            try waitUntil("pactl reports \(AudioDevices.microphone) as the default source", timeout: startupTimeout) {
                if let ended = server.termination {
                    throw FixtureError.exitedEarly("pulseaudio", termination: ended, log: session.log("pulseaudio"))
                }
                let answer = try session.run("pactl", ["get-default-source"])
                return answer.succeeded
                    && answer.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == AudioDevices.microphone
            }
        } catch FixtureError.timedOut(let condition, let after) {
            throw FixtureError.startupFailed(
                "pulseaudio", reason: "timed out after \(after) waiting until \(condition)",
                log: session.log("pulseaudio"))
        }
    }

    /// The `pulseaudio -F` script: the native protocol on `socketPath` with
    /// anonymous access, and the `AudioDevices`.
    static func script(socketPath: String) -> String {
        let nullSink = "module-null-sink format=s16le rate=\(Stimulus.sampleRate) channels=1 norewinds=1"
        return """
        load-module module-native-protocol-unix socket=\(socketPath) auth-anonymous=1
        load-module \(nullSink) sink_name=\(AudioDevices.stimulusSink)
        load-module module-remap-source source_name=\(AudioDevices.microphone) \
        master=\(AudioDevices.stimulusSink).monitor
        load-module \(nullSink) sink_name=\(AudioDevices.speaker)
        set-default-source \(AudioDevices.microphone)
        set-default-sink \(AudioDevices.speaker)

        """
    }
}
