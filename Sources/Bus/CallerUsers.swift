import Dispatch

/// Callers' Unix users, asked of the bus without blocking and remembered per unique name
/// until the name leaves the bus (unique names are never reused, so an entry is never stale).
///
/// A call from a caller not known yet waits, with any that follow it from the same caller,
/// until the bus answers `GetConnectionUnixUser`; they are then delivered in the order
/// they came. Used only on the connection's queue (checked).
final class CallerUsers {
    private enum Entry {
        case known(UInt32)
        case asking(Waiting)
    }

    /// The calls held while one caller's user is being asked for.
    private final class Waiting {
        var messages: [Message] = []
    }

    private let connection: BusConnection
    private let queue: DispatchQueue
    /// Receives each call with its sender's user, or the error that stood in the way.
    private let deliver: (Message, Result<UInt32, BusError>) -> Void
    private var entries: [String: Entry] = [:]

    /// `deliver` runs on `queue`, once per message given to `receive`.
    init(
        connection: BusConnection, queue: DispatchQueue,
        deliver: @escaping (Message, Result<UInt32, BusError>) -> Void
    ) {
        self.connection = connection
        self.queue = queue
        self.deliver = deliver
    }

    /// How many callers are remembered or being asked about.
    var count: Int { entries.count }

    /// Delivers `message` with its sender's user: at once if known, otherwise after the
    /// calls already waiting for that sender, once the bus has answered.
    func receive(_ message: Message) {
        dispatchPrecondition(condition: .onQueue(queue))
        let sender = message.sender
        switch entries[sender] {
        case .known(let user):
            deliver(message, .success(user))
        case .asking(let waiting):
            waiting.messages.append(message)
        case nil:
            let waiting = Waiting()
            waiting.messages.append(message)
            entries[sender] = .asking(waiting)
            connection.call(
                destination: .bus, path: .bus, interface: .bus, member: MemberName("GetConnectionUnixUser"),
                arguments: [.string(sender)]
            ) { [self] reply in
                answered(sender, waiting, reply)
            }
        }
    }

    /// Forgets `name`, which has left the bus; returns whether it was remembered. Calls
    /// still waiting for its user are delivered all the same when the bus answers.
    func forget(_ name: String) -> Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        return entries.removeValue(forKey: name) != nil
    }

    private func answered(_ sender: String, _ waiting: Waiting, _ reply: Result<[BusValue], BusError>) {
        let user = reply.flatMap { values -> Result<UInt32, BusError> in
            guard let user = values.first?.uint32 else {
                return .failure(.failed("the bus answered GetConnectionUnixUser for \(sender) with \(values)"))
            }
            return .success(user)
        }
        // Only the entry this question was asked for: the caller may have left meanwhile.
        if case .asking(let current) = entries[sender], current === waiting {
            switch user {
            case .success(let known): entries[sender] = .known(known)
            // Most likely the caller is gone (NameHasNoOwner); nothing worth remembering.
            case .failure: entries[sender] = nil
            }
        }
        let messages = waiting.messages
        waiting.messages = []
        for message in messages { deliver(message, user) }
    }
}
