import Bus
import VoiceMemoCore

extension OptionKind {
    /// The D-Bus type the contract gives options of this kind in `RecordWithOptions`.
    public var signature: String {
        switch self {
        case .text: "s"
        case .unsigned32: "u"
        case .signed64: "x"
        case .number: "d"
        case .flag: "b"
        }
    }
}

extension OptionValue {
    /// The option as the recorder validates it; other types keep only their signature.
    public init(_ value: BusValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .uint32(let number): self = .uint32(number)
        case .int64(let number): self = .int64(number)
        case .double(let number): self = .double(number)
        case .boolean(let flag): self = .boolean(flag)
        default: self = .other(type: value.signature)
        }
    }

    /// The D-Bus type signature the value arrived with: its kind's, or the one kept for any
    /// other type.
    public var signature: String {
        if case .other(let type) = self { return type }
        return kind!.signature  // Every other case has a kind.
    }
}

extension BusValue {
    /// The option as a client sends it, or nil for a value of no kind the contract uses.
    public init?(_ value: OptionValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .uint32(let number): self = .uint32(number)
        case .int64(let number): self = .int64(number)
        case .double(let number): self = .double(number)
        case .boolean(let flag): self = .boolean(flag)
        case .other: return nil
        }
    }
}
