import Bus
import VoiceMemoContract

/// The daemon's recorder object as the CLI sees it: blocking calls on the session bus.
struct RecorderClient {
    static let busName = Contract.busName
    static let path = Contract.recorderPath
    static let interface = Contract.recorderInterface

    let connection: BusConnection

    static func connect() throws(BusError) -> RecorderClient {
        RecorderClient(connection: try BusConnection.session())
    }

    /// Calls `method` on the recorder with `arguments` and returns the reply's values.
    @discardableResult
    func call(_ method: BusMethodDeclaration, _ arguments: [BusValue] = []) throws(BusError) -> [BusValue] {
        try connection.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: method.name,
            arguments: arguments)
    }

    /// Sets a recorder property; the daemon checks the value and answers its error.
    func setProperty(_ property: BusPropertyDeclaration, _ value: BusValue) throws(BusError) {
        _ = try connection.call(
            destination: Self.busName, path: Self.path, interface: .properties, member: MemberName("Set"),
            arguments: [.string(Self.interface.rawValue), .string(property.name), .variant(value)])
    }

    /// Every recorder property, by name.
    func properties() throws(BusError) -> [String: BusValue] {
        try properties(at: Self.path, of: Self.interface)
    }

    /// Every property of `interface` on the object at `path`, by name.
    func properties(at path: ObjectPath, of interface: InterfaceName) throws(BusError) -> [String: BusValue] {
        let reply = try connection.call(
            destination: Self.busName, path: path, interface: .properties,
            member: MemberName("GetAll"), arguments: [.string(interface.rawValue)])
        var properties: [String: BusValue] = [:]
        for entry in reply.first?.dictionaryEntries ?? [] {
            if let name = entry.key.string { properties[name] = entry.value.variant ?? entry.value }
        }
        return properties
    }
}
