import FoundationEssentials

/// What was said in a memo, as timed segments: the worker's output, stored in the memo file's
/// own tags as WebVTT and offered as plain text, SubRip and JSON.
///
/// A segment's text is one line: WebVTT ends a cue at a blank line and SubRip at any, so line
/// breaks in it become spaces when it is made (a transcript is prose, not subtitles laid out
/// on screen). That way `Transcript(webVTT: transcript.webVTT) == transcript` always holds.
public struct Transcript: Equatable, Sendable {
    /// One stretch of speech and when it was said, in seconds from the memo's beginning.
    public struct Segment: Codable, Equatable, Sendable {
        public var start: Double
        public var end: Double
        /// The words, on one line.
        public private(set) var text: String

        /// A segment of `text`, each run of line breaks in it made one space.
        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = Self.oneLine(text)
        }

        private enum CodingKeys: String, CodingKey {
            case start, end, text
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                start: try container.decode(Double.self, forKey: .start),
                end: try container.decode(Double.self, forKey: .end),
                text: try container.decode(String.self, forKey: .text))
        }

        private static func oneLine(_ text: String) -> String {
            guard text.contains(where: \.isNewline) else { return text }
            var line = ""
            var isInBreak = false
            for character in text {
                if character.isNewline {
                    if !isInBreak { line.append(" ") }
                    isInBreak = true
                } else {
                    line.append(character)
                    isInBreak = false
                }
            }
            return line
        }
    }

    /// Where a search found its text: the segment's start and the words around the match.
    public struct Excerpt: Equatable, Sendable {
        /// When the segment holding the match starts, in seconds.
        public var start: Double
        /// The matching words and a few on either side, "…" where the segment goes on.
        public var text: String

        public init(start: Double, text: String) {
            self.start = start
            self.text = text
        }
    }

    public var segments: [Segment]

    public init(segments: [Segment]) {
        self.segments = segments
    }

    // MARK: WebVTT

    /// Reads WebVTT: the `WEBVTT` header line, then cues (an optional id line, a timing line
    /// `[HH:]MM:SS.mmm --> [HH:]MM:SS.mmm` with optional settings, the text lines), blank lines
    /// between blocks. CRLF or CR line ends and a byte order mark are accepted; `NOTE`, `STYLE`
    /// and `REGION` blocks and cues whose timing does not parse are skipped, as players do;
    /// markup such as `<v Anna>` is dropped and the entities `&amp;`, `&lt;`, `&gt;`, `&nbsp;`
    /// are decoded. A cue's text lines are joined by spaces. Nil when there is no header.
    public init?(webVTT: String) {
        var text = webVTT
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        // "\r\n" is one Character, so it is a newline here just as "\r" and "\n" are.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard let header = lines.first, header.hasPrefix("WEBVTT"),
            header.count == 6 || header.dropFirst(6).first == " " || header.dropFirst(6).first == "\t"
        else { return nil }
        var segments: [Segment] = []
        var block: [Substring] = []
        var isHeaderBlock = true
        for line in lines.dropFirst() + [""] {
            guard line.isEmpty else {
                block.append(line)
                continue
            }
            // The header's own block (metadata lines) ends at the first blank line.
            if !isHeaderBlock, let segment = Self.cue(from: block) { segments.append(segment) }
            isHeaderBlock = false
            block = []
        }
        self.segments = segments
    }

    /// The stored form: WebVTT with `HH:MM:SS.mmm` times, one line of text per cue, `&`, `<`
    /// and `>` written as entities (so a text holding "-->" cannot read as a timing line).
    public var webVTT: String {
        var out = "WEBVTT\n"
        for segment in segments {
            out += "\n\(Self.time(segment.start, decimalSeparator: "."))"
            out += " --> \(Self.time(segment.end, decimalSeparator: "."))\n"
            out += Self.escaped(segment.text) + "\n"
        }
        return out
    }

    /// A cue from the lines of one block, or nil if the block is not a cue.
    private static func cue(from block: [Substring]) -> Segment? {
        // The timing line is the first, or the second after an id; a NOTE block has neither.
        guard let timingIndex = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else { return nil }
        if timingIndex == 1, block[0].hasPrefix("NOTE") { return nil }
        let parts = block[timingIndex].split(separator: "-->", maxSplits: 1)
        guard parts.count == 2,
            let start = seconds(Substring(trimmed(parts[0]))),
            // Cue settings (`align:start`) may follow the end time.
            let endText = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first,
            let end = seconds(endText)
        else { return nil }
        let text = block[(timingIndex + 1)...].map(unescaped).joined(separator: " ")
        return Segment(start: start, end: end, text: text)
    }

    /// `[HH:]MM:SS.mmm` in seconds; hours may have more than two digits.
    private static func seconds(_ text: Substring) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count) else { return nil }
        let secondParts = fields[fields.count - 1].split(separator: ".", omittingEmptySubsequences: false)
        guard secondParts.count == 2, secondParts[1].count == 3, secondParts[0].count == 2,
            fields.dropLast().allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }),
            (secondParts[0] + secondParts[1]).allSatisfy(isDigit),
            let hours = fields.count == 3 ? Int(fields[0]) : 0, let minutes = Int(fields[fields.count - 2]),
            let wholeSeconds = Int(secondParts[0]), let milliseconds = Int(secondParts[1]),
            minutes < 60, wholeSeconds < 60
        else { return nil }
        let total = ((hours * 60 + minutes) * 60 + wholeSeconds) * 1000 + milliseconds
        return Double(total) / 1000
    }

    /// `HH:MM:SS.mmm` (or `,mmm`), rounded to the millisecond; negative times read as 0.
    private static func time(_ seconds: Double, decimalSeparator: String) -> String {
        let total = seconds.isFinite ? Int((max(seconds, 0) * 1000).rounded()) : 0
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        let (hours, minutes) = (total / 3_600_000, total / 60_000 % 60)
        return "\(digits(hours, 2)):\(digits(minutes, 2)):\(digits(total / 1000 % 60, 2))"
            + "\(decimalSeparator)\(digits(total % 1000, 3))"
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Cue text with its markup dropped and its entities decoded.
    private static func unescaped(_ line: Substring) -> String {
        var out = ""
        var rest = line[...]
        while let character = rest.popFirst() {
            switch character {
            case "<":
                // A tag: `<v Anna>`, `<i>`, `</c>`, `<00:00:01.000>`; an unclosed one runs to the end.
                rest = rest.drop { $0 != ">" }.dropFirst()
            case "&":
                let entity = rest.prefix { $0 != ";" && $0 != "&" && $0 != " " }
                let decoded = [
                    "amp": "&", "lt": "<", "gt": ">", "nbsp": "\u{A0}", "lrm": "\u{200E}", "rlm": "\u{200F}",
                ]
                if let value = decoded[String(entity)], rest.dropFirst(entity.count).first == ";" {
                    out += value
                    rest = rest.dropFirst(entity.count + 1)
                } else {
                    out.append("&")
                }
            default:
                out.append(character)
            }
        }
        return out
    }

    // MARK: Other forms

    /// The texts of the segments that have any, trimmed and joined by single spaces.
    public var plainText: String {
        segments.map { Self.trimmed($0.text) }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// SubRip: cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line after each.
    public var srt: String {
        var out = ""
        for (index, segment) in segments.enumerated() {
            out += "\(index + 1)\n"
            out += "\(Self.time(segment.start, decimalSeparator: ",")) --> "
            out += "\(Self.time(segment.end, decimalSeparator: ","))\n"
            out += segment.text + "\n\n"
        }
        return out
    }

    /// A JSON array of `{"end": seconds, "start": seconds, "text": "…"}`, one per segment, its
    /// keys sorted so that a transcript always gives the same bytes.
    public var json: String {
        // Encoding Doubles and Strings cannot fail: non-finite times are the only way, and
        // those are written as 0.
        let finite = segments.map {
            Segment(start: $0.start.isFinite ? $0.start : 0, end: $0.end.isFinite ? $0.end : 0, text: $0.text)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(finite), as: UTF8.self)
    }

    // MARK: Editing and search

    /// The transcript of the memo cut down to `range` (seconds): the segments that overlap it,
    /// clipped to it and moved so that `range.lowerBound` becomes 0. A segment that only
    /// touches the range at an end is dropped.
    public func cut(keeping range: Range<Double>) -> Transcript {
        Transcript(
            segments: segments.compactMap { segment in
                let overlaps = segment.end > range.lowerBound && segment.start < range.upperBound
                // A segment of no length counts where it stands.
                let isInstantInside = segment.start == segment.end && range.contains(segment.start)
                guard overlaps || isInstantInside else { return nil }
                return Segment(
                    start: max(segment.start, range.lowerBound) - range.lowerBound,
                    end: min(segment.end, range.upperBound) - range.lowerBound, text: segment.text)
            })
    }

    /// Where `query` first occurs, compared as `FindMemos` compares (case and accents
    /// ignored): the first segment holding it, and the matched words with `contextWords`
    /// words either side. Nil for an empty query or when no segment holds it.
    public func excerpt(matching query: SearchText, contextWords: Int = 4) -> Excerpt? {
        guard !query.isEmpty else { return nil }
        // Segments are folded whole to find the match, and only that one token by token.
        for segment in segments where SearchText(segment.text).contains(query) {
            if let text = Self.words(around: query, in: segment.text, contextWords: max(0, contextWords)) {
                return Excerpt(start: segment.start, text: text)
            }
        }
        return nil
    }

    /// The words of `text` around the first match of `query`, or nil without one.
    private static func words(around query: SearchText, in text: String, contextWords: Int) -> String? {
        // Folded token by token (words and the white space between them), so a match in the
        // folded bytes can be traced back to the words it covers.
        var folded: [UInt8] = []
        var words: [(text: Substring, folded: Range<Int>)] = []
        var rest = text[...]
        while !rest.isEmpty {
            let space = rest.prefix(while: \.isWhitespace)
            folded += SearchText(String(space)).utf8
            rest = rest.dropFirst(space.count)
            let word = rest.prefix { !$0.isWhitespace }
            guard !word.isEmpty else { break }
            let start = folded.count
            folded += SearchText(String(word)).utf8
            words.append((word, start..<folded.count))
            rest = rest.dropFirst(word.count)
        }
        guard let match = SearchText(utf8: folded).firstRange(of: query) else { return nil }
        // The first word ending after the match starts, the last starting before it ends; a
        // match of white space alone falls between them, and its neighbours are the context.
        let firstMatched = words.firstIndex { $0.folded.upperBound > match.lowerBound } ?? words.count
        let lastMatched = words.lastIndex { $0.folded.lowerBound < match.upperBound } ?? -1
        let first = max(0, firstMatched - contextWords)
        let last = min(words.count - 1, lastMatched + contextWords)
        guard first <= last else { return "" }
        return (first > 0 ? "…" : "") + words[first...last].map(\.text).joined(separator: " ")
            + (last < words.count - 1 ? "…" : "")
    }

    private static func isDigit(_ character: Character) -> Bool {
        ("0"..."9").contains(character)
    }

    /// `text` without white space (line breaks included) at either end.
    private static func trimmed(_ text: some StringProtocol) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
