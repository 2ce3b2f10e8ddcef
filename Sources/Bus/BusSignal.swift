/// A signal received in client mode via `BusConnection.nextSignal(timeout:)`.
public struct BusSignal: Sendable {
    /// The unique name of the connection that sent it.
    public let sender: String
    /// The object it was emitted on.
    public let path: ObjectPath
    /// The interface declaring it.
    public let interface: InterfaceName
    /// The signal's name.
    public let member: MemberName
    /// The signal's body.
    public let arguments: [BusValue]
}

extension BusSignal {
    /// Reads a signal message; `nil` if its body holds types `BusValue` cannot represent.
    internal init?(_ message: Message) {
        // libdbus guarantees signals carry path, interface and member.
        guard let path = message.path, let interface = message.interface, let member = message.member,
            let arguments = try? message.arguments()
        else { return nil }
        self.init(sender: message.sender, path: path, interface: interface, member: member, arguments: arguments)
    }
}
