import Dispatch

/// A call being answered. Call `reply(_:)` or `fail(_:)` exactly once,
/// possibly later, always on the server's queue.
///
/// If the invocation is dropped unanswered, it answers with
/// `org.freedesktop.DBus.Error.Failed` ("no reply") so a caller is never left hanging.
public final class BusMethodInvocation {
    /// The call's arguments, already checked against the method's in-signature.
    public let arguments: [BusValue]
    /// The unique name of the caller.
    public let sender: String
    /// The object called, so one interface table can answer for many objects.
    public let path: ObjectPath

    private let message: Message
    private let connection: BusConnection
    private let queue: DispatchQueue
    private let method: String
    private let outSignature: String
    private var isAnswered = false

    /// Wraps an incoming call whose arguments were already read and checked.
    internal init(
        message: Message, path: ObjectPath, arguments: [BusValue], method: String, outSignature: String,
        connection: BusConnection, queue: DispatchQueue
    ) {
        self.message = message
        self.path = path
        self.arguments = arguments
        self.sender = message.sender
        self.method = method
        self.outSignature = outSignature
        self.connection = connection
        self.queue = queue
    }

    deinit {
        guard !isAnswered, message.expectsReply else { return }
        // Deinit may run on any thread; the connection may only be used on its queue.
        let (connection, error) = (connection, message.makeError(.failed("no reply")))
        queue.async { connection.send(error) }
    }

    /// Answers successfully; `values` must match the method's declared out-signature.
    public func reply(_ values: [BusValue] = []) {
        let signature = values.map(\.signature).joined()
        precondition(
            signature == outSignature,
            "\(method) must reply with signature '\(outSignature)', not '\(signature)'")
        answer(values: values) { $0.makeReturn() }
    }

    /// Answers with an error.
    public func fail(_ error: BusError) {
        answer(values: []) { $0.makeError(error) }
    }

    private func answer(values: [BusValue], _ makeReply: (Message) -> Message) {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(!isAnswered, "\(method) was answered twice")
        isAnswered = true
        // NO_REPLY_EXPECTED: the handler ran; the caller just does not want the answer.
        guard message.expectsReply else { return }
        let reply = makeReply(message)
        reply.append(values)
        connection.send(reply)
    }
}
