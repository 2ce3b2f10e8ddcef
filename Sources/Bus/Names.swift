// Every name that reaches libdbus goes through one of these types first:
// libdbus aborts the process on malformed names (its "checks" are fatal by
// default), so validation has to happen here, where Swift can say no.

/// A D-Bus object path such as `/org/example/Recorder`.
public struct ObjectPath: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The path as sent on the wire.
    public let rawValue: String

    /// Creates a path, or returns `nil` if `rawValue` is not valid object path syntax.
    public init?(rawValue: String) {
        guard LibDBus.isValid(rawValue, as: .objectPath) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a path from a string known to be valid; traps otherwise.
    public init(_ literal: String) {
        guard let path = ObjectPath(rawValue: literal) else {
            preconditionFailure("invalid D-Bus object path '\(literal)'")
        }
        self = path
    }

    /// The root path, `/`.
    public static let root = ObjectPath("/")

    /// The bus daemon's own object.
    public static let bus = ObjectPath("/org/freedesktop/DBus")

    /// The path with one more element; `element` must be non-empty `[A-Za-z0-9_]`.
    public func appending(_ element: String) -> ObjectPath {
        precondition(ObjectPath.isValidElement(element), "invalid D-Bus object path element '\(element)'")
        return ObjectPath(rawValue: self == .root ? "/" + element : rawValue + "/" + element)!
    }

    /// The path's last element (empty for the root): the name one table serving many
    /// objects tells them apart by.
    public var lastElement: Substring {
        // By bytes: a path is ASCII, and this runs for every property of every memo listed.
        let utf8 = rawValue.utf8
        return Substring(utf8[utf8.index(after: utf8.lastIndex(of: UInt8(ascii: "/"))!)...])
    }

    /// Whether this path lies strictly below `ancestor`.
    internal func isDescendant(of ancestor: ObjectPath) -> Bool {
        if ancestor == .root { return self != .root }
        return rawValue.hasPrefix(ancestor.rawValue + "/")
    }

    /// The first element of this path below `ancestor`, which it must descend from.
    internal func childElement(below ancestor: ObjectPath) -> Substring {
        let rest = rawValue.dropFirst(ancestor == .root ? 1 : ancestor.rawValue.count + 1)
        return rest.prefix { $0 != "/" }
    }

    /// Whether `element` can be one element of a path: non-empty `[A-Za-z0-9_]`.
    public static func isValidElement(_ element: String) -> Bool {
        !element.isEmpty
            && element.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                    return true
                default:
                    return false
                }
            }
    }

    /// The raw path.
    public var description: String { rawValue }
}

/// A bus name: a well-known name such as `org.example.Recorder` or a unique name such as `:1.42`.
public struct BusName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The name as sent on the wire.
    public let rawValue: String

    /// Creates a bus name, or returns `nil` if `rawValue` is not valid bus name syntax.
    public init?(rawValue: String) {
        guard LibDBus.isValid(rawValue, as: .busName) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a bus name from a string known to be valid; traps otherwise.
    public init(_ literal: String) {
        guard let name = BusName(rawValue: literal) else {
            preconditionFailure("invalid D-Bus bus name '\(literal)'")
        }
        self = name
    }

    /// The bus daemon itself.
    public static let bus = BusName("org.freedesktop.DBus")

    /// The raw name.
    public var description: String { rawValue }
}

/// An interface name such as `org.example.Recorder1`.
public struct InterfaceName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The name as sent on the wire.
    public let rawValue: String

    /// Creates an interface name, or returns `nil` if `rawValue` is not valid interface name syntax.
    public init?(rawValue: String) {
        guard LibDBus.isValid(rawValue, as: .interface) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates an interface name from a string known to be valid; traps otherwise.
    public init(_ literal: String) {
        guard let name = InterfaceName(rawValue: literal) else {
            preconditionFailure("invalid D-Bus interface name '\(literal)'")
        }
        self = name
    }

    /// `org.freedesktop.DBus`, the bus daemon's own interface.
    public static let bus = InterfaceName("org.freedesktop.DBus")
    /// `org.freedesktop.DBus.Properties`.
    public static let properties = InterfaceName("org.freedesktop.DBus.Properties")
    /// `org.freedesktop.DBus.Introspectable`.
    public static let introspectable = InterfaceName("org.freedesktop.DBus.Introspectable")
    /// `org.freedesktop.DBus.Peer`.
    public static let peer = InterfaceName("org.freedesktop.DBus.Peer")
    /// `org.freedesktop.DBus.ObjectManager`, served by `BusObjectServer.addObjectManager(at:)`.
    public static let objectManager = InterfaceName("org.freedesktop.DBus.ObjectManager")

    /// The raw name.
    public var description: String { rawValue }
}

/// A method or signal name such as `Start`.
public struct MemberName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The name as sent on the wire.
    public let rawValue: String

    /// Creates a member name, or returns `nil` if `rawValue` is not valid member name syntax.
    public init?(rawValue: String) {
        guard LibDBus.isValid(rawValue, as: .member) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a member name from a string known to be valid; traps otherwise.
    public init(_ literal: String) {
        guard let name = MemberName(rawValue: literal) else {
            preconditionFailure("invalid D-Bus member name '\(literal)'")
        }
        self = name
    }

    /// The raw name.
    public var description: String { rawValue }
}

/// An error name such as `org.freedesktop.DBus.Error.InvalidArgs`.
public struct ErrorName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The name as sent on the wire.
    public let rawValue: String

    /// Creates an error name, or returns `nil` if `rawValue` is not valid error name syntax.
    public init?(rawValue: String) {
        guard LibDBus.isValid(rawValue, as: .errorName) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates an error name from a string known to be valid; traps otherwise.
    public init(_ literal: String) {
        guard let name = ErrorName(rawValue: literal) else {
            preconditionFailure("invalid D-Bus error name '\(literal)'")
        }
        self = name
    }

    /// `org.freedesktop.DBus.Error.Failed`: generic failure.
    public static let failed = ErrorName("org.freedesktop.DBus.Error.Failed")
    /// `org.freedesktop.DBus.Error.InvalidArgs`: wrong argument types or values.
    public static let invalidArgs = ErrorName("org.freedesktop.DBus.Error.InvalidArgs")
    /// `org.freedesktop.DBus.Error.UnknownMethod`: no such member on the interface.
    public static let unknownMethod = ErrorName("org.freedesktop.DBus.Error.UnknownMethod")
    /// `org.freedesktop.DBus.Error.UnknownObject`: nothing exported at the path.
    public static let unknownObject = ErrorName("org.freedesktop.DBus.Error.UnknownObject")
    /// `org.freedesktop.DBus.Error.UnknownInterface`: the object lacks the interface.
    public static let unknownInterface = ErrorName("org.freedesktop.DBus.Error.UnknownInterface")
    /// `org.freedesktop.DBus.Error.UnknownProperty`: the interface lacks the property.
    public static let unknownProperty = ErrorName("org.freedesktop.DBus.Error.UnknownProperty")
    /// `org.freedesktop.DBus.Error.PropertyReadOnly`: Set on a read-only property.
    public static let propertyReadOnly = ErrorName("org.freedesktop.DBus.Error.PropertyReadOnly")
    public static let accessDenied = ErrorName("org.freedesktop.DBus.Error.AccessDenied")
    /// `org.freedesktop.DBus.Error.NoReply`: the call timed out.
    public static let noReply = ErrorName("org.freedesktop.DBus.Error.NoReply")
    /// `org.freedesktop.DBus.Error.Disconnected`: the connection is gone.
    public static let disconnected = ErrorName("org.freedesktop.DBus.Error.Disconnected")

    /// The raw name.
    public var description: String { rawValue }
}
