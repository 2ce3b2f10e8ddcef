import Foundation

/// A private PipeWire serving one `TestSession` as a desktop runs it: the
/// `pipewire` core, the `wireplumber` session manager (which picks the default
/// devices and links streams to them) and `pipewire-pulse`, which serves
/// `$XDG_RUNTIME_DIR/pulse/native` to PulseAudio clients such as voicememod.
///
/// It runs headless as root without systemd. Everything it reads and writes is
/// private to the session: its sockets in `XDG_RUNTIME_DIR`, the drop-ins of
/// `PipeWireConfiguration` in `XDG_CONFIG_HOME`, wireplumber's remembered
/// defaults and volumes in `XDG_STATE_HOME`, and the session bus, without which
/// wireplumber exits.
package final class PipeWireServer: ChildProcessAudioServer {
    package let serverName = "PipeWire"
    package let programs = ["pipewire", "wireplumber", "pipewire-pulse"]

    /// How long `restart()` and the initializer wait for the server to be ready.
    package let startupTimeout: Duration

    private let session: TestSession
    package let control: PulseControl
    package private(set) var processes: AudioServerProcesses?

    /// Writes the configuration drop-ins, starts the server, creates the
    /// `AudioDevices` and waits until they are the defaults.
    package init(session: TestSession, startupTimeout: Duration = .seconds(10)) throws {
        self.session = session
        self.startupTimeout = startupTimeout
        control = try PulseControl(session: session)
        _ = try Executable.find("pw-cli")
        try PipeWireConfiguration.write(to: session.configDirectory)
        try start()
    }

    /// Kills the PipeWire core, as a crash would. wireplumber exits by itself
    /// soon after; pipewire-pulse keeps running, without its modules, and
    /// refuses clients until `restart()` replaces it.
    package func kill() {
        processes?.children.first?.kill()
    }

    /// Starts the core, then, once it answers (starting the others earlier
    /// races), wireplumber and pipewire-pulse; then creates the devices.
    package func start() throws {
        let processes = AudioServerProcesses(serverName: serverName, session: session, startupTimeout: startupTimeout)
        self.processes = processes
        try processes.launch("pipewire")
        try processes.waitForStartup(until: "pw-cli info 0 answers") {
            try session.run("pw-cli", ["info", "0"], timeout: .seconds(2)).succeeded
        }
        try processes.launch("wireplumber")
        // pipewire-pulse checks for $XDG_RUNTIME_DIR/pulse, then creates it, and exits if a
        // client (the pactl polled below) created it in between; so it exists beforehand.
        let pulseDirectory = session.runtimeDirectory.appendingPathComponent("pulse")
        try FileManager.default.createDirectory(
            at: pulseDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try session.user?.takeOwnership(of: pulseDirectory.path)
        try processes.launch("pipewire-pulse")
        // Until wireplumber has picked one, pipewire-pulse answers "@DEFAULT_SINK@".
        try processes.waitForStartup(until: "pactl get-default-sink names a sink, picked by wireplumber") {
            guard let sink = try control.query(["get-default-sink"]), let sinks = try control.sinkNames() else {
                return false
            }
            return sinks.contains(sink)
        }
        try processes.createDevices(using: control)
    }
}
