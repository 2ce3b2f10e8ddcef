/// D-Bus type codes; libdbus defines them as `((int) 'y')` macros, which Swift cannot import.
internal enum TypeCode {
    /// Returned by iterators past the last argument.
    static let invalid: Int32 = 0
    static let byte = code("y")
    static let boolean = code("b")
    static let int16 = code("n")
    static let uint16 = code("q")
    static let int32 = code("i")
    static let uint32 = code("u")
    static let int64 = code("x")
    static let uint64 = code("t")
    static let double = code("d")
    static let string = code("s")
    static let objectPath = code("o")
    static let signature = code("g")
    static let array = code("a")
    static let structure = code("r")
    static let variant = code("v")
    static let unixFileDescriptor = code("h")
    /// `{…}` inside an array; its signature characters never appear as a type code.
    static let dictEntry = code("e")

    private static func code(_ character: Unicode.Scalar) -> Int32 { Int32(UInt8(ascii: character)) }
}

/// An owned reference to a libdbus message, with marshalling of `BusValue`s in and out.
///
/// `@unchecked Sendable`: libdbus reference-counts messages atomically, and a
/// message is only appended to before it is handed to the connection.
internal final class Message: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Takes over a reference libdbus handed us (e.g. from pop_message).
    init(adopting handle: OpaquePointer) {
        self.handle = handle
    }

    /// Takes a new reference to a message libdbus only lends us (e.g. in a filter).
    init(borrowing handle: OpaquePointer) {
        self.handle = LibDBus.retain(message: handle)
    }

    deinit {
        LibDBus.release(message: handle)
    }

    /// Gives `body` the underlying message, which stays valid for the duration of the call.
    func withUnsafeHandle<Result>(_ body: (OpaquePointer) -> Result) -> Result {
        body(handle)
    }

    // MARK: Construction

    /// A method call message.
    static func methodCall(
        destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName
    ) -> Message {
        Message(
            adopting: LibDBus.makeMethodCall(destination: destination, path: path, interface: interface, member: member)
        )
    }

    /// Marks a method call as wanting no reply, so neither the callee nor the bus sends one.
    func setNoReply() {
        LibDBus.setNoReply(handle)
    }

    /// A signal message.
    static func signal(path: ObjectPath, interface: InterfaceName, member: MemberName) -> Message {
        Message(adopting: LibDBus.makeSignal(path: path, interface: interface, member: member))
    }

    /// The successful reply to this method call.
    func makeReturn() -> Message {
        Message(adopting: LibDBus.makeReturn(to: handle))
    }

    /// The successful reply to this method call that carries `template`'s body: a reply
    /// sent to another call before, answered again without marshalling it again.
    func makeReturn(copying template: Message) -> Message {
        template.withUnsafeHandle { Message(adopting: LibDBus.makeReturn(to: handle, copying: $0)) }
    }

    /// The error reply to this method call.
    func makeError(_ error: BusError) -> Message {
        Message(adopting: LibDBus.makeError(to: handle, error))
    }

    // MARK: Header fields

    /// Whether this is a method call.
    var isMethodCall: Bool { LibDBus.isMethodCall(handle) }
    /// Whether this is a signal.
    var isSignal: Bool { LibDBus.isSignal(handle) }

    /// The object path header field.
    var path: ObjectPath? { LibDBus.path(handle).flatMap(ObjectPath.init(rawValue:)) }
    /// The interface header field; optional on method calls.
    var interface: InterfaceName? { LibDBus.interface(handle).flatMap(InterfaceName.init(rawValue:)) }
    /// The member header field.
    var member: MemberName? { LibDBus.member(handle).flatMap(MemberName.init(rawValue:)) }
    /// The sender's unique name (empty on peer-to-peer connections).
    var sender: String { LibDBus.sender(handle) ?? "" }
    /// The destination header field.
    var destination: String? { LibDBus.destination(handle) }
    /// The body's signature, e.g. `sa{sv}`.
    var signature: String { LibDBus.signature(handle) ?? "" }
    /// Whether the caller asked not to be answered.
    var expectsReply: Bool { !LibDBus.isNoReply(handle) }

    /// Throws the error an error reply carries; does nothing for other messages.
    func throwIfError() throws(BusError) {
        if let error = LibDBus.error(carriedBy: handle) { throw error }
    }

    // MARK: Body

    /// Appends `values` to the body; traps if a value is ill-typed, which is a
    /// programming error (libdbus would abort with a less helpful message).
    func append(_ values: [BusValue]) {
        var iter = MessageIterator(appendingTo: self)
        for value in values {
            if let problem = value.marshallingProblem {
                preconditionFailure("cannot marshal \(value.signature): \(problem)")
            }
            Message.append(value, to: &iter)
        }
    }

    /// Reads the whole body. Throws `InvalidArgs` for types `BusValue` cannot
    /// represent, so a hostile peer gets an error, not a crash. Each read of a unix fd
    /// argument yields a new descriptor, owned by the returned value.
    func arguments() throws(BusError) -> [BusValue] {
        guard var iter = MessageIterator(reading: self) else { return [] }  // empty body
        return try Message.readAll(&iter)
    }

    /// Appends one value at `iter`, recursing into containers.
    static func append(_ value: BusValue, to iter: inout MessageIterator) {
        switch value {
        case .byte(let v): iter.appendBasic(v, type: TypeCode.byte)
        case .boolean(let v): iter.appendBoolean(v)
        case .int16(let v): iter.appendBasic(v, type: TypeCode.int16)
        case .uint16(let v): iter.appendBasic(v, type: TypeCode.uint16)
        case .int32(let v): iter.appendBasic(v, type: TypeCode.int32)
        case .uint32(let v): iter.appendBasic(v, type: TypeCode.uint32)
        case .int64(let v): iter.appendBasic(v, type: TypeCode.int64)
        case .uint64(let v): iter.appendBasic(v, type: TypeCode.uint64)
        case .double(let v): iter.appendBasic(v, type: TypeCode.double)
        case .string(let v): iter.appendString(v, type: TypeCode.string)
        case .objectPath(let v): iter.appendString(v.rawValue, type: TypeCode.objectPath)
        case .signature(let v): iter.appendString(v, type: TypeCode.signature)
        case .array("d", let values):
            let doubles = values.map { $0.double! }
            iter.appendContainer(TypeCode.array, "d") { $0.appendDoubles(doubles) }
        case .array(let element, let values):
            iter.appendContainer(TypeCode.array, element) { sub in
                for value in values { append(value, to: &sub) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            iter.appendContainer(TypeCode.array, "{" + key + valueSignature + "}") { sub in
                for entry in entries {
                    sub.appendContainer(TypeCode.dictEntry, nil) { pair in
                        append(entry.key, to: &pair)
                        append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            iter.appendContainer(TypeCode.structure, nil) { sub in
                for field in fields { append(field, to: &sub) }
            }
        case .variant(let inner):
            iter.appendContainer(TypeCode.variant, inner.signature) { sub in
                append(inner, to: &sub)
            }
        case .unixFileDescriptor(let file):
            // libdbus duplicates the descriptor; the value keeps its own.
            guard let descriptor = file.descriptor else { preconditionFailure("cannot send a closed \(file)") }
            iter.appendBasic(descriptor, type: TypeCode.unixFileDescriptor)
        }
    }

    private static func readAll(_ iter: inout MessageIterator) throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while iter.argumentType() != TypeCode.invalid {
            values.append(try read(&iter))
            iter.next()
        }
        return values
    }

    private static func read(_ iter: inout MessageIterator) throws(BusError) -> BusValue {
        switch iter.argumentType() {
        case TypeCode.byte: return .byte(iter.readBasic(as: UInt8.self))
        case TypeCode.boolean: return .boolean(iter.readBoolean())
        case TypeCode.int16: return .int16(iter.readBasic(as: Int16.self))
        case TypeCode.uint16: return .uint16(iter.readBasic(as: UInt16.self))
        case TypeCode.int32: return .int32(iter.readBasic(as: Int32.self))
        case TypeCode.uint32: return .uint32(iter.readBasic(as: UInt32.self))
        case TypeCode.int64: return .int64(iter.readBasic(as: Int64.self))
        case TypeCode.uint64: return .uint64(iter.readBasic(as: UInt64.self))
        case TypeCode.double: return .double(iter.readBasic(as: Double.self))
        case TypeCode.string: return .string(iter.readString())
        case TypeCode.signature: return .signature(iter.readString())
        case TypeCode.objectPath:
            // libdbus validated the message, so this cannot fail; stay total anyway.
            let raw = iter.readString()
            guard let path = ObjectPath(rawValue: raw) else { throw .invalidArgs("invalid object path '\(raw)'") }
            return .objectPath(path)
        case TypeCode.variant:
            var sub = iter.contents()
            return .variant(try read(&sub))
        case TypeCode.structure:
            var sub = iter.contents()
            return .structure(try readAll(&sub))
        case TypeCode.array:
            return try readArray(&iter)
        case TypeCode.unixFileDescriptor:
            // libdbus hands out a duplicate the caller owns, or -1 if the fd was not passed.
            let descriptor = iter.readBasic(as: Int32.self)
            guard descriptor >= 0 else {
                throw .invalidArgs("a file descriptor argument arrived without its descriptor")
            }
            return .unixFileDescriptor(UnixFileDescriptor(adopting: descriptor))
        case let other:
            let code = UInt8(truncatingIfNeeded: other)
            throw .invalidArgs("unsupported D-Bus type '\(Character(Unicode.Scalar(code)))'")
        }
    }

    private static func readArray(_ iter: inout MessageIterator) throws(BusError) -> BusValue {
        // The iterator's signature is the array's full type, e.g. "a{sv}";
        // taking types from it keeps empty arrays typed.
        let signature = iter.signature()
        var sub = iter.contents()
        if iter.elementType() == TypeCode.dictEntry {
            let inner = signature.dropFirst(2).dropLast()  // "a{sv}" -> "sv"
            let key = String(inner.prefix(1))
            let value = String(inner.dropFirst())
            var entries: [BusDictionaryEntry] = []
            while sub.argumentType() == TypeCode.dictEntry {
                var pair = sub.contents()
                let k = try read(&pair)
                pair.next()
                let v = try read(&pair)
                entries.append(BusDictionaryEntry(key: k, value: v))
                sub.next()
            }
            return .dictionary(keySignature: key, valueSignature: value, entries)
        }
        if signature == "ad" {
            // The whole array at once, as it was sent.
            return .array(elementSignature: "d", sub.readDoubles().map(BusValue.double))
        }
        return .array(elementSignature: String(signature.dropFirst()), try readAll(&sub))
    }
}
