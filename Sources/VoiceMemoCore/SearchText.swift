// The standard library's own canonical decomposition: FoundationEssentials has none, and
// FoundationInternationalization would bring ICU's megabytes into an idle daemon.
@_spi(_Unicode) import Swift

#if canImport(Glibc)
    import Glibc
#endif

/// Text as `FindMemos` compares it: decomposed (NFD), combining marks removed and case
/// folded, so "muller" and "MÜLLER" both find "Réunion Müller". Held as UTF-8 bytes: a
/// search of ten thousand memos is then a byte scan each, and UTF-8 being self-synchronising,
/// a match of whole folded text can only start on a character.
public struct SearchText: Equatable, Sendable {
    public let utf8: [UInt8]

    public init(_ text: String) {
        // Titles and file names are mostly ASCII: folding those is lowercasing their bytes.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            utf8 = text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        // Upper- then lowercasing approximates full case folding ("ß" → "ss", "ﬁ" → "fi"),
        // and comes first because it can bring marks back ("İ" → "i" and a dot above).
        for scalar in text.uppercased().lowercased()._nfd {
            switch scalar.properties.generalCategory {
            // Diacritics only: spacing marks are vowel signs in Indic scripts, not accents.
            case .nonspacingMark, .enclosingMark: continue
            default: UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        utf8 = bytes
    }

    /// Text already folded, such as the pieces of several folded together.
    public init(utf8: [UInt8]) {
        self.utf8 = utf8
    }

    public var isEmpty: Bool { utf8.isEmpty }

    /// Whether `other` occurs in this text.
    public func contains(_ other: SearchText) -> Bool {
        firstRange(of: other) != nil
    }

    /// Where `other` first occurs in this text, as offsets into `utf8`.
    public func firstRange(of other: SearchText) -> Range<Int>? {
        guard !other.isEmpty else { return 0..<0 }
        guard other.utf8.count <= utf8.count else { return nil }
        return utf8.withUnsafeBufferPointer { haystack in
            other.utf8.withUnsafeBufferPointer { needle in
                let first = needle[0]
                for start in 0...(haystack.count - needle.count)
                where haystack[start] == first
                    && memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0
                {
                    return start..<start + needle.count
                }
                return nil
            }
        }
    }
}
