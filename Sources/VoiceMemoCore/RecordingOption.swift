/// One key of `RecordWithOptions`: its name, the kind of value it takes, how it changes a
/// `RecordingRequest` (validation included), and the `voicememo record` flag that sets it.
/// `RecordingOption.all` is the one table the request parser, the CLI, the contract check
/// and the tests read, so adding an option is one entry here plus its test.
public struct RecordingOption: Sendable, Hashable {
    /// The key as clients send it.
    public let key: String
    /// The kind of value the key takes.
    public let kind: OptionKind
    /// How `voicememo record` spells it, or nil for an option only the bus offers.
    public let flag: CommandLineFlag?
    private let apply: @Sendable (inout Target, OptionValue) throws(RecorderError) -> Void

    /// The request an option is applied to, with what its validation words and compares.
    public struct Target {
        public var request: RecordingRequest
        /// The option's key, for the messages of a refusal.
        public let key: String
        /// The Unix time of the call, in seconds.
        public let now: Int64
    }

    /// Applies `value` to `target.request`: a value of another kind is `wrongOptionType`, one
    /// out of range an `invalidArgument` naming the key.
    public func apply(_ value: OptionValue, to request: inout RecordingRequest, now: Int64) throws(RecorderError) {
        var target = Target(request: request, key: key, now: now)
        try apply(&target, value)
        request = target.request
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

extension RecordingOption {
    /// An option whose value `extract` takes out of the one `OptionValue` case of `kind`.
    private init<Value>(
        _ key: String, _ kind: OptionKind, flag: CommandLineFlag?, extract: @escaping @Sendable (OptionValue) -> Value?,
        apply: @escaping @Sendable (inout Target, Value) throws(RecorderError) -> Void
    ) {
        self.key = key
        self.kind = kind
        self.flag = flag
        self.apply = { target, value throws(RecorderError) in
            guard let value = extract(value) else {
                throw .wrongOptionType(key: target.key, expected: kind, got: value)
            }
            try apply(&target, value)
        }
    }

    static func text(
        _ key: String, flag: CommandLineFlag? = nil,
        _ apply: @escaping @Sendable (inout Target, String) throws(RecorderError) -> Void
    ) -> Self {
        Self(key, .text, flag: flag, extract: { if case .string(let text) = $0 { text } else { nil } }, apply: apply)
    }

    static func unsigned32(
        _ key: String, flag: CommandLineFlag? = nil,
        _ apply: @escaping @Sendable (inout Target, UInt32) throws(RecorderError) -> Void
    ) -> Self {
        Self(key, .unsigned32, flag: flag, extract: { if case .uint32(let n) = $0 { n } else { nil } }, apply: apply)
    }

    static func signed64(
        _ key: String, flag: CommandLineFlag? = nil,
        _ apply: @escaping @Sendable (inout Target, Int64) throws(RecorderError) -> Void
    ) -> Self {
        Self(key, .signed64, flag: flag, extract: { if case .int64(let n) = $0 { n } else { nil } }, apply: apply)
    }

    static func number(
        _ key: String, flag: CommandLineFlag? = nil,
        _ apply: @escaping @Sendable (inout Target, Double) throws(RecorderError) -> Void
    ) -> Self {
        Self(key, .number, flag: flag, extract: { if case .double(let n) = $0 { n } else { nil } }, apply: apply)
    }

    static func flag(
        _ key: String, flag: CommandLineFlag? = nil,
        _ apply: @escaping @Sendable (inout Target, Bool) throws(RecorderError) -> Void
    ) -> Self {
        Self(key, .flag, flag: flag, extract: { if case .boolean(let b) = $0 { b } else { nil } }, apply: apply)
    }
}

extension RecordingOption {
    public static let format = text("format", flag: .init("format", .text)) { target, value throws(RecorderError) in
        target.request.format = try Validation.format(value, key: target.key)
    }
    public static let sampleRate = unsigned32("sample-rate", flag: .init("rate", .wholeNumber)) {
        target, value throws(RecorderError) in
        target.request.sampleRate = try Validation.sampleRate(value, key: target.key)
    }
    public static let channels = unsigned32("channels", flag: .init("channels", .wholeNumber)) {
        target, value throws(RecorderError) in
        target.request.channels = try Validation.channels(value, key: target.key)
    }
    public static let quality = text("quality", flag: .init("quality", .text)) { target, value throws(RecorderError) in
        target.request.quality = try Validation.quality(value, key: target.key)
    }
    public static let title = text("title", flag: .init("title", .text)) { target, value throws(RecorderError) in
        target.request.title = try Validation.title(value, key: target.key)
    }
    /// The source to pin to; empty follows the default input.
    public static let source = text("source", flag: .init("source", .text)) { target, value throws(RecorderError) in
        let name = try Validation.source(value, key: target.key)
        target.request.source = name.isEmpty ? nil : name
    }
    public static let duration = number("duration", flag: .init("duration", .seconds)) {
        target, value throws(RecorderError) in
        target.request.duration = try Validation.duration(value, key: target.key)
    }
    public static let startAt = signed64("start-at", flag: .init("at", .startTime)) {
        target, value throws(RecorderError) in
        target.request.startTime = try Validation.startTime(value, now: target.now, key: target.key)
    }
    public static let stopAfterSilence = number("stop-after-silence") { target, value throws(RecorderError) in
        target.request.stopAfterSilence = try Validation.duration(value, key: target.key)
    }
    public static let silenceThreshold = number("silence-threshold") { target, value throws(RecorderError) in
        target.request.silenceThreshold = try Validation.silenceThreshold(value, key: target.key)
    }
    public static let startOnSound = flag("start-on-sound", flag: .init("on-sound", .presence(.boolean(true)))) {
        $0.request.startsOnSound = $1
    }
    public static let soundThreshold = number(
        "sound-threshold", flag: .init("threshold", .number, requires: "on-sound")
    ) { target, value throws(RecorderError) in
        target.request.soundThreshold = try Validation.silenceThreshold(value, key: target.key)
    }
    public static let preRoll = number("pre-roll", flag: .init("pre-roll", .number, requires: "on-sound")) {
        target, value throws(RecorderError) in
        target.request.preRoll = try Validation.preRoll(value, key: target.key)
    }
    public static let systemAudio = flag("system-audio", flag: .init("system-audio", .presence(.boolean(true)))) {
        $0.request.systemAudio = $1
    }
    /// Whether the layout fits the other options is the request's rule, checked after them all.
    public static let channelLayout = text(
        "channel-layout",
        flag: .init("split", .presence(.string(ChannelLayout.split.rawValue)), requires: "system-audio")
    ) { target, value throws(RecorderError) in
        target.request.channelLayout = try Validation.channelLayout(value, key: target.key)
    }
    public static let noiseSuppression = flag(
        "noise-suppression", flag: .init("noise-suppression", .presence(.boolean(true)))
    ) { $0.request.voiceProcessing.suppressesNoise = $1 }
    public static let autoGain = flag("auto-gain", flag: .init("auto-gain", .presence(.boolean(true)))) {
        $0.request.voiceProcessing.controlsGain = $1
    }
    public static let transcribe = flag("transcribe", flag: .init("transcribe", .presence(.boolean(true)))) {
        $0.request.transcribes = $1
    }

    /// Every option, in the order error messages and the contract list them.
    public static let all: [RecordingOption] = [
        format, sampleRate, channels, quality, title, source, duration, startAt, stopAfterSilence, silenceThreshold,
        startOnSound, soundThreshold, preRoll, systemAudio, channelLayout, noiseSuppression, autoGain, transcribe,
    ]

    /// The option named `key`, or nil for a key the contract does not have.
    public static func named(_ key: String) -> RecordingOption? { all.first { $0.key == key } }
}
