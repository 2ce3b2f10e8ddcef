/// A D-Bus error: the name callers match on plus a human-readable message.
///
/// Both directions use it: errors libdbus reports (including error replies
/// from remote peers) arrive as a `BusError`, and a service answers a call
/// with one.
public struct BusError: Error, Equatable, CustomStringConvertible {
    /// The machine-readable error name.
    public let name: ErrorName
    /// The human-readable explanation.
    public let message: String

    /// Creates an error with a name and message.
    public init(_ name: ErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    /// `name: message`, as libdbus tools print it.
    public var description: String { "\(name): \(message)" }

    /// Wrong argument types or values.
    public static func invalidArgs(_ message: String) -> BusError { BusError(.invalidArgs, message) }
    /// No such method.
    public static func unknownMethod(_ message: String) -> BusError { BusError(.unknownMethod, message) }
    /// No such property.
    public static func unknownProperty(_ message: String) -> BusError { BusError(.unknownProperty, message) }
    /// Set on a read-only property.
    public static func propertyReadOnly(_ message: String) -> BusError { BusError(.propertyReadOnly, message) }
    /// Nothing exported at the path.
    public static func unknownObject(_ message: String) -> BusError { BusError(.unknownObject, message) }
    /// The object lacks the interface.
    public static func unknownInterface(_ message: String) -> BusError { BusError(.unknownInterface, message) }
    /// Generic failure.
    public static func failed(_ message: String) -> BusError { BusError(.failed, message) }
}
