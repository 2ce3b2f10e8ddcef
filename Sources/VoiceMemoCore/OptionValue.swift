/// A value as a client sent it, before validation: just the types the contract's options
/// use, and the name of anything else so the error can name it.
public enum OptionValue: Equatable, Sendable {
    case string(String)
    case uint32(UInt32)
    case int64(Int64)
    case double(Double)
    case boolean(Bool)
    /// Any other type, by the name the client's protocol gives it (the core never reads it).
    case other(type: String)

    /// The kind of option the value can be, or nil for any other type.
    public var kind: OptionKind? {
        switch self {
        case .string: .text
        case .uint32: .unsigned32
        case .int64: .signed64
        case .double: .number
        case .boolean: .flag
        case .other: nil
        }
    }
}

/// The kinds of value the contract's options take, one per `OptionValue` case it uses.
public enum OptionKind: Sendable, CaseIterable, CustomStringConvertible {
    case text, unsigned32, signed64, number, flag

    /// The kind in words, for messages that do not speak the client's protocol.
    public var description: String {
        switch self {
        case .text: "text"
        case .unsigned32: "an unsigned 32-bit integer"
        case .signed64: "a signed 64-bit integer"
        case .number: "a number"
        case .flag: "true or false"
        }
    }
}
