import Dispatch

/// Exports objects described by declarative tables; handles Introspectable,
/// Properties (Get/GetAll/Set + PropertiesChanged), and routing.
///
/// Everything happens on the connection's queue, including creating the
/// server. Malformed or unexpected calls get the standard freedesktop errors;
/// none of them reach a handler. The server follows connections leaving the bus
/// (NameOwnerChanged), to forget their credentials and to tell the services.
///
/// `@unchecked Sendable`: its state is touched only on `queue`, which its methods check with
/// `dispatchPrecondition`; handlers may capture it and run there.
public final class BusObjectServer: @unchecked Sendable {
    /// The connection the objects are served on.
    public let connection: BusConnection
    /// The connection's queue, where everything the server does happens.
    public let queue: DispatchQueue
    /// The exported objects; internal so the ObjectManager extension can list them.
    var objects: [ObjectPath: [BusInterface]] = [:]
    /// Families of like objects, by the path their members sit below.
    var families: [ObjectPath: BusObjectFamily] = [:]
    /// Paths that serve org.freedesktop.DBus.ObjectManager for the objects below them.
    var managers: Set<ObjectPath> = []
    /// Exported objects their object manager neither lists nor announces (see `export`).
    var unlisted: Set<ObjectPath> = []
    /// The last GetManagedObjects reply of each manager, by its path, while nothing it
    /// lists has changed and for a while after its last listing (see `KeptListing`).
    var keptListings: [ObjectPath: KeptListing] = [:]
    /// When set, only connections of this Unix user may call; others get AccessDenied. A
    /// session bus carries one user, but a misconfigured or shared one may not. Each
    /// caller's user is asked of the bus once, without blocking the queue.
    public var allowedUnixUser: UInt32?
    /// Callers' Unix users, kept until each caller leaves the bus. Weak: an answer can
    /// come after the server is gone; the call is then dropped.
    private lazy var callerUsers = CallerUsers(connection: connection, queue: queue) { [weak self] message, user in
        self?.handle(message, from: user)
    }
    /// Told of every unique name that leaves the bus.
    private var departureHandlers: [(String) -> Void] = []
    /// Told of each caller whose credentials were dropped because it left the bus.
    public var onCallerForgotten: ((_ uniqueName: String) -> Void)?

    /// Starts answering every method call arriving on `connection`, which must already
    /// be attached to `queue`. Call on `queue`, before requesting a name, so no caller can
    /// leave the bus unnoticed.
    public init(connection: BusConnection, queue: DispatchQueue) {
        precondition(connection.queue === queue, "the connection must be attached to the server's queue")
        dispatchPrecondition(condition: .onQueue(queue))
        self.connection = connection
        self.queue = queue
        // Weak: the connection outlives the server only if someone keeps it;
        // a call arriving after the server is gone gets libdbus's UnknownMethod.
        connection.setMethodCallHandler { [weak self] message in
            guard let self else { return false }
            self.receive(message)
            return true
        }
        // One rule for every departure rather than one per caller: a rule added after a
        // caller's first call could miss that caller leaving at once.
        try? connection.addMatch(.nameOwnerChanged(newOwner: ""))
        connection.addSignalHandler { [weak self] signal in self?.nameOwnerChanged(signal) }
    }

    /// How many callers' credentials are remembered (or being asked for) right now.
    public var rememberedCallerCount: Int { callerUsers.count }

    /// Runs `handler` on the queue with the unique name of every connection that leaves
    /// the bus, so a service can drop what a caller held, as screen-saver inhibitors are
    /// released when their caller goes.
    public func addDepartureHandler(_ handler: @escaping (_ uniqueName: String) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        departureHandlers.append(handler)
    }

    private func nameOwnerChanged(_ signal: BusSignal) {
        // Only the bus itself can send as org.freedesktop.DBus; anyone can send a signal.
        guard signal.sender == BusName.bus.rawValue, signal.interface == .bus,
            signal.member.rawValue == "NameOwnerChanged", signal.arguments.count == 3,
            let name = signal.arguments[0].string, name.hasPrefix(":"), signal.arguments[2].string == ""
        else { return }
        if callerUsers.forget(name) { onCallerForgotten?(name) }
        for handler in departureHandlers { handler(name) }
    }

    /// Exports `interfaces` at `path`, replacing whatever was exported there. Below an
    /// object manager, interfaces new at `path` are announced with InterfacesAdded unless
    /// `announce` is false (objects exported at start-up, before anyone can be listening).
    /// An object exported with `listed` false answers calls but is not one of the manager's
    /// objects (not in GetManagedObjects, never announced) until exported again listed,
    /// which announces all its interfaces: a memo still being recorded.
    public func export(_ path: ObjectPath, interfaces: [BusInterface], announce: Bool = true, listed: Bool = true) {
        dispatchPrecondition(condition: .onQueue(queue))
        let names = interfaces.map(\.name)
        precondition(Set(names).count == names.count, "duplicate interface exported at \(path)")
        precondition(
            !names.contains { [.properties, .introspectable, .peer, .objectManager].contains($0) },
            "standard interfaces are provided by the server, not exported")
        forgetKeptListings(showing: path)
        let wasListed = unlisted.remove(path) == nil
        let previous = wasListed ? Set((objects[path] ?? []).map(\.name)) : []
        objects[path] = interfaces
        guard listed else {
            unlisted.insert(path)
            return
        }
        if announce { announceAdded(interfaces.filter { !previous.contains($0.name) }, at: path) }
    }

    /// Stops exporting `path`; calls to it then fail with UnknownObject. Below an object
    /// manager, its interfaces are announced with InterfacesRemoved (unless it was unlisted).
    public func unexport(_ path: ObjectPath) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let removed = objects.removeValue(forKey: path) else { return }
        forgetKeptListings(showing: path)
        guard unlisted.remove(path) == nil else { return }
        announceRemoved(removed, at: path)
    }

    /// Emits a signal declared by `interface` on the object at `path`; traps
    /// if it is not declared there or `arguments` do not match its signature.
    public func emit(_ signal: MemberName, on path: ObjectPath, interface: InterfaceName, arguments: [BusValue]) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let spec = exportedInterface(interface, at: path).signals.first(where: { $0.name == signal }) else {
            preconditionFailure("\(interface) at \(path) declares no signal \(signal)")
        }
        let signature = arguments.map(\.signature).joined()
        precondition(
            signature == spec.signature, "signal \(signal) has signature '\(spec.signature)', not '\(signature)'")
        connection.emitSignal(path: path, interface: interface, member: signal, arguments: arguments)
    }

    /// Emits org.freedesktop.DBus.Properties.PropertiesChanged with the current
    /// values of the named properties (reads their getters); properties whose
    /// change signal is `.none` are never sent; `.invalidates` ones go into the
    /// invalidated list. Traps on names the interface does not declare.
    public func propertiesChanged(on path: ObjectPath, interface: InterfaceName, names: [String]) {
        dispatchPrecondition(condition: .onQueue(queue))
        let declaration = exportedInterface(interface, at: path)
        let properties = names.map { name in
            guard let property = declaration.property(named: name) else {
                preconditionFailure("\(interface) at \(path) declares no property \(name)")
            }
            return property
        }
        emitPropertiesChanged(properties, of: interface, on: path)
    }

    func exportedInterface(_ name: InterfaceName, at path: ObjectPath) -> BusInterface {
        guard let interface = interfaces(at: path)?.first(where: { $0.name == name }) else {
            preconditionFailure("\(name) is not exported at \(path)")
        }
        return interface
    }

    private func emitPropertiesChanged(_ properties: [BusProperty], of interface: InterfaceName, on path: ObjectPath) {
        forgetKeptListings(showing: path)
        var changed: [BusDictionaryEntry] = []
        var invalidated: [String] = []
        for property in properties {
            switch property.changeSignal {
            case .emits:
                changed.append(
                    BusDictionaryEntry(key: .string(property.name), value: .variant(value(of: property, at: path))))
            case .invalidates: invalidated.append(property.name)
            case .none, .constant: break
            }
        }
        guard !changed.isEmpty || !invalidated.isEmpty else { return }
        connection.emitSignal(
            path: path, interface: .properties, member: MemberName("PropertiesChanged"),
            arguments: [
                .string(interface.rawValue),
                .dictionary(keySignature: "s", valueSignature: "v", changed),
                .stringArray(invalidated),
            ])
    }

    /// Reads a property of the object at `path`, trapping if its getter breaks its declared type.
    func value(of property: BusProperty, at path: ObjectPath) -> BusValue {
        let value = property.get(path)
        precondition(
            value.signature == property.signature,
            "property \(property.name) is declared '\(property.signature)' but its getter returned '\(value.signature)'"
        )
        return value
    }

    // MARK: Routing

    private func receive(_ message: Message) {
        if allowedUnixUser == nil {
            handle(message, from: nil)
        } else {
            callerUsers.receive(message)
        }
    }

    /// Handles a call whose sender is Unix user `user` (nil: not asked, anyone may call).
    private func handle(_ message: Message, from user: Result<UInt32, BusError>?) {
        do throws(BusError) {
            if let user, let allowed = allowedUnixUser { try authorize(try user.get(), allowed: allowed) }
            try route(message)
        } catch {
            answer(message, with: error)
        }
    }

    /// Refuses callers that are not `allowed`.
    private func authorize(_ user: UInt32, allowed: UInt32) throws(BusError) {
        guard user == allowed else {
            throw BusError(.accessDenied, "only Unix user \(allowed) may use this service; the caller is user \(user)")
        }
    }

    private func route(_ message: Message) throws(BusError) {
        // libdbus only delivers method calls that carry a path and a member.
        guard let path = message.path, let member = message.member else {
            throw .failed("method call without path or member")
        }
        let interfaces = self.interfaces(at: path)
        // The root always exists, so `busctl tree` works before anything is exported.
        guard interfaces != nil || path == .root || !children(of: path).isEmpty else {
            throw .unknownObject("No object at path '\(path)'")
        }
        let exported = interfaces ?? []

        let interfaceName: InterfaceName
        if let name = message.interface {
            interfaceName = name
        } else if let owner = exported.first(where: { $0.method(named: member) != nil }) {
            interfaceName = owner.name
        } else if member.rawValue == "Introspect" {
            interfaceName = .introspectable
        } else if member.rawValue == "GetManagedObjects", managers.contains(path) {
            interfaceName = .objectManager
        } else if ["Get", "GetAll", "Set"].contains(member.rawValue), interfaces != nil {
            interfaceName = .properties
        } else {
            throw .unknownMethod("Object '\(path)' has no method '\(member)'")
        }

        switch interfaceName {
        case .introspectable:
            try introspect(message, member: member, path: path)
        case .objectManager where managers.contains(path):
            try manageObjects(message, member: member, path: path)
        case .properties where interfaces != nil:
            try handleProperties(message, member: member, path: path, interfaces: exported)
        default:
            guard let interface = exported.first(where: { $0.name == interfaceName }) else {
                throw .unknownInterface("Object '\(path)' has no interface '\(interfaceName)'")
            }
            guard let method = interface.method(named: member) else {
                throw .unknownMethod("Interface '\(interfaceName)' has no method '\(member)'")
            }
            try requireSignature(method.inSignature, of: message, method: member.rawValue)
            let invocation = BusMethodInvocation(
                message: message, path: path, arguments: try message.arguments(), method: "\(interfaceName).\(member)",
                outSignature: method.outSignature, connection: connection, queue: queue)
            method.handler(invocation)
        }
    }

    func requireSignature(_ expected: String, of message: Message, method: String) throws(BusError) {
        let actual = message.signature
        guard actual == expected else {
            throw .invalidArgs("Method \(method) expects signature '\(expected)', got '\(actual)'")
        }
    }

    func answer(_ message: Message, with values: [BusValue]) {
        guard message.expectsReply else { return }
        let reply = message.makeReturn()
        reply.append(values)
        connection.send(reply)
    }

    private func answer(_ message: Message, with error: BusError) {
        guard message.expectsReply else { return }
        connection.send(message.makeError(error))
    }

    // MARK: Introspectable

    private func introspect(_ message: Message, member: MemberName, path: ObjectPath) throws(BusError) {
        guard member.rawValue == "Introspect" else {
            throw .unknownMethod("Interface '\(InterfaceName.introspectable)' has no method '\(member)'")
        }
        try requireSignature("", of: message, method: "Introspect")
        let xml = Introspection.document(
            interfaces: interfaces(at: path), children: children(of: path), isObjectManager: managers.contains(path))
        answer(message, with: [.string(xml)])
    }

    /// Names of the nodes directly below `path` that are, or lead to, exported objects.
    private func children(of path: ObjectPath) -> [String] {
        var names = Set<Substring>()
        for exported in objects.keys where exported.isDescendant(of: path) {
            names.insert(exported.childElement(below: path))
        }
        for family in families.values {
            if family.parent == path {
                names.formUnion(family.members().map { Substring($0) })
            } else if family.parent.isDescendant(of: path), !family.members().isEmpty {
                names.insert(family.parent.childElement(below: path))
            }
        }
        return names.map(String.init).sorted()
    }

    // MARK: Properties

    private func handleProperties(
        _ message: Message, member: MemberName, path: ObjectPath, interfaces: [BusInterface]
    ) throws(BusError) {
        switch member.rawValue {
        case "Get":
            try requireSignature("ss", of: message, method: "Get")
            let arguments = try message.arguments()
            let (_, property) = try lookUp(arguments[1].string ?? "", in: arguments[0].string ?? "", of: interfaces)
            answer(message, with: [.variant(value(of: property, at: path))])

        case "GetAll":
            try requireSignature("s", of: message, method: "GetAll")
            let name = try message.arguments()[0].string ?? ""
            let selected = name.isEmpty ? interfaces : [try lookUp(interface: name, in: interfaces)]
            let entries = selected.flatMap(\.properties).map {
                BusDictionaryEntry(key: .string($0.name), value: .variant(value(of: $0, at: path)))
            }
            answer(message, with: [.dictionary(keySignature: "s", valueSignature: "v", entries)])

        case "Set":
            try requireSignature("ssv", of: message, method: "Set")
            let arguments = try message.arguments()
            let (_, property) = try lookUp(
                arguments[1].string ?? "", in: arguments[0].string ?? "", of: interfaces)
            guard property.access == .readWrite, property.set != nil || property.setLater != nil else {
                throw .propertyReadOnly("Property '\(property.name)' is read-only")
            }
            guard let newValue = arguments[2].variant, newValue.signature == property.signature else {
                let got = arguments[2].variant?.signature ?? "?"
                throw .invalidArgs("Property '\(property.name)' has type '\(property.signature)', got '\(got)'")
            }
            // The owner announces the change, and only a real one: it alone knows whether
            // the value moved, and announces changes made by other means the same way.
            if let setLater = property.setLater {
                let invocation = BusMethodInvocation(
                    message: message, path: path, arguments: arguments, method: "\(InterfaceName.properties).Set",
                    outSignature: "", connection: connection, queue: queue)
                return setLater(invocation, newValue)
            }
            try property.set?(path, newValue)
            answer(message, with: [])

        default:
            throw .unknownMethod("Interface '\(InterfaceName.properties)' has no method '\(member)'")
        }
    }

    private func lookUp(interface name: String, in interfaces: [BusInterface]) throws(BusError) -> BusInterface {
        guard let interface = interfaces.first(where: { $0.name.rawValue == name }) else {
            throw .unknownInterface("Object has no interface '\(name)'")
        }
        return interface
    }

    /// Finds a property; an empty interface name searches all interfaces, as
    /// the Properties specification allows.
    private func lookUp(
        _ property: String, in interfaceName: String, of interfaces: [BusInterface]
    ) throws(BusError) -> (BusInterface, BusProperty) {
        let candidates = interfaceName.isEmpty ? interfaces : [try lookUp(interface: interfaceName, in: interfaces)]
        for interface in candidates {
            if let found = interface.property(named: property) { return (interface, found) }
        }
        let scope = interfaceName.isEmpty ? "Object" : "Interface '\(interfaceName)'"
        throw .unknownProperty("\(scope) has no property '\(property)'")
    }
}
