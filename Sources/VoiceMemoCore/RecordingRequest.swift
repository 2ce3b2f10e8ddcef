/// Everything one recording needs, resolved from the defaults and the caller's options.
public struct RecordingRequest: Equatable, Sendable {
    public var format: AudioFormat
    public var sampleRate: UInt32
    public var channels: UInt32
    public var quality: Quality
    public var title: String?
    /// The source to pin to, or nil to follow the default input.
    public var source: String?
    /// Stop by itself after this many recorded seconds.
    public var duration: Double?
    /// Start at this Unix time in seconds.
    public var startTime: Int64?
    /// Stop by itself after this many seconds of continuous input below `silenceThreshold`.
    public var stopAfterSilence: Double?
    /// The level, in dBFS, below which input counts as silence.
    public var silenceThreshold: Double = -50
    /// Wait, capturing, for the input to rise above `soundThreshold` before the memo begins.
    public var startsOnSound = false
    /// The level, in dBFS, input must reach to start a recording that waits for sound.
    public var soundThreshold: Double = -40
    /// Seconds of audio from before the sound that the memo begins with.
    public var preRoll: Double = 0.5
    /// Whether the memo also records the system audio (the monitor of the default output,
    /// followed when the default changes) beside the microphone: a call's both sides.
    public var systemAudio: Bool
    /// How the memo's channels hold the microphone and the system audio; `split` only with
    /// `systemAudio`, and always two channels.
    public var channelLayout: ChannelLayout = .mix
    /// How the microphone's voice is cleaned before it is written (`VoiceProcessing`).
    public var voiceProcessing: VoiceProcessing
    /// Whether the memo is queued for transcription once it is finished.
    public var transcribes: Bool

    /// A request that uses the defaults unchanged.
    public init(defaults: RecorderDefaults) {
        format = defaults.format
        sampleRate = defaults.sampleRate
        channels = defaults.channels
        quality = defaults.quality
        source = defaults.source.isEmpty ? nil : defaults.source
        systemAudio = defaults.systemAudio
        voiceProcessing = VoiceProcessing(suppressesNoise: defaults.noiseSuppression, controlsGain: defaults.autoGain)
        transcribes = defaults.transcribeNewMemos
    }

    /// Applies `RecordWithOptions` options (`RecordingOption.all`) on top of the defaults; an
    /// unknown key or a value out of range is an `invalidArgument` naming the key, a value of
    /// the wrong type a `wrongOptionType`, which each adapter words in its client's terms.
    public init(defaults: RecorderDefaults, options: [String: OptionValue], now: Int64) throws(RecorderError) {
        self.init(defaults: defaults)
        for key in options.keys.sorted() {
            guard let option = RecordingOption.named(key) else {
                throw .invalidArgument(
                    "unknown option '\(Validation.printable(key))'; known options: \(RecordingOption.all.map(\.key).joined(separator: ", "))"
                )
            }
            try option.apply(options[key]!, to: &self, now: now)
        }
        // After the loop: the layout's rules depend on other options and on the defaults.
        channels = try channelCount(asked: options[RecordingOption.channels.key] == nil ? nil : channels)
        try Validation.combination(format: format, sampleRate: sampleRate)
    }

    /// The memo's channel count under `channelLayout`, given the `channels` option if there
    /// was one: `mix` keeps what was asked (or the default); `split` puts the microphone left
    /// and the system audio right, so it needs system audio and records two channels.
    private func channelCount(asked: UInt32?) throws(RecorderError) -> UInt32 {
        switch channelLayout {
        case .mix:
            return channels
        case .split:
            guard systemAudio else {
                throw .invalidArgument(
                    "'channel-layout' split puts the microphone left and the system audio right: it needs 'system-audio'"
                )
            }
            if let asked, asked != 2 {
                throw .invalidArgument(
                    "'channel-layout' split records two channels, the microphone left and the system audio right; 'channels' \(asked) contradicts it: leave 'channels' out or make it 2"
                )
            }
            return 2
        }
    }

    /// Continuous silent frames after which the recording stops by itself, if asked for.
    public var silenceFrameLimit: Int? {
        stopAfterSilence.map { Int(($0 * Double(sampleRate)).rounded()) }
    }

    /// Frames after which the recording stops by itself, if a duration was asked for.
    public var frameLimit: Int? {
        duration.map { Int(($0 * Double(sampleRate)).rounded()) }
    }
}
