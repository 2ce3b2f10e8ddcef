/// A D-Bus interface an exported object implements: its methods,
/// properties and signals, declared as data so the server can route,
/// validate and introspect without further code.
public struct BusInterface {
    /// The interface's name.
    public var name: InterfaceName
    /// Its methods.
    public var methods: [BusMethod]
    /// Its properties.
    public var properties: [BusProperty]
    /// Its signals.
    public var signals: [BusSignalSpec]
    /// Annotations on the interface itself.
    public var annotations: [BusAnnotation]

    /// Declares an interface. Member names must be unique within it.
    public init(
        name: InterfaceName, methods: [BusMethod] = [], properties: [BusProperty] = [],
        signals: [BusSignalSpec] = [], annotations: [BusAnnotation] = []
    ) {
        precondition(Set(methods.map(\.name)).count == methods.count, "duplicate method in \(name)")
        precondition(Set(properties.map(\.name)).count == properties.count, "duplicate property in \(name)")
        precondition(Set(signals.map(\.name)).count == signals.count, "duplicate signal in \(name)")
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
        self.annotations = annotations
    }

    /// The method called `name`, if declared.
    internal func method(named name: MemberName) -> BusMethod? {
        methods.first { $0.name == name }
    }

    /// The property called `name`, if declared.
    internal func property(named name: String) -> BusProperty? {
        properties.first { $0.name == name }
    }
}

/// A named, typed argument of a method or signal.
public struct BusArgument: Hashable, Sendable {
    /// The argument's name, shown by introspection.
    public var name: String
    /// Its single complete type, e.g. `a{sv}`.
    public var signature: String

    /// Declares an argument; traps if `signature` is not one complete type.
    public init(_ name: String, _ signature: String) {
        precondition(Signature.isSingleCompleteType(signature), "invalid signature '\(signature)' for argument \(name)")
        self.name = name
        self.signature = signature
    }
}

/// A name/value annotation, such as `org.freedesktop.DBus.Deprecated` = `true`.
public struct BusAnnotation: Sendable {
    /// The annotation's name.
    public var name: String
    /// Its value.
    public var value: String

    /// Declares an annotation.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A method and the code that answers it.
public struct BusMethod {
    /// The method's name.
    public var name: MemberName
    /// Input arguments; a call must match their concatenated signature exactly.
    public var inArguments: [BusArgument]
    /// Output arguments; replies must match their concatenated signature.
    public var outArguments: [BusArgument]
    /// Annotations on the method.
    public var annotations: [BusAnnotation]
    /// Answers a call, on the server's queue, now or later.
    public var handler: (BusMethodInvocation) -> Void

    /// Declares a method; traps if `name` is not a valid member name.
    public init(
        _ name: String, in: [BusArgument] = [], out: [BusArgument] = [], annotations: [BusAnnotation] = [],
        handler: @escaping (BusMethodInvocation) -> Void
    ) {
        self.name = MemberName(name)
        self.inArguments = `in`
        self.outArguments = out
        self.annotations = annotations
        self.handler = handler
    }

    /// The signature a call must have, e.g. `sa{sv}`.
    internal var inSignature: String { inArguments.map(\.signature).joined() }
    /// The signature a reply must have.
    internal var outSignature: String { outArguments.map(\.signature).joined() }
}

/// A property, read through `get` and optionally written through `set`.
public struct BusProperty {
    /// Whether clients may write the property.
    public enum Access: Hashable, Sendable {
        /// Clients may only read it.
        case read
        /// Clients may also Set it.
        case readWrite
    }

    /// How changes are announced, i.e. `org.freedesktop.DBus.Property.EmitsChangedSignal`.
    public enum ChangeSignal: Hashable, Sendable {
        /// PropertiesChanged carries the new value (`true`, the default).
        case emits
        /// PropertiesChanged lists the name without a value (`invalidates`).
        case invalidates
        /// No PropertiesChanged at all (`false`).
        case none
        /// Never changes while the object exists (`const`), so there is nothing to announce.
        case constant
    }

    /// The property's name.
    public var name: String
    /// Its single complete type.
    public var signature: String
    /// Read-only or read/write.
    public var access: Access
    /// How changes are announced.
    public var changeSignal: ChangeSignal
    /// Returns the current value of the object at the given path; it must have type
    /// `signature`. Told the path so that one table can serve many similar objects.
    public var get: (ObjectPath) -> BusValue
    /// Applies a new value (already checked to have type `signature`) to the object at the
    /// given path; throws to refuse it. The object server does not announce a Set: the
    /// owner emits PropertiesChanged when, and only when, the value changed.
    public var set: ((ObjectPath, BusValue) throws(BusError) -> Void)?
    /// Like `set`, for writes that finish later (they touch files): given the Set call to
    /// answer, once, on the server's queue, and the object's path is the call's.
    public var setLater: ((BusMethodInvocation, BusValue) -> Void)?

    /// Declares a property of one object. A `.readWrite` property needs `set`; a `.read`
    /// one must not have it.
    public init(
        _ name: String, _ signature: String, access: Access = .read, changeSignal: ChangeSignal = .emits,
        get: @escaping () -> BusValue, set: ((BusValue) throws(BusError) -> Void)? = nil
    ) {
        var setAt: ((ObjectPath, BusValue) throws(BusError) -> Void)?
        if let set {
            setAt = { (_: ObjectPath, value: BusValue) throws(BusError) in try set(value) }
        }
        self.init(name, signature, access: access, changeSignal: changeSignal, getAt: { _ in get() }, setAt: setAt)
    }

    /// Declares a property of every object an interface table is exported at, told which
    /// object is asked: thousands of memos share one table rather than holding one each.
    public init(
        _ name: String, _ signature: String, access: Access = .read, changeSignal: ChangeSignal = .emits,
        getAt: @escaping (ObjectPath) -> BusValue, setAt: ((ObjectPath, BusValue) throws(BusError) -> Void)? = nil
    ) {
        precondition(MemberName(rawValue: name) != nil, "invalid property name '\(name)'")
        precondition(Signature.isSingleCompleteType(signature), "invalid signature '\(signature)' for property \(name)")
        precondition(
            (access == .readWrite) == (setAt != nil),
            "property \(name): .readWrite needs a setter, .read must not have one")
        self.name = name
        self.signature = signature
        self.access = access
        self.changeSignal = changeSignal
        self.get = getAt
        self.set = setAt
    }

    /// Declares a writable property of every object an interface table is exported at,
    /// whose writes are answered later (`setLater` answers the Set call itself).
    public init(
        _ name: String, _ signature: String, changeSignal: ChangeSignal = .emits,
        getAt: @escaping (ObjectPath) -> BusValue, setLater: @escaping (BusMethodInvocation, BusValue) -> Void
    ) {
        self.init(name, signature, access: .read, changeSignal: changeSignal, getAt: getAt)
        self.access = .readWrite
        self.setLater = setLater
    }
}

/// A signal an interface may emit.
public struct BusSignalSpec: Sendable {
    /// The signal's name.
    public var name: MemberName
    /// Its arguments.
    public var arguments: [BusArgument]
    /// Annotations on the signal.
    public var annotations: [BusAnnotation]

    /// Declares a signal; traps if `name` is not a valid member name.
    public init(_ name: String, _ arguments: [BusArgument], annotations: [BusAnnotation] = []) {
        self.name = MemberName(name)
        self.arguments = arguments
        self.annotations = annotations
    }

    /// The signature an emission must have.
    internal var signature: String { arguments.map(\.signature).joined() }
}
