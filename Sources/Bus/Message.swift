internal import CDBus

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

/// An owned reference to a `DBusMessage`, with marshalling of `BusValue`s in and out.
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
        self.handle = dbus_message_ref(handle)
    }

    deinit {
        dbus_message_unref(handle)
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
            adopting: allocated(
                dbus_message_new_method_call(
                    destination.rawValue, path.rawValue, interface.rawValue, member.rawValue)))
    }

    /// Marks a method call as wanting no reply, so neither the callee nor the bus sends one.
    func setNoReply() {
        dbus_message_set_no_reply(handle, 1)
    }

    /// A signal message.
    static func signal(path: ObjectPath, interface: InterfaceName, member: MemberName) -> Message {
        Message(adopting: allocated(dbus_message_new_signal(path.rawValue, interface.rawValue, member.rawValue)))
    }

    /// The successful reply to this method call.
    func makeReturn() -> Message {
        Message(adopting: Message.allocated(dbus_message_new_method_return(handle)))
    }

    /// The error reply to this method call.
    func makeError(_ error: BusError) -> Message {
        Message(adopting: Message.allocated(dbus_message_new_error(handle, error.name.rawValue, error.message)))
    }

    /// libdbus returns NULL only when out of memory, which Swift treats as fatal anyway.
    private static func allocated(_ handle: OpaquePointer?) -> OpaquePointer {
        guard let handle else { fatalError("libdbus: out of memory") }
        return handle
    }

    // MARK: Header fields

    /// `DBUS_MESSAGE_TYPE_*`.
    var type: Int32 { dbus_message_get_type(handle) }
    /// Whether this is a method call.
    var isMethodCall: Bool { type == DBUS_MESSAGE_TYPE_METHOD_CALL }
    /// Whether this is a signal.
    var isSignal: Bool { type == DBUS_MESSAGE_TYPE_SIGNAL }

    /// The object path header field.
    var path: ObjectPath? { dbus_message_get_path(handle).flatMap { ObjectPath(rawValue: String(cString: $0)) } }
    /// The interface header field; optional on method calls.
    var interface: InterfaceName? {
        dbus_message_get_interface(handle).flatMap { InterfaceName(rawValue: String(cString: $0)) }
    }
    /// The member header field.
    var member: MemberName? { dbus_message_get_member(handle).flatMap { MemberName(rawValue: String(cString: $0)) } }
    /// The sender's unique name (empty on peer-to-peer connections).
    var sender: String { dbus_message_get_sender(handle).map { String(cString: $0) } ?? "" }
    /// The destination header field.
    var destination: String? { dbus_message_get_destination(handle).map { String(cString: $0) } }
    /// The body's signature, e.g. `sa{sv}`.
    var signature: String { dbus_message_get_signature(handle).map { String(cString: $0) } ?? "" }
    /// Whether the caller asked not to be answered.
    var expectsReply: Bool { dbus_message_get_no_reply(handle) == 0 }

    // MARK: Body

    /// Appends `values` to the body; traps if a value is ill-typed, which is a
    /// programming error (libdbus would abort with a less helpful message).
    func append(_ values: [BusValue]) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(handle, &iter)
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
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(handle, &iter) != 0 else { return [] }  // empty body
        return try Message.readAll(&iter)
    }

    static func append(_ value: BusValue, to iter: inout DBusMessageIter) {
        switch value {
        case .byte(let v): appendBasic(v, TypeCode.byte, to: &iter)
        case .boolean(let v): appendBasic(dbus_bool_t(v ? 1 : 0), TypeCode.boolean, to: &iter)
        case .int16(let v): appendBasic(v, TypeCode.int16, to: &iter)
        case .uint16(let v): appendBasic(v, TypeCode.uint16, to: &iter)
        case .int32(let v): appendBasic(v, TypeCode.int32, to: &iter)
        case .uint32(let v): appendBasic(v, TypeCode.uint32, to: &iter)
        case .int64(let v): appendBasic(v, TypeCode.int64, to: &iter)
        case .uint64(let v): appendBasic(v, TypeCode.uint64, to: &iter)
        case .double(let v): appendBasic(v, TypeCode.double, to: &iter)
        case .string(let v): appendString(v, TypeCode.string, to: &iter)
        case .objectPath(let v): appendString(v.rawValue, TypeCode.objectPath, to: &iter)
        case .signature(let v): appendString(v, TypeCode.signature, to: &iter)
        case .array("d", let values):
            // One call for the whole array, not one per element: a waveform is 4,096 of them.
            let doubles = values.map { $0.double! }
            withContainer(TypeCode.array, "d", in: &iter) { sub in
                doubles.withUnsafeBufferPointer { buffer in
                    var base = buffer.baseAddress
                    let ok = withUnsafeMutablePointer(to: &base) {
                        dbus_message_iter_append_fixed_array(&sub, TypeCode.double, $0, Int32(buffer.count))
                    }
                    guard ok != 0 else { fatalError("libdbus: out of memory") }
                }
            }
        case .array(let element, let values):
            withContainer(TypeCode.array, element, in: &iter) { sub in
                for value in values { append(value, to: &sub) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            withContainer(TypeCode.array, "{" + key + valueSignature + "}", in: &iter) { sub in
                for entry in entries {
                    withContainer(TypeCode.dictEntry, nil, in: &sub) { pair in
                        append(entry.key, to: &pair)
                        append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            withContainer(TypeCode.structure, nil, in: &iter) { sub in
                for field in fields { append(field, to: &sub) }
            }
        case .variant(let inner):
            withContainer(TypeCode.variant, inner.signature, in: &iter) { sub in
                append(inner, to: &sub)
            }
        case .unixFileDescriptor(let file):
            // libdbus duplicates the descriptor; the value keeps its own.
            guard let descriptor = file.descriptor else { preconditionFailure("cannot send a closed \(file)") }
            appendBasic(descriptor, TypeCode.unixFileDescriptor, to: &iter)
        }
    }

    private static func appendBasic<T>(_ value: T, _ type: Int32, to iter: inout DBusMessageIter) {
        var value = value
        let ok = withUnsafePointer(to: &value) { dbus_message_iter_append_basic(&iter, type, $0) }
        guard ok != 0 else { fatalError("libdbus: out of memory") }
    }

    /// Strings travel as a pointer to a C string. An embedded NUL truncates the
    /// string there; libdbus has no way to carry one.
    private static func appendString(_ string: String, _ type: Int32, to iter: inout DBusMessageIter) {
        string.withCString { appendBasic(Optional($0), type, to: &iter) }
    }

    static func withContainer(
        _ type: Int32, _ contained: String?, in iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) -> Void
    ) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let contained {
            opened = contained.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub)
        }
        guard opened != 0 else { fatalError("libdbus: out of memory") }
        body(&sub)
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { fatalError("libdbus: out of memory") }
    }

    private static func readAll(_ iter: inout DBusMessageIter) throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != TypeCode.invalid {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func read(_ iter: inout DBusMessageIter) throws(BusError) -> BusValue {
        switch dbus_message_iter_get_arg_type(&iter) {
        case TypeCode.byte: return .byte(readBasic(&iter, as: UInt8.self))
        case TypeCode.boolean: return .boolean(readBasic(&iter, as: dbus_bool_t.self) != 0)
        case TypeCode.int16: return .int16(readBasic(&iter, as: Int16.self))
        case TypeCode.uint16: return .uint16(readBasic(&iter, as: UInt16.self))
        case TypeCode.int32: return .int32(readBasic(&iter, as: Int32.self))
        case TypeCode.uint32: return .uint32(readBasic(&iter, as: UInt32.self))
        case TypeCode.int64: return .int64(readBasic(&iter, as: Int64.self))
        case TypeCode.uint64: return .uint64(readBasic(&iter, as: UInt64.self))
        case TypeCode.double: return .double(readBasic(&iter, as: Double.self))
        case TypeCode.string: return .string(readString(&iter))
        case TypeCode.signature: return .signature(readString(&iter))
        case TypeCode.objectPath:
            // libdbus validated the message, so this cannot fail; stay total anyway.
            let raw = readString(&iter)
            guard let path = ObjectPath(rawValue: raw) else { throw .invalidArgs("invalid object path '\(raw)'") }
            return .objectPath(path)
        case TypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub))
        case TypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(try readAll(&sub))
        case TypeCode.array:
            return try readArray(&iter)
        case TypeCode.unixFileDescriptor:
            // libdbus hands out a duplicate the caller owns, or -1 if the fd was not passed.
            let descriptor = readBasic(&iter, as: Int32.self)
            guard descriptor >= 0 else {
                throw .invalidArgs("a file descriptor argument arrived without its descriptor")
            }
            return .unixFileDescriptor(UnixFileDescriptor(adopting: descriptor))
        case let other:
            let code = UInt8(truncatingIfNeeded: other)
            throw .invalidArgs("unsupported D-Bus type '\(Character(Unicode.Scalar(code)))'")
        }
    }

    private static func readArray(_ iter: inout DBusMessageIter) throws(BusError) -> BusValue {
        // The iterator's signature is the array's full type, e.g. "a{sv}";
        // taking types from it keeps empty arrays typed.
        let signature = currentSignature(&iter)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        if dbus_message_iter_get_element_type(&iter) == TypeCode.dictEntry {
            let inner = signature.dropFirst(2).dropLast()  // "a{sv}" -> "sv"
            let key = String(inner.prefix(1))
            let value = String(inner.dropFirst())
            var entries: [BusDictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == TypeCode.dictEntry {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let k = try read(&pair)
                dbus_message_iter_next(&pair)
                let v = try read(&pair)
                entries.append(BusDictionaryEntry(key: k, value: v))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(keySignature: key, valueSignature: value, entries)
        }
        if signature == "ad" {
            // The whole array at once, as it was sent.
            var elements: UnsafeMutableRawPointer?
            var count: Int32 = 0
            dbus_message_iter_get_fixed_array(&sub, &elements, &count)
            let doubles = elements.map {
                UnsafeBufferPointer(start: $0.assumingMemoryBound(to: Double.self), count: Int(count))
            }
            return .array(elementSignature: "d", (doubles.map(Array.init) ?? []).map(BusValue.double))
        }
        return .array(elementSignature: String(signature.dropFirst()), try readAll(&sub))
    }

    private static func readBasic<T>(_ iter: inout DBusMessageIter, as type: T.Type) -> T {
        // DBusBasicValue is 8 bytes; reading into one avoids under-sized buffers.
        var storage = DBusBasicValue()
        dbus_message_iter_get_basic(&iter, &storage)
        return withUnsafeBytes(of: &storage) { $0.load(as: T.self) }
    }

    private static func readString(_ iter: inout DBusMessageIter) -> String {
        let pointer = readBasic(&iter, as: UnsafePointer<CChar>?.self)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func currentSignature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { fatalError("libdbus: out of memory") }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}
