/// A match rule: which signals a connection asks the bus for, built from typed names so no
/// rule is spelled by hand. Locally it tells signals we subscribed to from ones the bus
/// sends us unasked (NameAcquired, NameLost); the bus does the real filtering, and keys
/// this type cannot check locally (well-known senders, argN, …) are treated as matching.
public struct MatchRule: Sendable {
    private var keys: [(key: String, value: String)] = []

    /// Signals narrowed by each key given: who sends them, from which object (or, with
    /// `pathNamespace`, from it and below), of which interface and member, and string
    /// arguments by position (`argN`).
    public static func signals(
        sender: BusName? = nil, path: ObjectPath? = nil, pathNamespace: ObjectPath? = nil,
        interface: InterfaceName? = nil, member: MemberName? = nil, arguments: [Int: String] = [:]
    ) -> MatchRule {
        var rule = MatchRule()
        rule.keys.append(("type", "signal"))
        if let sender { rule.keys.append(("sender", sender.rawValue)) }
        if let path { rule.keys.append(("path", path.rawValue)) }
        if let pathNamespace { rule.keys.append(("path_namespace", pathNamespace.rawValue)) }
        if let interface { rule.keys.append(("interface", interface.rawValue)) }
        if let member { rule.keys.append(("member", member.rawValue)) }
        for (position, value) in arguments.sorted(by: { $0.key < $1.key }) {
            rule.keys.append(("arg\(position)", value))
        }
        return rule
    }

    /// The bus's NameOwnerChanged, for the name `name` (all names if nil) and, if given, the
    /// new owner (`""` for a name that left the bus).
    public static func nameOwnerChanged(of name: BusName? = nil, newOwner: String? = nil) -> MatchRule {
        var arguments: [Int: String] = [:]
        if let name { arguments[0] = name.rawValue }
        if let newOwner { arguments[2] = newOwner }
        return signals(
            sender: .bus, path: .bus, interface: .bus, member: MemberName("NameOwnerChanged"), arguments: arguments)
    }

    /// The rule in the bus's syntax, `key='value',…`, quotes in values escaped.
    public var text: String {
        keys.map { key, value in key + "='" + value.replacing("'", with: "'\\''") + "'" }.joined(separator: ",")
    }

    private init() {}

    /// Parses `key='value',…` with the D-Bus quoting rules (`\'` outside quotes is a quote).
    public init(parsing rule: String) {
        var key = ""
        var value = ""
        var inKey = true
        var inQuotes = false
        var characters = rule.makeIterator()
        while let character = characters.next() {
            if inQuotes {
                if character == "'" { inQuotes = false } else { value.append(character) }
            } else if character == "'" {
                inQuotes = true
            } else if character == "\\", !inKey {
                if let next = characters.next() {
                    if next != "'" { value.append("\\") }
                    value.append(next)
                }
            } else if character == "=", inKey {
                inKey = false
            } else if character == ",", !inKey {
                keys.append((key.trimmingSpaces(), value))
                key = ""
                value = ""
                inKey = true
            } else if inKey {
                key.append(character)
            } else {
                value.append(character)
            }
        }
        if !inKey { keys.append((key.trimmingSpaces(), value)) }
    }

    /// Whether `message`, a signal, satisfies every key checkable locally.
    func matches(_ message: Message) -> Bool {
        keys.allSatisfy { key, value in
            switch key {
            case "type": return value == "signal"
            case "interface": return message.interface?.rawValue == value
            case "member": return message.member?.rawValue == value
            case "path": return message.path?.rawValue == value
            case "path_namespace":
                guard let path = message.path, let namespace = ObjectPath(rawValue: value) else { return false }
                return path == namespace || path.isDescendant(of: namespace)
            case "sender":
                // Messages carry unique senders; only those (and the bus itself) compare.
                return value.hasPrefix(":") || value == "org.freedesktop.DBus" ? message.sender == value : true
            default:
                return true
            }
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
