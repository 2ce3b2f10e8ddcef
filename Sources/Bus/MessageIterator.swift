internal import CDBus

/// A position in a message body (libdbus's `DBusMessageIter`), for appending or reading.
/// Every libdbus call on a body goes through here; `Message` decides what to read and write.
///
/// Appending traps when libdbus runs out of memory, as Swift does anyway. Appending a value
/// that does not fit the declared types is a programming error, which libdbus reports by
/// aborting; `Message.append` checks values first to say what was wrong.
internal struct MessageIterator {
    private var raw = DBusMessageIter()

    private init() {}

    /// An iterator that appends to the end of `message`'s body.
    init(appendingTo message: Message) {
        message.withUnsafeHandle { dbus_message_iter_init_append($0, &raw) }
    }

    /// An iterator at the first argument of `message`; nil if the body is empty.
    init?(reading message: Message) {
        guard message.withUnsafeHandle({ dbus_message_iter_init($0, &raw) }) != 0 else { return nil }
    }

    // MARK: Appending

    /// Appends a fixed-size basic value (`type` is its D-Bus type code; `T` must be the
    /// matching C type: `UInt8` for `y`, `Int32` for `i` and `h`, and so on).
    mutating func appendBasic<T>(_ value: T, type: Int32) {
        var value = value
        let ok = withUnsafePointer(to: &value) { dbus_message_iter_append_basic(&raw, type, $0) }
        guard ok != 0 else { fatalError("libdbus: out of memory") }
    }

    /// Appends a boolean, which travels as a 32-bit `dbus_bool_t`.
    mutating func appendBoolean(_ value: Bool) {
        appendBasic(dbus_bool_t(value ? 1 : 0), type: TypeCode.boolean)
    }

    /// Appends a string-like value (`s`, `o` or `g`), which travels as a pointer to a C
    /// string. An embedded NUL truncates the string there; libdbus has no way to carry one.
    mutating func appendString(_ string: String, type: Int32) {
        string.withCString { appendBasic(Optional($0), type: type) }
    }

    /// Appends the elements of the array container this iterator writes, in one call rather
    /// than one per element: a waveform is 4,096 of them.
    mutating func appendDoubles(_ doubles: [Double]) {
        doubles.withUnsafeBufferPointer { buffer in
            var base = buffer.baseAddress
            let ok = withUnsafeMutablePointer(to: &base) {
                dbus_message_iter_append_fixed_array(&raw, TypeCode.double, $0, Int32(buffer.count))
            }
            guard ok != 0 else { fatalError("libdbus: out of memory") }
        }
    }

    /// Opens a container of `type` (`contained` is the signature inside an array or variant,
    /// nil for structs and dictionary entries), lets `body` write it, and closes it.
    mutating func appendContainer(_ type: Int32, _ contained: String?, _ body: (inout MessageIterator) -> Void) {
        var sub = MessageIterator()
        let opened: dbus_bool_t
        if let contained {
            opened = contained.withCString { dbus_message_iter_open_container(&raw, type, $0, &sub.raw) }
        } else {
            opened = dbus_message_iter_open_container(&raw, type, nil, &sub.raw)
        }
        guard opened != 0 else { fatalError("libdbus: out of memory") }
        body(&sub)
        guard dbus_message_iter_close_container(&raw, &sub.raw) != 0 else { fatalError("libdbus: out of memory") }
    }

    // MARK: Reading

    /// The type code of the current argument; `TypeCode.invalid` past the last one.
    mutating func argumentType() -> Int32 {
        dbus_message_iter_get_arg_type(&raw)
    }

    /// The type code of the current array's elements.
    mutating func elementType() -> Int32 {
        dbus_message_iter_get_element_type(&raw)
    }

    /// The full signature of the current argument, e.g. `a{sv}`.
    mutating func signature() -> String {
        guard let signature = dbus_message_iter_get_signature(&raw) else { fatalError("libdbus: out of memory") }
        defer { dbus_free(signature) }
        return String(cString: signature)
    }

    /// Moves to the next argument.
    mutating func next() {
        dbus_message_iter_next(&raw)
    }

    /// An iterator over the contents of the current container argument.
    mutating func contents() -> MessageIterator {
        var sub = MessageIterator()
        dbus_message_iter_recurse(&raw, &sub.raw)
        return sub
    }

    /// Reads the current fixed-size basic argument as `T` (see `appendBasic`).
    mutating func readBasic<T>(as type: T.Type) -> T {
        // DBusBasicValue is 8 bytes; reading into one avoids under-sized buffers.
        var storage = DBusBasicValue()
        dbus_message_iter_get_basic(&raw, &storage)
        return withUnsafeBytes(of: &storage) { $0.load(as: T.self) }
    }

    /// Reads the current boolean argument.
    mutating func readBoolean() -> Bool {
        readBasic(as: dbus_bool_t.self) != 0
    }

    /// Reads the current string-like argument (`s`, `o` or `g`).
    mutating func readString() -> String {
        readBasic(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? ""
    }

    /// Reads every element of the array of doubles this iterator is in, at once, as it was sent.
    mutating func readDoubles() -> [Double] {
        var elements: UnsafeMutableRawPointer?
        var count: Int32 = 0
        dbus_message_iter_get_fixed_array(&raw, &elements, &count)
        let doubles = elements.map {
            UnsafeBufferPointer(start: $0.assumingMemoryBound(to: Double.self), count: Int(count))
        }
        return doubles.map(Array.init) ?? []
    }
}
