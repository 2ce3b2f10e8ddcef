/// A method's name and signature without its handler: what a published contract fixes, so
/// a table that declares the method from it cannot get the signature wrong.
public struct BusMethodDeclaration: Hashable, Sendable {
    /// The method's name.
    public let name: MemberName
    /// Its input arguments.
    public let inArguments: [BusArgument]
    /// Its output arguments.
    public let outArguments: [BusArgument]

    /// Declares a method's signature; traps if `name` is not a valid member name.
    public init(_ name: String, in: [BusArgument] = [], out: [BusArgument] = []) {
        self.name = MemberName(name)
        self.inArguments = `in`
        self.outArguments = out
    }
}

/// A signal's name and arguments.
public struct BusSignalDeclaration: Hashable, Sendable {
    /// The signal's name.
    public let name: MemberName
    /// Its arguments.
    public let arguments: [BusArgument]

    /// Declares a signal's signature; traps if `name` is not a valid member name.
    public init(_ name: String, _ arguments: [BusArgument] = []) {
        self.name = MemberName(name)
        self.arguments = arguments
    }
}

/// A property's name, type, access and how its changes are announced.
public struct BusPropertyDeclaration: Hashable, Sendable {
    /// The property's name.
    public let name: String
    /// Its single complete type.
    public let signature: String
    /// Read-only or read/write.
    public let access: BusProperty.Access
    /// How changes are announced.
    public let changeSignal: BusProperty.ChangeSignal

    /// Declares a property's signature; traps if `name` is not a valid member name or
    /// `signature` not one complete type.
    public init(
        _ name: String, _ signature: String, access: BusProperty.Access = .read,
        changeSignal: BusProperty.ChangeSignal = .emits
    ) {
        precondition(MemberName(rawValue: name) != nil, "invalid property name '\(name)'")
        precondition(Signature.isSingleCompleteType(signature), "invalid signature '\(signature)' for property \(name)")
        self.name = name
        self.signature = signature
        self.access = access
        self.changeSignal = changeSignal
    }
}

extension BusMethod {
    /// Declares a method whose name and signature are `declaration`'s.
    public init(
        _ declaration: BusMethodDeclaration, annotations: [BusAnnotation] = [],
        handler: @escaping (BusMethodInvocation) -> Void
    ) {
        self.init(
            declaration.name.rawValue, in: declaration.inArguments, out: declaration.outArguments,
            annotations: annotations, handler: handler)
    }
}

extension BusSignalSpec {
    /// Declares a signal whose name and arguments are `declaration`'s.
    public init(_ declaration: BusSignalDeclaration, annotations: [BusAnnotation] = []) {
        self.init(declaration.name.rawValue, declaration.arguments, annotations: annotations)
    }
}

extension BusProperty {
    /// Declares a property of one object with `declaration`'s name, type, access and change
    /// signal: a writable one needs `set`, a read-only one must not have it.
    public init(
        _ declaration: BusPropertyDeclaration, get: @escaping () -> BusValue,
        set: ((BusValue) throws(BusError) -> Void)? = nil
    ) {
        self.init(
            declaration.name, declaration.signature, access: declaration.access,
            changeSignal: declaration.changeSignal, get: get, set: set)
    }

    /// Declares a property of every object an interface table is exported at (see
    /// `init(_:_:access:changeSignal:getAt:setAt:)`) with `declaration`'s signature.
    public init(
        _ declaration: BusPropertyDeclaration, getAt: @escaping (ObjectPath) -> BusValue,
        setAt: ((ObjectPath, BusValue) throws(BusError) -> Void)? = nil
    ) {
        self.init(
            declaration.name, declaration.signature, access: declaration.access,
            changeSignal: declaration.changeSignal, getAt: getAt, setAt: setAt)
    }

    /// Declares a writable property of every object an interface table is exported at,
    /// whose writes are answered later; `declaration` must be `.readWrite`.
    public init(
        _ declaration: BusPropertyDeclaration, getAt: @escaping (ObjectPath) -> BusValue,
        setLater: @escaping (BusMethodInvocation, BusValue) -> Void
    ) {
        precondition(declaration.access == .readWrite, "property \(declaration.name) is not writable")
        self.init(
            declaration.name, declaration.signature, changeSignal: declaration.changeSignal, getAt: getAt,
            setLater: setLater)
    }
}

extension Dictionary where Key == String, Value == BusValue {
    /// The value of `property` in a property map (GetAll's reply, PropertiesChanged's changes).
    public subscript(_ property: BusPropertyDeclaration) -> BusValue? { self[property.name] }
}
