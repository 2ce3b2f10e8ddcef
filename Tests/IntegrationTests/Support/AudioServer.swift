import Foundation

/// A private sound server running in a `TestSession`, with the devices every
/// implementation must provide (see `AudioDevices`), so the same tests can run
/// against PulseAudio and, later, PipeWire.
protocol AudioServer: AnyObject {
    /// The product name tests may mention in messages, e.g. "PulseAudio".
    var serverName: String { get }
    /// Whether the server process is running.
    var isRunning: Bool { get }
    /// Runs `pactl` against the server and returns its standard output without
    /// surrounding whitespace; a failing `pactl` is thrown.
    func pactl(_ arguments: [String]) throws -> String
    /// Kills the server with SIGKILL, as a crash would, and reaps it.
    func kill()
    /// Stops the server if it runs, starts it again with the same devices and
    /// returns once it is ready; clients must reconnect.
    func restart() throws
    /// Stops the server with SIGTERM and reaps it.
    func stop()
}

/// The names of the devices every `AudioServer` creates.
enum AudioDevices {
    /// The null sink the `Stimulus` plays into (s16le, 48 kHz, mono).
    static let stimulusSink = "voicememo_stimulus"
    /// The default source: a plain (non-monitor) source fed by the stimulus sink's monitor.
    static let microphone = "voicememo_mic"
    /// The default sink, a null sink (s16le, 48 kHz, mono) for playback tests.
    static let speaker = "voicememo_speaker"
}

/// The audio server implementations, selected by `VOICEMEMO_TEST_SERVER`.
enum AudioServerKind: String, CaseIterable {
    /// PulseAudio 16 (the default).
    case pulseaudio
    /// PipeWire with pipewire-pulse (not implemented yet).
    case pipewire

    /// The kind named by `VOICEMEMO_TEST_SERVER`, or `.pulseaudio` if it is unset or empty.
    ///
    /// - Throws: `FixtureError.unknownAudioServer` for any other value.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
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
    func start(in session: TestSession) throws -> any AudioServer {
        switch self {
        case .pulseaudio:
            return try PulseAudioServer(session: session)
        case .pipewire:
            throw FixtureError.audioServerNotImplemented(rawValue)
        }
    }
}
