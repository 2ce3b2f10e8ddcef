import Dispatch

/// org.freedesktop.DBus.ObjectManager: one call lists every object below a path with all
/// its properties, and signals announce objects as they come and go, so clients need not
/// introspect a tree of thousands of memos.
extension BusObjectServer {
    /// Serves ObjectManager at `path` (which should itself be exported) for the objects below it.
    public func addObjectManager(at path: ObjectPath) {
        managers.insert(path)
    }

    /// The manager responsible for `path`: the nearest managing ancestor.
    private func manager(of path: ObjectPath) -> ObjectPath? {
        managers.filter { path.isDescendant(of: $0) }.max { $0.rawValue.count < $1.rawValue.count }
    }

    /// `a{sa{sv}}`: each interface with all its properties.
    private func interfacesAndProperties(_ interfaces: [BusInterface]) -> BusValue {
        .dictionary(
            keySignature: "s", valueSignature: "a{sv}",
            interfaces.map { interface in
                BusDictionaryEntry(
                    key: .string(interface.name.rawValue),
                    value: .dictionary(
                        keySignature: "s", valueSignature: "v",
                        interface.properties.map {
                            BusDictionaryEntry(key: .string($0.name), value: .variant(value(of: $0)))
                        }))
            })
    }

    func manageObjects(_ message: Message, member: MemberName, path: ObjectPath) throws(BusError) {
        guard member.rawValue == "GetManagedObjects" else {
            throw .unknownMethod("Interface '\(InterfaceName.objectManager)' has no method '\(member)'")
        }
        try requireSignature("", of: message, method: "GetManagedObjects")
        let entries = objects.filter { $0.key.isDescendant(of: path) && !unlisted.contains($0.key) }.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            BusDictionaryEntry(key: .objectPath($0.key), value: interfacesAndProperties($0.value))
        }
        answer(message, with: [.dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", entries)])
    }

    func announceAdded(_ interfaces: [BusInterface], at path: ObjectPath) {
        guard !interfaces.isEmpty, let manager = manager(of: path) else { return }
        connection.emitSignal(
            path: manager, interface: .objectManager, member: MemberName("InterfacesAdded"),
            arguments: [.objectPath(path), interfacesAndProperties(interfaces)])
    }

    func announceRemoved(_ interfaces: [BusInterface], at path: ObjectPath) {
        guard !interfaces.isEmpty, let manager = manager(of: path) else { return }
        connection.emitSignal(
            path: manager, interface: .objectManager, member: MemberName("InterfacesRemoved"),
            arguments: [.objectPath(path), .stringArray(interfaces.map(\.name.rawValue))])
    }
}

/// The ObjectManager interface as introspection shows it.
enum ObjectManagerDeclaration {
    static let interface = BusInterface(
        name: .objectManager,
        methods: [BusMethod("GetManagedObjects", out: [BusArgument("objects", "a{oa{sa{sv}}}")]) { _ in }],
        signals: [
            BusSignalSpec("InterfacesAdded", [BusArgument("object", "o"), BusArgument("interfaces", "a{sa{sv}}")]),
            BusSignalSpec("InterfacesRemoved", [BusArgument("object", "o"), BusArgument("interfaces", "as")]),
        ])
}
