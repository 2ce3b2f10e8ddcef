import Foundation

/// A private sound server running in a `TestSession`, with the devices every
/// implementation must provide (see `AudioDevices`), so the same tests can run
/// against PulseAudio and PipeWire.
package protocol AudioServer: AnyObject {
    /// The product name tests may mention in messages, e.g. "PulseAudio".
    var serverName: String { get }
    /// The programs the server runs as, in start order, e.g. `["pulseaudio"]`.
    var programs: [String] { get }
    /// Whether every program of the server is running.
    var isRunning: Bool { get }
    /// Runs `pactl` against the server and returns its standard output without
    /// surrounding whitespace; a failing `pactl` is thrown.
    func pactl(_ arguments: [String]) throws -> String
    /// Kills the server's core with SIGKILL, as a crash would, and reaps it;
    /// `isRunning` is false afterwards and clients lose their connections.
    func kill()
    /// Stops whatever runs of the server, starts it again with the same devices
    /// and returns once it is ready; clients must reconnect.
    func restart() throws
    /// Stops the server's programs with SIGTERM, newest first, and reaps them.
    func stop()
    /// Sends `signal` to every program of the server: SIGSTOP and SIGCONT freeze and thaw
    /// it, as a stalled machine would, with every connection left open.
    func send(_ signal: Int32)
}

/// An audio server the fixture runs as its own child processes and drives with `pactl`:
/// the lifecycle both kinds share, around the start each does its own way.
package protocol ChildProcessAudioServer: AudioServer {
    /// The server's running programs, in start order; nil before the first start.
    var processes: AudioServerProcesses? { get }
    /// `pactl` against the server's socket.
    var control: PulseControl { get }
    /// Launches the programs and returns once the server is ready with its devices.
    func start() throws
}

extension ChildProcessAudioServer {
    package var isRunning: Bool { processes?.areRunning ?? false }

    package func pactl(_ arguments: [String]) throws -> String {
        try control.run(arguments)
    }

    package func stop() {
        processes?.terminate()
    }

    package func send(_ signal: Int32) {
        for child in processes?.children ?? [] { child.send(signal) }
    }

    package func restart() throws {
        stop()
        try start()
    }
}

extension AudioServer {
    /// The rows of `pactl list short <objects>` ("sources", "source-outputs", …), each
    /// split into its tab-separated fields: the index first, then (mostly) the name.
    package func shortListing(_ objects: String) throws -> [[String]] {
        try pactl(["list", "short", objects]).split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    }
}

/// The audio server implementations, selected by `VOICEMEMO_TEST_SERVER`.
package enum AudioServerKind: String, CaseIterable {
    /// PulseAudio 16 (the default).
    case pulseaudio
    /// PipeWire with wireplumber and pipewire-pulse.
    case pipewire

    /// The kind named by `VOICEMEMO_TEST_SERVER`, or `.pulseaudio` if it is unset or empty.
    ///
    /// - Throws: `FixtureError.unknownAudioServer` for any other value.
    package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> AudioServerKind
    {
        let name = environment["VOICEMEMO_TEST_SERVER"] ?? ""
        if name.isEmpty {
            return .pulseaudio
        }
        guard let kind = AudioServerKind(rawValue: name.lowercased()) else {
            throw FixtureError.unknownAudioServer(name)
        }
        return kind
    }

    /// Starts a server of this kind in `session` and returns once it is ready.
    package func start(in session: TestSession) throws -> any AudioServer {
        switch self {
        case .pulseaudio:
            return try PulseAudioServer(session: session)
        case .pipewire:
            return try PipeWireServer(session: session)
        }
    }
}
