import Dispatch

/// Some properties of one exported object as they were at one moment, read through their
/// getters: compared with the values later, it tells which really changed, so
/// PropertiesChanged announces those and nothing else.
public struct PropertySnapshot {
    /// The object whose properties these are.
    public let path: ObjectPath
    /// The interface that declares them.
    public let interface: InterfaceName
    /// Their values, by name, in the order they were asked for.
    fileprivate let values: [(name: String, value: BusValue)]
}

extension BusObjectServer {
    /// The current values of the properties `names` of `interface` on the object at `path`,
    /// to hand `announceChanges(since:)` once they may have changed.
    public func snapshot(of names: [String], on path: ObjectPath, interface: InterfaceName) -> PropertySnapshot {
        dispatchPrecondition(condition: .onQueue(queue))
        let declaration = exportedInterface(interface, at: path)
        return PropertySnapshot(
            path: path, interface: interface,
            values: names.map { name in
                guard let property = declaration.property(named: name) else {
                    preconditionFailure("\(interface) at \(path) declares no property \(name)")
                }
                return (name, value(of: property, at: path))
            })
    }

    /// Emits PropertiesChanged for the properties in `snapshot` whose value is no longer
    /// the one it holds, if any; returns their values now, the snapshot to compare with next.
    @discardableResult
    public func announceChanges(since snapshot: PropertySnapshot) -> PropertySnapshot {
        let now = self.snapshot(of: snapshot.values.map(\.name), on: snapshot.path, interface: snapshot.interface)
        let changed = zip(snapshot.values, now.values).filter { $0.value != $1.value }.map { $0.0.name }
        if !changed.isEmpty { propertiesChanged(on: snapshot.path, interface: snapshot.interface, names: changed) }
        return now
    }
}
