/// One line the speech worker (`data/voicememo-transcriber`) answers with: an event, then
/// `key=value` fields, all separated by tabs. In a value a backslash escapes a backslash
/// (`\\`), a tab (`\t`), a line feed (`\n`) or a carriage return (`\r`), so a value may hold
/// any text and a line is always one line.
///
/// Tab-separated rather than JSON: the daemon reads a line with a split and `Double(_:)`.
/// Decoding JSON through Codable made the daemon's first transcription fault in about
/// 350 KiB of the decoder's and Codable's code, resident for the daemon's life.
public struct WorkerMessage: Equatable, Sendable {
    /// What happened: `ready`, `segment`, `done` or `failed`.
    public var event: String
    /// The fields by key; their order on the line carries no meaning.
    public var fields: [String: String]

    public init(event: String, fields: [String: String] = [:]) {
        self.event = event
        self.fields = fields
    }

    /// The memo file the event is about, if it is about one.
    public var path: String? { fields["path"] }
    /// A segment's start, in seconds from the start of the file.
    public var start: Double? { fields["start"].flatMap(Double.init) }
    /// A segment's end, in seconds from the start of the file.
    public var end: Double? { fields["end"].flatMap(Double.init) }
    /// A segment's words.
    public var text: String? { fields["text"] }
    /// Why a memo, or the worker, failed.
    public var reason: String? { fields["reason"] }

    /// The message on `line` (without its line feed), or nil if the line is not one: no
    /// event, a field without `=`, or an escape the protocol does not have. Read byte by byte:
    /// a tab, `=` or backslash is never part of a longer UTF-8 sequence.
    public init?(line: some Collection<UInt8>) {
        let parts = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
        guard let event = parts.first, !event.isEmpty, !event.contains(UInt8(ascii: "=")) else { return nil }
        var fields: [String: String] = [:]
        for part in parts.dropFirst() {
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")),
                let value = Self.unescaped(part[part.index(after: equals)...])
            else { return nil }
            fields[String(decoding: part[..<equals], as: UTF8.self)] = value
        }
        self.init(event: String(decoding: event, as: UTF8.self), fields: fields)
    }

    /// The line that carries this message, without its line feed (keys in sorted order).
    public var line: String {
        ([event] + fields.keys.sorted().map { "\($0)=\(Self.escaped(fields[$0]!))" }).joined(separator: "\t")
    }

    private static func unescaped(_ value: some Collection<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.count)
        var escaping = false
        for byte in value {
            if escaping {
                switch byte {
                case UInt8(ascii: "\\"): bytes.append(byte)
                case UInt8(ascii: "t"): bytes.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "n"): bytes.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "r"): bytes.append(UInt8(ascii: "\r"))
                default: return nil
                }
                escaping = false
            } else if byte == UInt8(ascii: "\\") {
                escaping = true
            } else {
                bytes.append(byte)
            }
        }
        return escaping ? nil : String(decoding: bytes, as: UTF8.self)
    }

    private static func escaped(_ value: String) -> String {
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): bytes += [byte, byte]
            case UInt8(ascii: "\t"): bytes += Array("\\t".utf8)
            case UInt8(ascii: "\n"): bytes += Array("\\n".utf8)
            case UInt8(ascii: "\r"): bytes += Array("\\r".utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
