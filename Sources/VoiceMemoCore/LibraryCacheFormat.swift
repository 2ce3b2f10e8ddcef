/// The library cache's format: one line per memo, its fields separated by tabs, under a
/// header line naming the version. Written and read in one pass over bytes: with ten
/// thousand memos a JSON coder built megabytes of short-lived objects each time, and the
/// allocator kept their pages for the daemon's whole life.
public enum LibraryCacheFormat {
    /// The first line; a file with another is ignored (read again from the memo files).
    public static let header = "voicememo-library-cache 3"

    /// The cache file's bytes for `memos`.
    public static func encode(_ memos: some Sequence<MemoInfo>) -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        for memo in memos {
            let fields = [
                escaped(memo.fileName), escaped(memo.title), memo.format.rawValue, String(memo.created),
                String(memo.duration), String(memo.sampleRate), String(memo.channels), String(memo.size),
                String(memo.modified), memo.transcript.map(escaped) ?? "",
            ]
            bytes.append(contentsOf: fields.joined(separator: "\t").utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// The memos in a cache file's bytes; lines that do not parse are skipped (their files
    /// are then read again), and a file of another version gives none.
    public static func decode(_ bytes: some Collection<UInt8>) -> [MemoInfo] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"))[...]
        guard let first = lines.popFirst(), String(decoding: first, as: UTF8.self) == header else { return [] }
        return lines.compactMap { memo(fromLine: $0) }
    }

    private static func memo(fromLine line: some Collection<UInt8>) -> MemoInfo? {
        let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard fields.count == 10, let fileName = unescaped(fields[0]), let title = unescaped(fields[1]),
            let format = AudioFormat(rawValue: fields[2]), let created = Int64(fields[3]),
            let duration = Double(fields[4]), duration.isFinite, let sampleRate = UInt32(fields[5]),
            let channels = UInt32(fields[6]), let size = UInt64(fields[7]), let modified = Int64(fields[8]),
            let transcript = unescaped(fields[9])
        else { return nil }
        return MemoInfo(
            fileName: fileName, title: title, format: format, created: created, duration: duration,
            sampleRate: sampleRate, channels: channels, size: size, modified: modified,
            transcript: transcript.isEmpty ? nil : transcript)
    }

    /// File names, titles and transcripts may hold tabs, newlines and backslashes; these are escaped.
    static func escaped(_ text: String) -> String {
        guard
            text.utf8.contains(where: {
                $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n")
            })
        else { return text }
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// The text `escaped` was given, or nil for an unknown or unfinished escape.
    static func unescaped(_ text: String) -> String? {
        guard text.contains("\\") else { return text }
        var result = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let character = scalars.next() {
            guard character == "\\" else {
                result.unicodeScalars.append(character)
                continue
            }
            switch scalars.next() {
            case "\\": result += "\\"
            case "t": result += "\t"
            case "n": result += "\n"
            default: return nil
            }
        }
        return result
    }
}
