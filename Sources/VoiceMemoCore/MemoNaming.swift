import FoundationEssentials

/// How memo files are named and how a memo's id follows from its file name.
///
/// New memos are named `2026-11-29 14.03.07 Title.opus`: sortable, readable in a file
/// manager, and free of characters any desktop file system refuses. The id keeps only the
/// time stamp (`20261129T140307`), so renaming a memo does not change its id.
public enum MemoNaming {
    /// The file name for a new memo started at `date` (UTC is not used: people read local
    /// time), with `sequence` > 1 telling apart memos started within the same second.
    public static func fileName(
        date: Date, title: String?, format: AudioFormat, sequence: Int = 1, timeZone: TimeZone = .current
    ) -> String {
        var stamp = timeStamp(date, timeZone: timeZone)
        if sequence > 1 { stamp += "-\(sequence)" }
        let title = title.map(fileSafeTitle) ?? ""
        return (title.isEmpty ? stamp : "\(stamp) \(title)") + "." + format.fileExtension
    }

    /// The memo id for a file name: the time stamp when the name starts with one, otherwise
    /// the whole name escaped to letters, digits and underscores, as the contract's memo ids are.
    public static func memoID(forFileName name: String) -> String {
        if let stamp = parseStamp(name) {
            return stamp.sequence > 1 ? "\(stamp.compact)_\(stamp.sequence)" : stamp.compact
        }
        return "f" + escapedIdentifier(name)
    }

    /// The title a file name carries after its time stamp, if any.
    public static func title(forFileName name: String) -> String? {
        let base = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
        guard let stamp = parseStamp(name) else { return base.isEmpty ? nil : base }
        let rest = base.dropFirst(stamp.length).drop(while: { $0 == " " })
        return rest.isEmpty ? nil : String(rest)
    }

    /// The file name a memo gets when its title becomes `title`: the time stamp (and
    /// extension) stay, so the id does not change; names without a stamp are kept as they
    /// are, since their id is their name.
    public static func renamedFileName(_ name: String, title: String) -> String {
        guard let stamp = parseStamp(name) else { return name }
        let stampText = String(name.prefix(stamp.length))
        let ext = name.lastIndex(of: ".").map { String(name[$0...]) } ?? ""
        let safe = fileSafeTitle(title)
        return (safe.isEmpty ? stampText : "\(stampText) \(safe)") + ext
    }

    /// When a memo named with a time stamp was started, read in `timeZone`; nil for other names.
    public static func creationDate(forFileName name: String, timeZone: TimeZone = .current) -> Date? {
        guard let stamp = parseStamp(name) else { return nil }
        let digits = stamp.compact.filter(\.isNumber).map { Int(String($0))! }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(
            from: DateComponents(
                year: number(0..<4), month: number(4..<6), day: number(6..<8), hour: number(8..<10),
                minute: number(10..<12), second: number(12..<14)))
    }

    /// Makes a title safe as part of a file name: no path separators, no leading dots, no
    /// control characters, bounded length in bytes.
    public static func fileSafeTitle(_ title: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in title.unicodeScalars {
            if scalar == "/" || scalar == "\\" || scalar == "\0" {
                scalars.append("-")
            } else if scalar.properties.generalCategory == .control {
                scalars.append(" ")
            } else {
                scalars.append(scalar)
            }
        }
        var safe = Substring(String(scalars))
        safe = safe.drop(while: { $0 == "." || $0.isWhitespace })
        // Leave room in NAME_MAX (255 bytes) for the stamp and extension.
        while safe.utf8.count > 180 { safe.removeLast() }
        while safe.last?.isWhitespace == true { safe.removeLast() }
        return String(safe)
    }

    /// Escapes like systemd's `bus_label_escape`: every byte outside [A-Za-z0-9] becomes
    /// `_xx`, so distinct names give distinct identifiers of letters, digits and underscores.
    public static func escapedIdentifier(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                result += "_" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result.isEmpty ? "_" : result
    }

    /// `YYYY-MM-DD HH.MM.SS` in `timeZone`.
    static func timeStamp(_ date: Date, timeZone: TimeZone) -> String {
        localTimeStamp(date, timeZone: timeZone, dateTimeSeparator: " ", timeSeparator: ".")
    }

    /// A parsed leading time stamp: its compact id form, sequence number and length in characters.
    struct Stamp {
        var compact: String
        var sequence: Int
        var length: Int
    }

    static func parseStamp(_ name: String) -> Stamp? {
        // "YYYY-MM-DD HH.MM.SS" is 19 ASCII characters; digits and separators at fixed places.
        let chars = Array(name.utf8)
        guard chars.count >= 19 else { return nil }
        let pattern = Array("dddd-dd-dd dd.dd.dd".utf8)
        var digits = ""
        for (index, expected) in pattern.enumerated() {
            let char = chars[index]
            if expected == UInt8(ascii: "d") {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(char) else { return nil }
                digits.unicodeScalars.append(Unicode.Scalar(char))
            } else if char != expected {
                return nil
            }
        }
        var length = 19
        var sequence = 1
        if chars.count > 20, chars[19] == UInt8(ascii: "-") {
            let run = chars[20...].prefix(while: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            if !run.isEmpty, run.count <= 6, let value = Int(String(decoding: run, as: UTF8.self)), value > 1 {
                sequence = value
                length = 20 + run.count
            }
        }
        // The stamp must end the name's stem or be followed by a space or the extension dot.
        guard chars.count == length || chars[length] == UInt8(ascii: " ") || chars[length] == UInt8(ascii: ".") else {
            return nil
        }
        let compact = String(digits.prefix(8)) + "T" + String(digits.dropFirst(8))
        return Stamp(compact: compact, sequence: sequence, length: length)
    }
}
