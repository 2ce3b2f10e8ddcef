/// A value as a client sent it, before validation: just the types the contract's options
/// use, and the type signature of anything else so the error can name it.
public enum OptionValue: Equatable, Sendable {
    case string(String)
    case uint32(UInt32)
    case int64(Int64)
    case double(Double)
    case boolean(Bool)
    /// Any other type, by its D-Bus type signature.
    case other(signature: String)

    /// The D-Bus type signature of the value, for error messages.
    public var signature: String {
        switch self {
        case .string: "s"
        case .uint32: "u"
        case .int64: "x"
        case .double: "d"
        case .boolean: "b"
        case .other(let signature): signature
        }
    }
}
