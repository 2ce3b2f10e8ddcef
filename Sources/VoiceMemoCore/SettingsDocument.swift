import FoundationEssentials

/// A value in `settings.json` that was not used: the key it was under (nil when the whole
/// file was unusable) and why, in one line.
public struct SettingsProblem: Equatable, Sendable, CustomStringConvertible {
    public let key: String?
    public let message: String

    public var description: String { message }
}

/// `settings.json` read back as a property write would take each value: one that is missing
/// keeps its default silently; one of the wrong type or out of range keeps its default and
/// becomes a `SettingsProblem`. Nothing in the file can make reading it trap.
public struct SettingsDocument: Decodable, Sendable {
    public private(set) var defaults = RecorderDefaults()
    /// One per value not used (or one for a file that is not a JSON object), in key order.
    public private(set) var problems: [SettingsProblem] = []

    private typealias Key = RecorderDefaults.CodingKeys

    /// Reads `data`; a file that is not a JSON object gives the built-in defaults and one problem.
    public init(data: Data) {
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch DecodingError.typeMismatch {
            problems = [SettingsProblem(key: nil, message: "is not a JSON object; using the built-in defaults")]
        } catch {
            problems = [SettingsProblem(key: nil, message: "is not valid JSON; using the built-in defaults")]
        }
    }

    /// The built-in defaults: for a missing file (no `problem`) or one that could not be used.
    package init(problem message: String? = nil) {
        problems = message.map { [SettingsProblem(key: nil, message: $0)] } ?? []
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let fallback = RecorderDefaults()
        var problems: [SettingsProblem] = []

        /// The value under `key` checked by `check`; the default (and a problem) when it does not pass.
        func value<Value>(
            _ key: Key, _ fallback: Value, check: (Key) throws -> Value
        ) -> Value {
            guard container.contains(key) else { return fallback }
            do {
                return try check(key)
            } catch {
                let reason = (error as? RecorderError)?.message ?? "'\(key.rawValue)' \(Self.typeComplaint(error))"
                problems.append(
                    SettingsProblem(
                        key: key.rawValue, message: "\(reason); using the default, \(Self.describe(fallback))"))
                return fallback
            }
        }
        func string(_ key: Key) throws -> String { try container.decode(String.self, forKey: key) }
        /// A JSON number as a `UInt32` checked by `check`; any other number (negative,
        /// fractional, huge) is outside `range`, and the message says so.
        func whole(_ key: Key, range: ClosedRange<UInt32>, check: (UInt32) throws(RecorderError) -> UInt32) throws
            -> UInt32
        {
            if let number = try? container.decode(UInt32.self, forKey: key) { return try check(number) }
            let number = try container.decode(Double.self, forKey: key)
            throw RecorderError.invalidArgument(
                "'\(key.rawValue)' must be a whole number from \(range.lowerBound) to \(range.upperBound); got \(number)"
            )
        }

        defaults.format = value(.format, fallback.format) { try Validation.format(try string($0), key: $0.rawValue) }
        defaults.sampleRate = value(.sampleRate, fallback.sampleRate) { key in
            try whole(key, range: Validation.sampleRates) { (rate) throws(RecorderError) in
                try Validation.sampleRate(rate, key: key.rawValue)
            }
        }
        defaults.channels = value(.channels, fallback.channels) { key in
            try whole(key, range: Validation.channelCounts) { (count) throws(RecorderError) in
                try Validation.channels(count, key: key.rawValue)
            }
        }
        defaults.quality = value(.quality, fallback.quality) {
            try Validation.quality(try string($0), key: $0.rawValue)
        }
        defaults.source = value(.source, fallback.source) { try Validation.source(try string($0), key: $0.rawValue) }
        defaults.isMeteringEnabled = value(.isMeteringEnabled, fallback.isMeteringEnabled) {
            try container.decode(Bool.self, forKey: $0)
        }
        defaults.areNotificationsEnabled = value(.areNotificationsEnabled, fallback.areNotificationsEnabled) {
            try container.decode(Bool.self, forKey: $0)
        }
        defaults.isTrayEnabled = value(.isTrayEnabled, fallback.isTrayEnabled) {
            try container.decode(Bool.self, forKey: $0)
        }
        defaults.skipsSilence = value(.skipsSilence, fallback.skipsSilence) {
            try container.decode(Bool.self, forKey: $0)
        }
        defaults.playbackRate = value(.playbackRate, fallback.playbackRate) {
            try Validation.playbackRate(try container.decode(Double.self, forKey: $0), key: $0.rawValue)
        }
        defaults.systemAudio = value(.systemAudio, fallback.systemAudio) {
            try container.decode(Bool.self, forKey: $0)
        }
        defaults.noiseSuppression = value(.noiseSuppression, fallback.noiseSuppression) {
            try container.decode(Bool.self, forKey: $0)
        }
        defaults.autoGain = value(.autoGain, fallback.autoGain) {
            try container.decode(Bool.self, forKey: $0)
        }
        defaults.transcribeNewMemos = value(.transcribeNewMemos, fallback.transcribeNewMemos) {
            try container.decode(Bool.self, forKey: $0)
        }
        defaults.transcriptionModel = value(.transcriptionModel, fallback.transcriptionModel) {
            try Validation.transcriptionModel(try string($0), key: $0.rawValue)
        }
        defaults.reconnectTimeout = value(.reconnectTimeout, fallback.reconnectTimeout) {
            try Validation.reconnectTimeout(try container.decode(Double.self, forKey: $0), key: $0.rawValue)
        }
        defaults.resumeAfterSleep = value(.resumeAfterSleep, fallback.resumeAfterSleep) {
            try container.decode(Bool.self, forKey: $0)
        }
        self.problems = problems
    }

    /// Why a value could not even be read: the wrong JSON type (or null), or a value the
    /// lenient JSON scanner let through but no Swift value holds.
    private static func typeComplaint(_ error: any Error) -> String {
        let expected: Any.Type
        switch error {
        case DecodingError.typeMismatch(let type, _), DecodingError.valueNotFound(let type, _): expected = type
        default: return "is malformed (a number beyond any number type, or a broken string)"
        }
        return switch expected {
        case is String.Type: "must be a string"
        case is Bool.Type: "must be true or false"
        default: "must be a number"
        }
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case let text as String: text.isEmpty ? "\"\"" : text
        case let format as AudioFormat: format.rawValue
        case let quality as Quality: quality.rawValue
        default: "\(value)"
        }
    }
}
