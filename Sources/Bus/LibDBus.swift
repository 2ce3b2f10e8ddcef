internal import CDBus

/// Every call into libdbus but the message body's iterators (`MessageIterator.swift`) and
/// the main-loop glue (`DispatchWatches.swift`) goes through here, in the manner of
/// swift-system's `Syscalls.swift`: a failure is read right after the call that reported it
/// and turned into a `BusError` carrying libdbus's own message, and no C type leaves the file.
///
/// libdbus returns NULL or FALSE from allocating calls only when out of memory, which
/// Swift treats as fatal anyway; those calls trap here instead of passing the failure on.
internal enum LibDBus {
    // MARK: Connections

    /// Connects privately to the session bus named by `DBUS_SESSION_BUS_ADDRESS`.
    static func openSessionBus() throws(BusError) -> OpaquePointer {
        try openBus(DBUS_BUS_SESSION, "connecting to the session bus")
    }

    /// Connects privately to the system bus: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    static func openSystemBus() throws(BusError) -> OpaquePointer {
        try openBus(DBUS_BUS_SYSTEM, "connecting to the system bus")
    }

    private static func openBus(_ type: DBusBusType, _ what: String) throws(BusError) -> OpaquePointer {
        precondition(threadsInitialized, "dbus_threads_init_default failed")
        return try check(what) { dbus_bus_get_private(type, $0) }
    }

    /// Opens a private connection to `address`, not yet registered with the bus daemon.
    static func openConnection(address: String) throws(BusError) -> OpaquePointer {
        precondition(threadsInitialized, "dbus_threads_init_default failed")
        return try check("connecting to \(address)") { dbus_connection_open_private(address, $0) }
    }

    /// Registers a connection from `openConnection(address:)` with the bus daemon (`Hello`).
    static func register(_ connection: OpaquePointer, address: String) throws(BusError) {
        try check("registering with \(address)") { dbus_bus_register(connection, $0) != 0 ? () : nil }
    }

    /// Leaves what a lost bus means to the process: libdbus would otherwise exit.
    static func keepRunningOnDisconnect(_ connection: OpaquePointer) {
        dbus_connection_set_exit_on_disconnect(connection, 0)
    }

    /// Closes a private connection and drops the caller's reference to it.
    static func closeAndRelease(_ connection: OpaquePointer) {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// The unique name (`:1.42`) the bus assigned to the connection; empty if none.
    static func uniqueName(_ connection: OpaquePointer) -> String {
        dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
    }

    /// Asks for `name` without queueing; whether the connection owns it now.
    static func requestName(_ connection: OpaquePointer, _ name: BusName) throws(BusError) -> Bool {
        let reply = try check("requesting \(name)") { error -> Int32? in
            let reply = dbus_bus_request_name(connection, name.rawValue, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), error)
            return reply < 0 ? nil : reply
        }
        return reply == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER || reply == DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER
    }

    /// Adds a match rule and waits for the bus to accept it.
    static func addMatch(_ connection: OpaquePointer, _ rule: String) throws(BusError) {
        try check("adding match rule") { error -> Void? in
            dbus_bus_add_match(connection, rule, error)
            return ()
        }
    }

    /// Adds a match rule without waiting for the bus's answer (a NULL error tells libdbus so).
    static func addMatchWithoutReply(_ connection: OpaquePointer, _ rule: String) {
        dbus_bus_add_match(connection, rule, nil)
    }

    /// Queues `message` for sending.
    static func send(_ connection: OpaquePointer, _ message: Message) {
        let queued = message.withUnsafeHandle { dbus_connection_send(connection, $0, nil) }
        guard queued != 0 else { fatalError("libdbus: out of memory") }
    }

    /// Blocks until everything queued is written.
    static func flush(_ connection: OpaquePointer) {
        dbus_connection_flush(connection)
    }

    /// Sends a method call and blocks for its reply; an error reply is thrown.
    static func sendAndWaitForReply(
        _ connection: OpaquePointer, _ message: Message, timeout: Duration, what: @autoclosure () -> String
    ) throws(BusError) -> Message {
        let reply = try check(what()) { error in
            message.withUnsafeHandle {
                dbus_connection_send_with_reply_and_block(connection, $0, timeout.libdbusMilliseconds, error)
            }
        }
        return Message(adopting: reply)
    }

    /// Sends a method call; `reply` later runs on the thread that dispatches the connection,
    /// with the reply's arguments or its error (a `NoReply` one after `timeout`). Returns
    /// `false`, and never runs `reply`, if the connection is already closed.
    static func send(
        _ connection: OpaquePointer, _ message: Message, timeout: Duration,
        reply: @escaping (Result<[BusValue], BusError>) -> Void
    ) -> Bool {
        var pending: OpaquePointer?
        let sent = message.withUnsafeHandle {
            dbus_connection_send_with_reply(connection, $0, &pending, timeout.libdbusMilliseconds)
        }
        guard sent != 0 else { fatalError("libdbus: out of memory") }
        guard let pending else { return false }
        // libdbus keeps the reference as the pending call's data and releases it when the
        // pending call is freed. Registering before anything dispatches cannot miss the reply.
        let set = dbus_pending_call_set_notify(
            pending,
            { pending, context in
                Unmanaged<PendingReply>.fromOpaque(context!).takeUnretainedValue().complete(pending!)
            },
            Unmanaged.passRetained(PendingReply(reply)).toOpaque(),
            { context in Unmanaged<PendingReply>.fromOpaque(context!).release() })
        guard set != 0 else { fatalError("libdbus: out of memory") }
        dbus_pending_call_unref(pending)
        return true
    }

    /// The next message read from the socket but not yet dispatched, if any.
    static func popMessage(_ connection: OpaquePointer) -> Message? {
        dbus_connection_pop_message(connection).map(Message.init(adopting:))
    }

    /// Blocks up to `timeout` for the socket, reading and writing what it can; `false`
    /// once the connection is lost.
    static func readWrite(_ connection: OpaquePointer, timeout: Duration) -> Bool {
        dbus_connection_read_write(connection, timeout.libdbusMilliseconds) != 0
    }

    /// Has `filter` see every message the connection dispatches; a filter returning `true`
    /// handled it, `false` leaves it to libdbus (which answers method calls with
    /// UnknownMethod). libdbus keeps the filter until the connection is finalized.
    static func addFilter(_ connection: OpaquePointer, _ filter: @escaping (Message) -> Bool) {
        let added = dbus_connection_add_filter(
            connection,
            { _, message, context in
                let filter = Unmanaged<MessageFilter>.fromOpaque(context!).takeUnretainedValue()
                return filter.body(Message(borrowing: message!))
                    ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            },
            Unmanaged.passRetained(MessageFilter(filter)).toOpaque(),
            { context in Unmanaged<MessageFilter>.fromOpaque(context!).release() })
        guard added != 0 else { fatalError("libdbus: out of memory") }
    }

    // MARK: Messages

    /// A new method call message.
    static func makeMethodCall(
        destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName
    ) -> OpaquePointer {
        allocated(
            dbus_message_new_method_call(destination.rawValue, path.rawValue, interface.rawValue, member.rawValue))
    }

    /// A new signal message.
    static func makeSignal(path: ObjectPath, interface: InterfaceName, member: MemberName) -> OpaquePointer {
        allocated(dbus_message_new_signal(path.rawValue, interface.rawValue, member.rawValue))
    }

    /// A new successful reply to the method call `message`.
    static func makeReturn(to message: OpaquePointer) -> OpaquePointer {
        allocated(dbus_message_new_method_return(message))
    }

    /// A new error reply to the method call `message`.
    static func makeError(to message: OpaquePointer, _ error: BusError) -> OpaquePointer {
        allocated(dbus_message_new_error(message, error.name.rawValue, error.message))
    }

    /// A reply to the method call `message` that is `template`'s copy: the same body and
    /// flags, addressed to `message`'s sender and answering its serial. libdbus gives a copy
    /// no serial and leaves it unlocked (even if `template` was sent), so it can be sent.
    static func makeReturn(to message: OpaquePointer, copying template: OpaquePointer) -> OpaquePointer {
        let reply = allocated(dbus_message_copy(template))
        guard dbus_message_set_reply_serial(reply, dbus_message_get_serial(message)) != 0,
            dbus_message_set_destination(reply, dbus_message_get_sender(message)) != 0
        else { fatalError("libdbus: out of memory") }
        return reply
    }

    private static func allocated(_ message: OpaquePointer?) -> OpaquePointer {
        guard let message else { fatalError("libdbus: out of memory") }
        return message
    }

    /// Takes one more reference to `message`, returning it.
    static func retain(message: OpaquePointer) -> OpaquePointer {
        dbus_message_ref(message)
    }

    /// Drops one reference to `message`.
    static func release(message: OpaquePointer) {
        dbus_message_unref(message)
    }

    /// Marks a method call as wanting no reply.
    static func setNoReply(_ message: OpaquePointer) {
        dbus_message_set_no_reply(message, 1)
    }

    /// Whether the message is a method call.
    static func isMethodCall(_ message: OpaquePointer) -> Bool {
        dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL
    }

    /// Whether the message is a signal.
    static func isSignal(_ message: OpaquePointer) -> Bool {
        dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL
    }

    /// The message's header fields, each nil when absent.
    static func path(_ message: OpaquePointer) -> String? { string(dbus_message_get_path(message)) }
    /// The interface header field.
    static func interface(_ message: OpaquePointer) -> String? { string(dbus_message_get_interface(message)) }
    /// The member header field.
    static func member(_ message: OpaquePointer) -> String? { string(dbus_message_get_member(message)) }
    /// The sender header field.
    static func sender(_ message: OpaquePointer) -> String? { string(dbus_message_get_sender(message)) }
    /// The destination header field.
    static func destination(_ message: OpaquePointer) -> String? { string(dbus_message_get_destination(message)) }
    /// The body's signature.
    static func signature(_ message: OpaquePointer) -> String? { string(dbus_message_get_signature(message)) }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// Whether the sender asked not to be answered.
    static func isNoReply(_ message: OpaquePointer) -> Bool {
        dbus_message_get_no_reply(message) != 0
    }

    /// The error an error reply carries; nil for other messages.
    static func error(carriedBy message: OpaquePointer) -> BusError? {
        var error = DBusError()
        dbus_error_init(&error)
        guard dbus_set_error_from_message(&error, message) != 0 else { return nil }
        return BusError(consuming: &error)
    }

    // MARK: Validation

    /// The kinds of name libdbus validates.
    enum NameKind {
        case objectPath, busName, interface, member, errorName
    }

    /// Whether `string` is a valid name of `kind`. Checked before a name reaches libdbus,
    /// which aborts on malformed ones; an embedded NUL (which a C string would silently
    /// truncate) or an empty string never is.
    static func isValid(_ string: String, as kind: NameKind) -> Bool {
        guard !string.isEmpty, !string.utf8.contains(0) else { return false }
        let validate: (UnsafePointer<CChar>?, UnsafeMutablePointer<DBusError>?) -> dbus_bool_t =
            switch kind {
            case .objectPath: dbus_validate_path
            case .busName: dbus_validate_bus_name
            case .interface: dbus_validate_interface
            case .member: dbus_validate_member
            case .errorName: dbus_validate_error_name
            }
        return string.withCString { validate($0, nil) } != 0
    }

    /// Whether `signature` is a valid (possibly empty) sequence of complete types.
    static func isValidSignature(_ signature: String) -> Bool {
        !signature.utf8.contains(0) && signature.withCString { dbus_signature_validate($0, nil) } != 0
    }

    /// Whether `signature` is exactly one complete type.
    static func isSingleCompleteType(_ signature: String) -> Bool {
        !signature.isEmpty && !signature.utf8.contains(0)
            && signature.withCString { dbus_signature_validate_single($0, nil) } != 0
    }

    /// Whether the type code is a basic (non-container) type.
    static func isBasicType(_ code: UInt8) -> Bool {
        dbus_type_is_basic(Int32(code)) != 0
    }

    // MARK: Errors

    /// Runs `body` with an initialised `DBusError`, throwing it if `body` set it or
    /// `body` reported failure (returned nil) without saying why.
    @discardableResult
    private static func check<Result>(
        _ what: @autoclosure () -> String,
        _ body: (UnsafeMutablePointer<DBusError>) -> Result?
    ) throws(BusError) -> Result {
        var error = DBusError()
        dbus_error_init(&error)
        let result = body(&error)
        if dbus_error_is_set(&error) != 0 {
            throw BusError(consuming: &error)
        }
        guard let result else { throw BusError.failed("\(what()) failed") }
        return result
    }
}

/// libdbus must be made thread-safe before the first connection exists;
/// Swift runs a global's initializer exactly once, on first use.
private let threadsInitialized: Bool = dbus_threads_init_default() != 0

extension BusError {
    /// Takes over a set `DBusError`, freeing it. libdbus error names are
    /// normally valid; a peer could still send anything, hence the fallback.
    fileprivate init(consuming error: inout DBusError) {
        let name = error.name.map { String(cString: $0) } ?? ""
        let message = error.message.map { String(cString: $0) } ?? ""
        dbus_error_free(&error)
        self.init(ErrorName(rawValue: name) ?? .failed, message.isEmpty ? name : message)
    }
}

/// A connection filter's Swift side, retained by libdbus until the connection is finalized.
private final class MessageFilter {
    let body: (Message) -> Bool

    init(_ body: @escaping (Message) -> Bool) {
        self.body = body
    }
}

/// The continuation of one asynchronous call, retained by libdbus as the pending call's data.
private final class PendingReply {
    let reply: (Result<[BusValue], BusError>) -> Void

    init(_ reply: @escaping (Result<[BusValue], BusError>) -> Void) {
        self.reply = reply
    }

    func complete(_ pending: OpaquePointer) {
        guard let raw = dbus_pending_call_steal_reply(pending) else {
            reply(.failure(.failed("the call completed without a reply")))
            return
        }
        let message = Message(adopting: raw)
        reply(
            Result { () throws(BusError) in
                try message.throwIfError()
                return try message.arguments()
            })
    }
}

extension Duration {
    /// Milliseconds for libdbus: rounded up so short waits do not become
    /// zero (a busy poll), and clamped to what an `int` holds.
    fileprivate var libdbusMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        let total = milliseconds.partialValue.addingReportingOverflow(
            (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        guard !milliseconds.overflow, !total.overflow else { return Int32.max }
        return Int32(clamping: total.partialValue)
    }
}
