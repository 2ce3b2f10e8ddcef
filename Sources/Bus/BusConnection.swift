import Dispatch

/// One connection to a message bus. Two modes:
///
/// - Client mode (blocking `call`, `addMatch`, `nextSignal`), for a CLI and tests.
/// - Service mode, after `attach(to:onDisconnect:)`: the connection runs on a
///   serial `DispatchQueue`, and every further use must happen on that queue.
///
/// The connection is private (never shared with other libdbus users in the
/// process) and is closed when the last reference goes away.
///
/// `@unchecked Sendable`: once attached, its state is touched only on the attached queue,
/// which each method checks with `dispatchPrecondition`; in client mode, by one caller at a time.
public final class BusConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Set once by `attach`; `nil` in client mode.
    private var watches: DispatchWatches?
    private var incoming: IncomingMessages?
    /// Rules added with `addMatch`, so `nextSignal` can skip unsolicited
    /// signals (e.g. NameAcquired) the bus sends directly to us.
    private var matchRules: [MatchRule] = []

    private init(handle: OpaquePointer) {
        self.handle = handle
        // The process decides what a lost bus means, not libdbus (which would exit).
        LibDBus.keepRunningOnDisconnect(handle)
    }

    deinit {
        let handle = handle
        guard let watches else {
            LibDBus.closeAndRelease(handle)
            return
        }
        watches.queue.async { watches.closeConnection() }
    }

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`.
    public static func session() throws(BusError) -> BusConnection {
        BusConnection(handle: try LibDBus.openSessionBus())
    }

    /// Connects to the system bus: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    public static func system() throws(BusError) -> BusConnection {
        BusConnection(handle: try LibDBus.openSystemBus())
    }

    /// Connects to the bus daemon at `address` (e.g. `unix:path=/run/bus`) and registers with it.
    public static func connect(address: String) throws(BusError) -> BusConnection {
        let connection = BusConnection(handle: try LibDBus.openConnection(address: address))
        // The connection closes the socket if registering fails.
        try LibDBus.register(connection.handle, address: address)
        return connection
    }

    /// The unique name (`:1.42`) the bus assigned to this connection.
    public var uniqueName: String {
        LibDBus.uniqueName(handle)
    }

    /// Asks for a well-known name; returns `false` if someone else owns it
    /// (the request is not queued: `DBUS_NAME_FLAG_DO_NOT_QUEUE`).
    public func requestName(_ name: BusName) throws(BusError) -> Bool {
        assertOnQueueIfAttached()
        return try LibDBus.requestName(handle, name)
    }

    // MARK: Client mode

    /// Calls a method and waits for its reply; an error reply is thrown.
    /// Client mode only: it blocks the calling thread.
    public func call(
        destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName,
        arguments: [BusValue] = [], timeout: Duration = .seconds(25)
    ) throws(BusError) -> [BusValue] {
        precondition(watches == nil, "call(...) blocks; it is not for attached connections")
        let message = Message.methodCall(destination: destination, path: path, interface: interface, member: member)
        message.append(arguments)
        let reply = try LibDBus.sendAndWaitForReply(
            handle, message, timeout: timeout, what: "calling \(interface).\(member)")
        return try reply.arguments()
    }

    /// Asks the bus to route signals matching `rule` to this connection.
    ///
    /// An attached connection does not wait for the bus's answer (its queue must never
    /// block), so a malformed rule goes unreported there; the bus handles our messages in
    /// order, so the rule is in force before anything sent after it is.
    public func addMatch(_ rule: MatchRule) throws(BusError) {
        assertOnQueueIfAttached()
        let text = rule.text
        if watches != nil {
            LibDBus.addMatchWithoutReply(handle, text)
            matchRules.append(rule)
            return
        }
        try LibDBus.addMatch(handle, text)
        matchRules.append(rule)
    }

    /// Like `addMatch(_:)`, for a rule written out in the bus's syntax (a test's
    /// `type='signal',path='/x'`); the daemon and the CLI build theirs as `MatchRule`s.
    public func addMatch(_ rule: String) throws(BusError) {
        try addMatch(MatchRule(parsing: rule))
    }

    /// Waits up to `timeout` for the next signal matching an added rule (reads
    /// the socket; returns `nil` on timeout). Method returns/errors for calls are not signals.
    /// Client mode only. Throws `Disconnected` once the bus is gone.
    public func nextSignal(timeout: Duration) throws(BusError) -> BusSignal? {
        precondition(watches == nil, "nextSignal(timeout:) blocks; it is not for attached connections")
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var isConnected = true
        while true {
            if let message = LibDBus.popMessage(handle) {
                if let signal = try takeSignal(message) { return signal }
                continue
            }
            guard isConnected else { throw BusError(.disconnected, "connection to the bus was lost") }
            let remaining = deadline - clock.now
            if remaining <= .zero { return nil }
            // `false` means disconnected; drain what is queued (the Disconnected signal) first.
            isConnected = LibDBus.readWrite(handle, timeout: remaining)
        }
    }

    /// Returns `message` as a signal if it is one the caller asked for; answers
    /// stray method calls so their callers are not left waiting.
    private func takeSignal(_ message: Message) throws(BusError) -> BusSignal? {
        if message.isMethodCall {
            if message.expectsReply {
                send(message.makeError(.unknownMethod("This connection does not export objects")))
            }
            return nil
        }
        guard message.isSignal else { return nil }  // late replies to timed-out calls
        if message.isLocalDisconnect { throw BusError(.disconnected, "connection to the bus was lost") }
        guard matchRules.contains(where: { $0.matches(message) }) else { return nil }
        return BusSignal(message)
    }

    // MARK: Service mode

    /// Integrates the connection with the serial `queue`: socket readiness,
    /// libdbus timeouts and incoming messages are all handled there, without
    /// polling. From now on every use of the connection must happen on `queue`.
    ///
    /// `onDisconnect` runs on `queue` once the bus connection is lost.
    public func attach(to queue: DispatchQueue, onDisconnect: @escaping () -> Void) {
        precondition(watches == nil, "connection is already attached")
        let watches = DispatchWatches(connection: handle, queue: queue)
        let incoming = IncomingMessages(queue: queue, onDisconnect: onDisconnect)
        self.watches = watches
        self.incoming = incoming
        // Registering on the queue means no callback can run before registration finishes.
        queue.async {
            incoming.install(on: watches.connection)
            watches.install()
        }
    }

    /// Calls a method without waiting for, or wanting, a reply (service mode: a queue must
    /// never block on another service). If the destination is missing the call is dropped;
    /// if it is activatable the bus starts it.
    public func callWithoutReply(
        destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [BusValue]
    ) {
        assertOnQueueIfAttached()
        let message = Message.methodCall(destination: destination, path: path, interface: interface, member: member)
        message.setNoReply()
        message.append(arguments)
        send(message)
    }

    /// Calls a method and hands its reply (or error) to `reply` on the attached queue,
    /// without blocking it. Service mode only. `reply` runs exactly once: with an error
    /// reply, a `NoReply` error after `timeout`, or a `Disconnected` error if the bus goes.
    public func call(
        destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName,
        arguments: [BusValue] = [], timeout: Duration = .seconds(25),
        reply: @escaping (Result<[BusValue], BusError>) -> Void
    ) {
        guard let queue else { preconditionFailure("call(..., reply:) is for attached connections") }
        dispatchPrecondition(condition: .onQueue(queue))
        let message = Message.methodCall(destination: destination, path: path, interface: interface, member: member)
        message.append(arguments)
        // The reply is read and dispatched on `queue`, which this function occupies, so
        // registering for it as the call is sent cannot miss it.
        guard !LibDBus.send(handle, message, timeout: timeout, reply: reply) else { return }
        // libdbus gives no pending call when the connection is already closed. `reply` runs
        // on this same serial queue, which the caller occupies, so nothing it captures is
        // ever used on two threads at once.
        nonisolated(unsafe) let reply = reply
        queue.async { reply(.failure(BusError(.disconnected, "connection to the bus was lost"))) }
    }

    /// Routes every incoming signal (those asked for with `addMatch`, and the few the bus
    /// sends unasked) to `handler` on the attached queue, after the handlers added before
    /// it: each user of the connection filters out what it asked for. Service mode only.
    public func addSignalHandler(_ handler: @escaping (BusSignal) -> Void) {
        guard let incoming, let queue else { preconditionFailure("connection is not attached") }
        dispatchPrecondition(condition: .onQueue(queue))
        incoming.signalHandlers.append(handler)
    }

    /// Sends a signal (service mode: on the attached queue).
    public func emitSignal(path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [BusValue]) {
        assertOnQueueIfAttached()
        let message = Message.signal(path: path, interface: interface, member: member)
        message.append(arguments)
        send(message)
    }

    // MARK: Internal

    /// The queue given to `attach`, if attached.
    internal var queue: DispatchQueue? { watches?.queue }

    /// Routes every incoming method call to `handler` (on the attached queue);
    /// calls it returns `false` for are left to libdbus, which answers UnknownMethod.
    internal func setMethodCallHandler(_ handler: @escaping (Message) -> Bool) {
        guard let incoming, let queue else { preconditionFailure("connection is not attached") }
        dispatchPrecondition(condition: .onQueue(queue))
        incoming.methodCallHandler = handler
    }

    /// Queues `message` for sending. Attached connections write when the
    /// socket is writable; client mode flushes right away since nothing else will.
    internal func send(_ message: Message) {
        assertOnQueueIfAttached()
        LibDBus.send(handle, message)
        if watches == nil { LibDBus.flush(handle) }
    }

    private func assertOnQueueIfAttached() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
    }
}

/// The connection filter: decides what the service does with each incoming
/// message. `@unchecked Sendable`: used only on the attached `queue`, where libdbus
/// dispatches (checked in `handle`).
private final class IncomingMessages: @unchecked Sendable {
    let queue: DispatchQueue
    let onDisconnect: () -> Void
    /// Set by the object server; returns whether it took the call.
    var methodCallHandler: ((Message) -> Bool)?
    /// Added by `addSignalHandler`; each sees every signal but the local Disconnected.
    var signalHandlers: [(BusSignal) -> Void] = []

    /// `onDisconnect` runs on `queue` when libdbus reports the connection lost.
    init(queue: DispatchQueue, onDisconnect: @escaping () -> Void) {
        self.queue = queue
        self.onDisconnect = onDisconnect
    }

    /// Adds the filter; libdbus keeps it, and with it this object, until the connection
    /// is finalized.
    func install(on connection: OpaquePointer) {
        LibDBus.addFilter(connection) { self.handle($0) }
    }

    /// Whether the message was handled; libdbus deals with the rest.
    private func handle(_ message: Message) -> Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        if message.isLocalDisconnect {
            onDisconnect()
            return true
        }
        if message.isMethodCall, let methodCallHandler, methodCallHandler(message) {
            return true
        }
        if message.isSignal, !signalHandlers.isEmpty, let signal = BusSignal(message) {
            for handler in signalHandlers { handler(signal) }
        }
        // Without an object server, libdbus answers method calls with UnknownMethod.
        return false
    }
}

extension Message {
    /// The signal libdbus synthesises when the connection drops.
    var isLocalDisconnect: Bool {
        isSignal && interface?.rawValue == "org.freedesktop.DBus.Local" && member?.rawValue == "Disconnected"
    }
}
