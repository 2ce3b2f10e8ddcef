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

    /// Writes `a{sa{sv}}`: each interface of the object at `path` with all its properties.
    private func writeInterfacesAndProperties(
        _ interfaces: [BusInterface], at path: ObjectPath, to writer: inout MessageBodyWriter
    ) {
        write(interfaces, values: interfaces.map { $0.properties.map { value(of: $0, at: path) } }, to: &writer)
    }

    /// Writes `a{sa{sv}}` from values read beforehand, one array per interface.
    /// Written straight into the message: a listing of thousands of objects builds no
    /// value tree first.
    private func write(_ interfaces: [BusInterface], values: [[BusValue]], to writer: inout MessageBodyWriter) {
        precondition(values.count == interfaces.count, "one array of property values per interface")
        writer.appendArray(of: "{sa{sv}}") { writer in
            for (interface, values) in zip(interfaces, values) {
                precondition(values.count == interface.properties.count, "\(interface.name): a value per property")
                writer.appendDictionaryEntry { writer in
                    writer.append(.string(interface.name.rawValue))
                    writer.appendArray(of: "{sv}") { writer in
                        for (property, value) in zip(interface.properties, values) {
                            precondition(
                                value.signature == property.signature,
                                "property \(property.name) is declared '\(property.signature)', got '\(value.signature)'"
                            )
                            writer.appendDictionaryEntry { writer in
                                writer.append(.string(property.name))
                                writer.appendVariant(value)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Answers GetManagedObjects from the kept reply while nothing it lists has changed,
    /// else marshals the listing and keeps that reply (see `KeptListing`).
    func manageObjects(_ message: Message, member: MemberName, path: ObjectPath) throws(BusError) {
        guard member.rawValue == "GetManagedObjects" else {
            throw .unknownMethod("Interface '\(InterfaceName.objectManager)' has no method '\(member)'")
        }
        try requireSignature("", of: message, method: "GetManagedObjects")
        guard message.expectsReply else { return }
        let listedFamilies = families.values.filter { $0.parent == path || $0.parent.isDescendant(of: path) }
            .sorted { $0.parent.rawValue < $1.parent.rawValue }
        let revisions = Dictionary(uniqueKeysWithValues: listedFamilies.map { ($0.parent, $0.revision()) })
        if let kept = keptListings[path], kept.familyRevisions == revisions {
            kept.renew()
            connection.send(message.makeReturn(copying: kept.reply))
            return
        }
        let single = objects.filter { $0.key.isDescendant(of: path) && !unlisted.contains($0.key) }
            .sorted { $0.key.rawValue < $1.key.rawValue }
        let reply = message.makeReturn()
        reply.appendBody { writer in
            writer.appendArray(of: "{oa{sa{sv}}}") { writer in
                for (objectPath, interfaces) in single {
                    writer.appendDictionaryEntry { writer in
                        writer.append(.objectPath(objectPath))
                        writeInterfacesAndProperties(interfaces, at: objectPath, to: &writer)
                    }
                }
                for family in listedFamilies { writeMembers(of: family, to: &writer) }
            }
        }
        connection.send(reply)
        // A property that changes unannounced would make a kept reply stale unnoticed.
        let listedInterfaces = single.flatMap(\.value) + listedFamilies.flatMap(\.interfaces)
        guard !listedInterfaces.contains(where: { $0.properties.contains { $0.changeSignal == .none } }) else {
            keptListings[path] = nil
            return
        }
        keptListings[path] = KeptListing(reply: reply, familyRevisions: revisions, queue: queue) {
            [weak self] listing in
            if self?.keptListings[path] === listing { self?.keptListings[path] = nil }
        }
    }

    /// Drops the kept listings that show the object at `path`: it is about to change.
    func forgetKeptListings(showing path: ObjectPath) {
        guard !keptListings.isEmpty else { return }
        keptListings = keptListings.filter { !path.isDescendant(of: $0.key) }
    }

    /// Drops every kept listing.
    func forgetKeptListings() {
        keptListings.removeAll()
    }

    /// Writes a family's members in the order of their names, each read once.
    private func writeMembers(of family: BusObjectFamily, to writer: inout MessageBodyWriter) {
        for element in family.members().sorted() {
            guard let values = family.propertyValues(element) else { continue }
            writer.appendDictionaryEntry { writer in
                writer.append(.objectPath(family.parent.appending(element)))
                write(family.interfaces, values: values, to: &writer)
            }
        }
    }

    func announceAdded(_ interfaces: [BusInterface], at path: ObjectPath) {
        forgetKeptListings(showing: path)
        guard !interfaces.isEmpty, let manager = manager(of: path) else { return }
        let signal = Message.signal(path: manager, interface: .objectManager, member: MemberName("InterfacesAdded"))
        signal.appendBody { writer in
            writer.append(.objectPath(path))
            writeInterfacesAndProperties(interfaces, at: path, to: &writer)
        }
        connection.send(signal)
    }

    func announceRemoved(_ interfaces: [BusInterface], at path: ObjectPath) {
        forgetKeptListings(showing: path)
        guard !interfaces.isEmpty, let manager = manager(of: path) else { return }
        connection.emitSignal(
            path: manager, interface: .objectManager, member: MemberName("InterfacesRemoved"),
            arguments: [.objectPath(path), .stringArray(interfaces.map(\.name.rawValue))])
    }
}

/// The ObjectManager interface as introspection shows it.
enum ObjectManagerDeclaration {
    /// Built on each use: a `BusInterface` holds handler closures, so it cannot be a shared constant.
    static var interface: BusInterface {
        BusInterface(
            name: .objectManager,
            methods: [BusMethod("GetManagedObjects", out: [BusArgument("objects", "a{oa{sa{sv}}}")]) { _ in }],
            signals: [
                BusSignalSpec("InterfacesAdded", [BusArgument("object", "o"), BusArgument("interfaces", "a{sa{sv}}")]),
                BusSignalSpec("InterfacesRemoved", [BusArgument("object", "o"), BusArgument("interfaces", "as")]),
            ])
    }
}
