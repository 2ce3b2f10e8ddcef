/// A D-Bus value with its type, as it travels in a message body.
///
/// Containers carry their element signatures so that empty arrays and
/// dictionaries still marshal with the right type.
public enum BusValue: Sendable, Equatable {
    /// `y`
    case byte(UInt8)
    /// `b`
    case boolean(Bool)
    /// `n`
    case int16(Int16)
    /// `q`
    case uint16(UInt16)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `t`
    case uint64(UInt64)
    /// `d`
    case double(Double)
    /// `s`; an embedded NUL truncates the string on the wire.
    case string(String)
    /// `o`
    case objectPath(ObjectPath)
    /// A type signature value (`g`), such as `a{sv}`.
    case signature(String)
    /// `a…` of anything but dict entries; every element must have `elementSignature`.
    case array(elementSignature: String, [BusValue])
    /// `a{…}`; keys must be of a basic type.
    case dictionary(keySignature: String, valueSignature: String, [BusDictionaryEntry])
    /// `(…)`, with at least one field.
    case structure([BusValue])
    /// `v`: a value carrying its own type.
    indirect case variant(BusValue)
    /// `h`: a file descriptor. Sending duplicates it; a received one is a new descriptor
    /// owned by the value (closed when the last copy goes away).
    case unixFileDescriptor(UnixFileDescriptor)

    /// The D-Bus type signature of this value, e.g. `a{sv}`.
    public var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .array(let element, _): return "a" + element
        case .dictionary(let key, let value, _): return "a{" + key + value + "}"
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        case .variant: return "v"
        case .unixFileDescriptor: return "h"
        }
    }
}

/// One key/value pair of a `BusValue.dictionary`.
public struct BusDictionaryEntry: Sendable, Equatable {
    /// The key; a basic type.
    public var key: BusValue
    /// The value.
    public var value: BusValue

    /// Creates an entry.
    public init(key: BusValue, value: BusValue) {
        self.key = key
        self.value = value
    }
}

// MARK: - Convenience

extension BusValue {
    /// An `a{sv}` dictionary with each value wrapped in a variant, keys sorted
    /// so the same input always produces the same message.
    public static func stringDictionary(_ dictionary: [String: BusValue]) -> BusValue {
        let entries = dictionary.sorted { $0.key < $1.key }.map {
            BusDictionaryEntry(key: .string($0.key), value: .variant($0.value))
        }
        return .dictionary(keySignature: "s", valueSignature: "v", entries)
    }

    /// An `as` array.
    public static func stringArray(_ strings: [String]) -> BusValue {
        .array(elementSignature: "s", strings.map { .string($0) })
    }

    /// The `a{sv}` contents with variants unwrapped, or `nil` for any other type.
    public var stringDictionary: [String: BusValue]? {
        guard case .dictionary("s", "v", let entries) = self else { return nil }
        var result: [String: BusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else { return nil }
            result[key] = value
        }
        return result
    }

    /// The payload of `.byte`, else `nil`.
    public var byte: UInt8? { if case .byte(let v) = self { return v } else { return nil } }
    /// The payload of `.unixFileDescriptor`, else `nil`.
    public var unixFileDescriptor: UnixFileDescriptor? {
        if case .unixFileDescriptor(let v) = self { return v } else { return nil }
    }
    /// The payload of `.boolean`, else `nil`.
    public var boolean: Bool? { if case .boolean(let v) = self { return v } else { return nil } }
    /// The payload of `.int16`, else `nil`.
    public var int16: Int16? { if case .int16(let v) = self { return v } else { return nil } }
    /// The payload of `.uint16`, else `nil`.
    public var uint16: UInt16? { if case .uint16(let v) = self { return v } else { return nil } }
    /// The payload of `.int32`, else `nil`.
    public var int32: Int32? { if case .int32(let v) = self { return v } else { return nil } }
    /// The payload of `.uint32`, else `nil`.
    public var uint32: UInt32? { if case .uint32(let v) = self { return v } else { return nil } }
    /// The payload of `.int64`, else `nil`.
    public var int64: Int64? { if case .int64(let v) = self { return v } else { return nil } }
    /// The payload of `.uint64`, else `nil`.
    public var uint64: UInt64? { if case .uint64(let v) = self { return v } else { return nil } }
    /// The payload of `.double`, else `nil`.
    public var double: Double? { if case .double(let v) = self { return v } else { return nil } }
    /// The payload of `.string`, else `nil`.
    public var string: String? { if case .string(let v) = self { return v } else { return nil } }
    /// The payload of `.objectPath`, else `nil`.
    public var objectPath: ObjectPath? { if case .objectPath(let v) = self { return v } else { return nil } }
    /// The elements of `.array`, else `nil`.
    public var array: [BusValue]? { if case .array(_, let v) = self { return v } else { return nil } }
    /// The entries of `.dictionary`, else `nil`.
    public var dictionaryEntries: [BusDictionaryEntry]? {
        if case .dictionary(_, _, let v) = self { return v } else { return nil }
    }
    /// The fields of `.structure`, else `nil`.
    public var structure: [BusValue]? { if case .structure(let v) = self { return v } else { return nil } }
    /// The contents of `.variant`, else `nil`.
    public var variant: BusValue? { if case .variant(let v) = self { return v } else { return nil } }
}

// MARK: - Validation

extension BusValue {
    /// Why this value cannot be marshalled, or `nil` if it can.
    ///
    /// libdbus aborts the process when asked to append ill-typed containers,
    /// so values are checked here first and rejected with a readable reason.
    internal var marshallingProblem: String? {
        switch self {
        case .signature(let signature):
            return Signature.isValid(signature) ? nil : "invalid signature value '\(signature)'"
        case .array(let element, let values):
            guard Signature.isSingleCompleteType(element), !element.hasPrefix("{") else {
                return "invalid array element signature '\(element)'"
            }
            for value in values {
                if value.signature != element {
                    return "array of '\(element)' contains a '\(value.signature)'"
                }
                if let problem = value.marshallingProblem { return problem }
            }
        case .dictionary(let key, let value, let entries):
            guard Signature.isBasicType(key), Signature.isSingleCompleteType(value) else {
                return "invalid dictionary signature 'a{\(key)\(value)}'"
            }
            for entry in entries {
                if entry.key.signature != key || entry.value.signature != value {
                    return
                        "dictionary 'a{\(key)\(value)}' contains a '{\(entry.key.signature)\(entry.value.signature)}'"
                }
                if let problem = entry.key.marshallingProblem ?? entry.value.marshallingProblem { return problem }
            }
        case .structure(let fields):
            if fields.isEmpty { return "empty structure" }
            for field in fields {
                if let problem = field.marshallingProblem { return problem }
            }
        case .variant(let inner):
            return inner.marshallingProblem
        default:
            break
        }
        // Depth limits and the like are left to libdbus, which reports rather than aborts.
        return nil
    }
}

/// Signature checks backed by libdbus's own validator.
internal enum Signature {
    /// Whether `signature` is a valid (possibly empty) sequence of complete types.
    static func isValid(_ signature: String) -> Bool {
        LibDBus.isValidSignature(signature)
    }

    /// Whether `signature` is exactly one complete type.
    static func isSingleCompleteType(_ signature: String) -> Bool {
        LibDBus.isSingleCompleteType(signature)
    }

    /// Whether `signature` is one basic (non-container) type code, which D-Bus
    /// requires for dictionary keys.
    static func isBasicType(_ signature: String) -> Bool {
        guard signature.utf8.count == 1, let code = signature.utf8.first else { return false }
        return LibDBus.isBasicType(code)
    }
}
