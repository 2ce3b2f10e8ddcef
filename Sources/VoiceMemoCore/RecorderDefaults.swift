/// The settings the next plain `Record` uses; the contract exposes each as a read/write property
/// and they persist across restarts.
public struct RecorderDefaults: Encodable, Equatable, Sendable {
    public var format: AudioFormat = .opus
    public var sampleRate: UInt32 = 48000
    public var channels: UInt32 = 1
    public var quality: Quality = .medium
    /// A pinned source name, or empty to follow the default input.
    public var source: String = ""
    public var isMeteringEnabled: Bool = false
    /// Whether finished recordings are announced with a desktop notification.
    public var areNotificationsEnabled: Bool = false
    /// Whether the daemon shows its StatusNotifierItem tray item (issue 16).
    public var isTrayEnabled: Bool = true
    /// Whether playback skips long silences (`SilenceSkipper`).
    public var skipsSilence: Bool = false
    /// How many times faster than recorded memos play, pitch kept (`Validation.playbackRates`).
    public var playbackRate: Double = 1
    /// Whether a recording records the system audio (the default output's monitor) beside
    /// the microphone unless its options say otherwise: for recording calls.
    public var systemAudio: Bool = false
    /// Whether recordings suppress the microphone's background noise unless their options
    /// say otherwise (`VoiceProcessing`).
    public var noiseSuppression: Bool = false
    /// Whether recordings bring the microphone's level to speech's unless their options say
    /// otherwise (`VoiceProcessing`).
    public var autoGain: Bool = false
    /// Whether each memo is queued for transcription once its recording has finished.
    public var transcribeNewMemos: Bool = false
    /// The speech model transcripts are made with: a name as faster-whisper takes it, or a
    /// directory holding one (`Validation.transcriptionModel`).
    public var transcriptionModel: String = "tiny.en"
    /// How long a recording waits for a lost audio server (or device) to come back before it
    /// is finished unsuccessfully; a setting only (`settings.json`), not a contract property.
    public var reconnectTimeout: Double = 60
    /// Whether a recording that system sleep interrupted goes on by itself after wake-up
    /// (otherwise it stays paused); a setting only (`settings.json`).
    public var resumeAfterSleep: Bool = true

    /// Opus, 48 kHz, mono, medium: right for voice.
    public init() {}

    /// The keys of `settings.json`; reading them back is `SettingsDocument`'s job, which
    /// checks every value.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case format, sampleRate, channels, quality, source, isMeteringEnabled, areNotificationsEnabled, isTrayEnabled,
            skipsSilence, playbackRate, systemAudio, noiseSuppression, autoGain, transcribeNewMemos, transcriptionModel
        case reconnectTimeout, resumeAfterSleep
    }
}
