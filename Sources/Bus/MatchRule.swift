/// A match rule as the client side understands it: just enough to tell
/// signals we subscribed to from ones the bus sends us unasked (NameAcquired,
/// NameLost). The bus does the real filtering; keys this type cannot check
/// locally (well-known senders, argN, …) are treated as matching.
internal struct MatchRule {
    private var keys: [(key: String, value: String)] = []

    /// Parses `key='value',…` with the D-Bus quoting rules (`\'` outside quotes is a quote).
    init(_ rule: String) {
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
