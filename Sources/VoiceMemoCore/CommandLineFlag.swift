import FoundationEssentials

/// How `voicememo record` spells one `RecordingOption`: `--name`, what its word must be, and
/// the flag it only goes with. The CLI checks the word's form so a typo is a usage error at
/// once; the daemon still validates the value.
public struct CommandLineFlag: Sendable {
    /// The flag without its dashes.
    public let name: String
    public let argument: Argument
    /// The flag this one only goes with (`--threshold` with `--on-sound`), if any.
    public let requires: String?

    public enum Argument: Sendable {
        /// No word: the flag's presence sends this value.
        case presence(OptionValue)
        /// Any word, sent as text.
        case text
        /// A whole number, sent as an unsigned 32-bit integer.
        case wholeNumber
        /// A number of seconds greater than 0.
        case seconds
        /// A finite number.
        case number
        /// A time `StartTime.parse` reads, sent as a Unix time.
        case startTime
    }

    public init(_ name: String, _ argument: Argument, requires: String? = nil) {
        self.name = name
        self.argument = argument
        self.requires = requires
    }

    /// Whether the flag takes a word after it.
    public var takesValue: Bool {
        if case .presence = argument { false } else { true }
    }

    /// The option's value for `word` (ignored for a flag that takes none), or nil when the
    /// word is not of the flag's form.
    public func value(for word: String, now: Date = Date()) -> OptionValue? {
        switch argument {
        case .presence(let value): value
        case .text: .string(word)
        case .wholeNumber: UInt32(word).map(OptionValue.uint32)
        case .seconds: Double(word).flatMap { $0 > 0 && $0.isFinite ? .double($0) : nil }
        case .number: Double(word).flatMap { $0.isFinite ? .double($0) : nil }
        case .startTime: StartTime.parse(word, now: now).map(OptionValue.int64)
        }
    }

    /// What the word must be, for a usage error: "--rate needs a whole number; got 'x'".
    public var expectation: String {
        switch argument {
        case .presence: "no value"
        case .text: "a value"
        case .wholeNumber: "a whole number"
        case .seconds: "a number of seconds"
        case .number: "a number"
        case .startTime: "+SECONDS, +MINUTESm, +HOURSh, HH:MM or a Unix time"
        }
    }
}
