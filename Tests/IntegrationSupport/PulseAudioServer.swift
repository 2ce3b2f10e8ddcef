import Foundation

/// A private PulseAudio daemon serving `$XDG_RUNTIME_DIR/pulse/native` of one
/// `TestSession`, configured by a generated script rather than the system's
/// default.pa, so no real sound card or user setting is involved.
///
/// Running as root (as on CI) works; PulseAudio only logs a warning.
package final class PulseAudioServer: ChildProcessAudioServer {
    package let serverName = "PulseAudio"
    package let programs = ["pulseaudio"]

    /// How long `restart()` and the initializer wait for the server to be ready.
    package let startupTimeout: Duration

    private let session: TestSession
    package let control: PulseControl
    private let script: URL
    package private(set) var processes: AudioServerProcesses?

    /// Writes the configuration script, starts the server, creates the
    /// `AudioDevices` and waits until they are the defaults.
    package init(session: TestSession, startupTimeout: Duration = .seconds(10)) throws {
        self.session = session
        self.startupTimeout = startupTimeout
        control = try PulseControl(session: session)
        script = session.root.appendingPathComponent("pulseaudio.pa")
        let socket = session.runtimeDirectory.appendingPathComponent("pulse/native").path
        try Self.script(socketPath: socket).write(to: script, atomically: true, encoding: .utf8)
        try start()
    }

    package func kill() {
        for child in processes?.children ?? [] { child.kill() }
    }

    package func start() throws {
        let processes = AudioServerProcesses(serverName: serverName, session: session, startupTimeout: startupTimeout)
        self.processes = processes
        try processes.launch(
            "pulseaudio",
            [
                "-n", "-F", script.path, "--daemonize=no", "--exit-idle-time=-1", "--log-target=stderr",
                // A restart after kill() must not trip over the dead server's pid file.
                "--use-pid-file=no",
                // A loaded CI machine must not get the server killed for CPU use.
                "--no-cpu-limit=yes",
                // Keep away from rtkit on the system bus.
                "--realtime=no", "--high-priority=no",
            ])
        try processes.waitForStartup(until: "pactl answers") { try control.query(["info"]) != nil }
        try processes.createDevices(using: control)
    }

    /// The `pulseaudio -F` script: only the native protocol on `socketPath` with
    /// anonymous access; the devices are created through it.
    package static func script(socketPath: String) -> String {
        "load-module module-native-protocol-unix socket=\(socketPath) auth-anonymous=1\n"
    }
}
