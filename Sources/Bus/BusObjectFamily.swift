import Dispatch

/// Many objects directly below one path that share one interface table and are told
/// apart by their last path element, such as a library's memos: ten thousand of them cost
/// the server one entry, not a path and a table each. Their owner says which exist.
public struct BusObjectFamily {
    /// The path the members sit directly below.
    public var parent: ObjectPath
    /// What every member implements; handlers learn which member from the path.
    public var interfaces: [BusInterface]
    /// The members' last path elements, in any order.
    public var members: () -> [String]
    /// Whether `element` names a member now.
    public var contains: (Substring) -> Bool
    /// Every property value of member `element` (one array per interface, each in its
    /// properties' order, as their getters would give them), or nil if it is none: a listing
    /// of thousands then looks each member up once rather than once per property.
    public var propertyValues: (String) -> [[BusValue]]?
    /// A number that changes whenever what the family lists may have (a member added,
    /// removed or changed), announced or not: a kept listing of its members is stale once it
    /// moved. The default never moves, leaving it to the announcements alone.
    public var revision: () -> Int

    /// Declares a family; each name `members` gives must be a valid path element.
    public init(
        parent: ObjectPath, interfaces: [BusInterface], members: @escaping () -> [String],
        contains: @escaping (Substring) -> Bool, propertyValues: @escaping (String) -> [[BusValue]]?,
        revision: @escaping () -> Int = { 0 }
    ) {
        self.parent = parent
        self.interfaces = interfaces
        self.members = members
        self.contains = contains
        self.propertyValues = propertyValues
        self.revision = revision
    }

    /// The member's last element if `path` lies directly below `parent`.
    func element(of path: ObjectPath) -> Substring? {
        let utf8 = path.rawValue.utf8
        let prefix = parent.rawValue.utf8
        guard utf8.count > prefix.count + 1, utf8.starts(with: prefix),
            utf8[utf8.index(utf8.startIndex, offsetBy: prefix.count)] == UInt8(ascii: "/")
        else { return nil }
        let rest = Substring(utf8[utf8.index(utf8.startIndex, offsetBy: prefix.count + 1)...])
        guard !rest.utf8.contains(UInt8(ascii: "/")) else { return nil }
        return rest
    }
}

extension BusObjectServer {
    /// Serves `family`'s members from now on. Members are announced one by one with
    /// `memberAdded` and `memberRemoved` (after the owner's `contains` says so).
    public func export(_ family: BusObjectFamily) {
        dispatchPrecondition(condition: .onQueue(queue))
        families[family.parent] = family
        forgetKeptListings()
    }

    /// Announces a new member of the family below `parent` (InterfacesAdded, below an object manager).
    public func memberAdded(_ element: String, below parent: ObjectPath) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let family = families[parent] else { preconditionFailure("no family is exported below \(parent)") }
        announceAdded(family.interfaces, at: parent.appending(element))
    }

    /// Announces that a member of the family below `parent` is gone (InterfacesRemoved).
    public func memberRemoved(_ element: String, below parent: ObjectPath) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let family = families[parent] else { preconditionFailure("no family is exported below \(parent)") }
        announceRemoved(family.interfaces, at: parent.appending(element))
    }

    /// What is exported at `path`: an object of its own, or a family's member.
    func interfaces(at path: ObjectPath) -> [BusInterface]? {
        if let interfaces = objects[path] { return interfaces }
        for family in families.values {
            if let element = family.element(of: path), family.contains(element) { return family.interfaces }
        }
        return nil
    }
}
