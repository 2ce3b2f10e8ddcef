/// The tags in an MP3 file: the title is the ID3v2 `TIT2` frame at the start and the ID3v1
/// title field in the last 128 bytes if the file has an ID3v1 tag; the transcript is an ID3v2
/// `TXXX` frame described `TRANSCRIPT` (ID3v1 has no room for it).
///
/// libsndfile 1.2 writes MP3 through LAME, which stores short tags only as ID3v1 (title cut to
/// 30 bytes, date cut to the year) and adds an ID3v2.3 tag only when a value does not fit;
/// libsndfile reads the ID3v2 title first and falls back to ID3v1 field by field. Rewriting
/// therefore replaces (or creates) the field's frame, keeping every other frame byte for byte,
/// sets the ID3v1 title if there is an ID3v1 tag and the title is set, and copies the MPEG frames in between
/// (including LAME's Xing/Info frame) unchanged after checking that they are complete.
enum ID3Tags {
    /// The file's tags, each field that has one; the title from ID3v2, else from ID3v1.
    static func texts(in file: InputFile) throws(TagEditError) -> [TagField: String] {
        let tags = try Tags(of: file)
        var texts: [TagField: String] = [:]
        for field in TagField.allCases {
            if let v2 = tags.v2, let frame = v2.frames.first(where: { $0.holds(field, isVersion4: v2.version == 4) }) {
                texts[field] = frame.text(isVersion4: v2.version == 4)
            } else if field == .title, let v1 = tags.v1 {
                let title = v1[3..<33].prefix { $0 != 0 }
                if !title.isEmpty { texts[field] = decodeTagText(title) }
            }
        }
        return texts
    }

    /// Writes `file` to `output` with its `field` tag set to `text` (removed when nil).
    static func write(
        _ file: InputFile, setting field: TagField, to text: String?, into output: AtomicFileReplacement
    ) throws(TagEditError) {
        let tags = try Tags(of: file)
        let audio = try audioRange(of: file, between: tags.audioStart, and: tags.audioEnd)
        // A new tag is ID3v2.4, whose text frames may be UTF-8. It starts with what the ID3v1
        // tag holds: ffmpeg reads ID3v1 only when there is no ID3v2 tag, so players built on it
        // would otherwise lose the date and title that libsndfile left in ID3v1.
        var v2 =
            tags.v2
            ?? Version2Tag(
                version: 4, flags: 0, frames: tags.v1.map(Self.frames(copying:)) ?? [], hasFooter: false, size: 0)
        v2.setValue(text, of: field)
        if !v2.frames.isEmpty {
            // Room for the next edit, which is then made in place (see `inPlaceEdit`).
            try output.write(try v2.bytes(in: file, room: room))
        }
        try file.copy(audio, to: output)
        if var v1 = tags.v1 {
            if field == .title { setTitle(text, in: &v1) }
            try output.write(v1)
        }
    }

    /// The padding a new or outgrown ID3v2 tag gets after its frames: a title or a short
    /// transcript more is then written in place.
    static let room = 4096

    /// Sets the title field of an ID3v1 tag (cut to its 30 bytes; cleared when nil).
    static func setTitle(_ text: String?, in v1: inout [UInt8]) {
        let title = text.map { Self.truncated($0, toUTF8Bytes: 30) } ?? []
        v1.replaceSubrange(3..<33, with: title + [UInt8](repeating: 0, count: 30 - title.count))
    }

    /// ID3v2.4 frames holding the ID3v1 tag's title, artist, album, year and comment.
    private static func frames(copying v1: [UInt8]) -> [Frame] {
        let fields: [(id: String, range: Range<Int>)] = [
            ("TIT2", 3..<33), ("TPE1", 33..<63), ("TALB", 63..<93), ("TDRC", 93..<97), ("COMM", 97..<127),
        ]
        return fields.compactMap { field in
            // Unused bytes are NULs, or spaces in older taggers; ID3v1.1's track number follows a NUL.
            var bytes = v1[field.range].prefix { $0 != 0 }
            while bytes.last == 0x20 { bytes.removeLast() }
            guard !bytes.isEmpty else { return nil }
            let text = Array(decodeTagText(bytes).utf8)
            // A comment has a language and an empty description before its text.
            let body = field.id == "COMM" ? [3] + Array("eng".utf8) + [0] + text : [3] + text
            return Frame(id: Array(field.id.utf8), flags: [0, 0], body: body)
        }
    }

    private static let titleID = Array("TIT2".utf8)
    private static let userTextID = Array("TXXX".utf8)
    /// The `TXXX` description of the transcript frame.
    private static let transcriptDescription = "TRANSCRIPT"

    /// The first characters of `text` that fit in `limit` UTF-8 bytes, never splitting one.
    ///
    /// ID3v1 has no declared encoding; UTF-8 is what libsndfile (through LAME) stores there.
    private static func truncated(_ text: String, toUTF8Bytes limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for character in text {
            let encoded = Array(String(character).utf8)
            guard bytes.count + encoded.count <= limit else { break }
            bytes += encoded
        }
        return bytes
    }

    /// The ID3 tags of an MP3 file and where the MPEG frames between them lie.
    struct Tags {
        var v2: Version2Tag?
        var v1: [UInt8]?
        var audioStart: Int64
        var audioEnd: Int64

        init(of file: InputFile) throws(TagEditError) {
            v2 = try Version2Tag(at: 0, of: file)
            audioStart = v2.map { 10 + $0.size + ($0.hasFooter ? 10 : 0) } ?? 0
            audioEnd = file.size
            if file.size - audioStart >= 128 {
                let tail = try file.read(at: file.size - 128, count: 128)
                if tail.starts(withASCII: "TAG") {
                    v1 = tail
                    audioEnd -= 128
                }
            }
        }
    }

    /// Walks the MPEG frames from `start` to `end`, so a truncated or corrupt stream is refused
    /// rather than copied, and returns the range to copy (an APEv2 tag after the frames is kept).
    static func audioRange(of file: InputFile, between start: Int64, and end: Int64) throws(TagEditError)
        -> Range<Int64>
    {
        var offset = start
        var frames = 0
        // An hour holds some 150,000 frames: their headers are read a block at a time.
        var block: (start: Int64, bytes: [UInt8]) = (start, [])
        while offset < end {
            if offset + 4 > block.start + Int64(block.bytes.count) {
                block = (offset, try file.read(at: offset, upTo: 1 << 20))
            }
            let at = Int(offset - block.start)
            let header = Array(block.bytes[at..<min(at + 4, block.bytes.count)])
            guard header.count == 4, let length = frameLength(header) else {
                if frames > 0, try file.read(at: offset, upTo: 8) == Array("APETAGEX".utf8) { break }
                throw file.malformed("no MPEG layer III frame header at byte \(offset)")
            }
            guard Int64(length) <= end - offset else {
                throw file.malformed("the MPEG frame at byte \(offset) is cut off by the end of the audio")
            }
            offset += Int64(length)
            frames += 1
        }
        guard frames > 0 else { throw file.malformed("there are no MPEG frames") }
        return start..<end
    }

    /// The length in bytes of the MPEG layer III frame with this 4-byte header, or nil if it
    /// is not a valid header (free-format streams included, whose frames have no length).
    static func frameLength(_ header: [UInt8]) -> Int? {
        guard header.count >= 4, header[0] == 0xFF, header[1] & 0xE0 == 0xE0 else { return nil }
        let version = (header[1] >> 3) & 3  // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
        let layer = (header[1] >> 1) & 3  // 1: layer III
        let bitrateIndex = Int(header[2] >> 4)
        let rateIndex = Int((header[2] >> 2) & 3)
        guard version != 1, layer == 1, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let isVersion1 = version == 3
        let bitrates =
            isVersion1
            ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        let sampleRate = [44100, 48000, 32000][rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let padding = Int((header[2] >> 1) & 1)
        return (isVersion1 ? 144 : 72) * bitrates[bitrateIndex] * 1000 / sampleRate + padding
    }

    /// An ID3v2.3 or ID3v2.4 tag, parsed into frames (the extended header, which holds only
    /// optional checksums and restrictions, is dropped on rewrite).
    struct Version2Tag {
        var version: UInt8
        /// The header flags that are kept: experimental (0x20) and footer (0x10).
        var flags: UInt8
        var frames: [Frame]
        var hasFooter: Bool
        /// The size the header gave (frames, padding and extended header).
        var size: Int64

        init(version: UInt8, flags: UInt8, frames: [Frame], hasFooter: Bool, size: Int64) {
            (self.version, self.flags, self.frames, self.hasFooter, self.size) = (
                version, flags, frames, hasFooter, size
            )
        }

        /// Replaces the frame holding `field` with one holding `text` where it was (first when
        /// there was none), or removes it when `text` is nil.
        mutating func setValue(_ text: String?, of field: TagField) {
            let isVersion4 = version == 4
            let position = frames.firstIndex { $0.holds(field, isVersion4: isVersion4) } ?? 0
            frames.removeAll { $0.holds(field, isVersion4: isVersion4) }
            if let text {
                frames.insert(Frame(field, text: text, isVersion4: isVersion4), at: min(position, frames.count))
            }
        }

        /// Parses the tag at `offset`, or returns nil if there is none.
        init?(at offset: Int64, of file: InputFile) throws(TagEditError) {
            let header = try file.read(at: offset, upTo: 10)
            guard header.count == 10, header.starts(withASCII: "ID3") else { return nil }
            version = header[3]
            guard version == 3 || version == 4 else {
                throw TagEditError(
                    path: file.path,
                    message:
                        "ID3v2.\(version) tags are not supported (only 2.3 and 2.4); convert the tag with a tag editor first"
                )
            }
            guard let size = syncsafe(header[6..<10]) else {
                throw file.malformed("the ID3v2 tag size is not syncsafe")
            }
            let tagFlags = header[5]
            hasFooter = version == 4 && tagFlags & 0x10 != 0
            guard Int64(size) <= file.size - offset - 10 - (hasFooter ? 10 : 0) else {
                throw file.malformed("the ID3v2 tag claims \(size) bytes, past the end of the file")
            }
            self.size = Int64(size)
            flags = tagFlags & 0x30
            var body = try file.read(at: offset + 10, count: size)
            if version == 3, tagFlags & 0x80 != 0 { body = resynchronized(body) }
            var reader = ByteReader(body, of: "the ID3v2 tag", in: file)
            if tagFlags & 0x40 != 0 {
                let extendedSize = try reader.readUIntBE(4)
                if version == 3 {
                    _ = try reader.read(Int(extendedSize))
                } else {
                    guard let extendedSize = syncsafe(Self.bytes(extendedSize)), extendedSize >= 4 else {
                        throw reader.fail("bad extended header size")
                    }
                    _ = try reader.read(extendedSize - 4)
                }
            }
            frames = []
            while reader.remaining >= 10, reader.bytes[reader.offset] != 0 {
                let id = try reader.read(4)
                guard id.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }) else {
                    throw reader.fail("invalid frame id at offset \(reader.offset - 4)")
                }
                let rawSize = try reader.readUIntBE(4)
                guard let frameSize = version == 4 ? syncsafe(Self.bytes(rawSize)) : Int(rawSize) else {
                    throw reader.fail("frame size is not syncsafe")
                }
                let frameFlags = try reader.read(2)
                frames.append(Frame(id: id, flags: frameFlags, body: try reader.read(frameSize)))
            }
        }

        /// The tag as stored: header, frames, footer; the padding fills the old size when the
        /// frames fit in it, and is `room` bytes when they outgrow it (a tag with a footer has none).
        func bytes(in file: InputFile, room: Int = 0) throws(TagEditError) -> [UInt8] {
            var body = frameBytes
            if !hasFooter {
                let padded = Int64(body.count) <= size ? Int(size) : body.count + room
                body += [UInt8](repeating: 0, count: padded - body.count)
            }
            guard body.count < 1 << 28 else {
                throw TagEditError(path: file.path, message: "the ID3v2 tag would exceed its 256 MiB limit")
            }
            let header = Array("ID3".utf8) + [version, 0, flags] + Self.syncsafeBytes(body.count)
            let footer = hasFooter ? Array("3DI".utf8) + header[3...] : []
            return header + body + footer
        }

        /// The frames, each with its header, without padding.
        var frameBytes: [UInt8] {
            var body: [UInt8] = []
            for frame in frames {
                body += frame.id
                body.appendUIntBE(UInt32(frame.body.count), count: 4)
                if version == 4 {
                    body.replaceSubrange(body.count - 4..<body.count, with: Self.syncsafeBytes(frame.body.count))
                }
                body += frame.flags + frame.body
            }
            return body
        }

        private static func bytes(_ value: UInt32) -> [UInt8] {
            var out: [UInt8] = []
            out.appendUIntBE(value, count: 4)
            return out
        }

        static func syncsafeBytes(_ value: Int) -> [UInt8] {
            [21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) }
        }
    }

    /// One ID3v2 frame, kept as stored unless it is the one being set.
    struct Frame {
        var id: [UInt8]
        var flags: [UInt8]
        var body: [UInt8]

        init(id: [UInt8], flags: [UInt8], body: [UInt8]) {
            (self.id, self.flags, self.body) = (id, flags, body)
        }

        /// The frame holding `field`: `TIT2` with the title, or `TXXX` with the description
        /// `TRANSCRIPT` and the transcript; UTF-8 in ID3v2.4, UTF-16 with a byte order mark in
        /// ID3v2.3 (which has no UTF-8).
        init(_ field: TagField, text: String, isVersion4: Bool) {
            flags = [0, 0]
            let strings: [String]
            switch field {
            case .title: (id, strings) = (titleID, [text])
            case .transcript: (id, strings) = (userTextID, [transcriptDescription, text])
            }
            if isVersion4 {
                // Strings are NUL-terminated but the last, which may be (TXXX's value is not).
                body = [3] + Array(strings.map { Array($0.utf8) }.joined(separator: [0]))
            } else {
                body = [1]
                for (index, string) in strings.enumerated() {
                    if index > 0 { body += [0, 0] }
                    body += [0xFF, 0xFE]
                    for unit in string.utf16 { body += [UInt8(truncatingIfNeeded: unit), UInt8(unit >> 8)] }
                }
            }
        }

        /// Whether this frame holds `field`: a `TIT2` frame, or a `TXXX` frame whose
        /// description is `TRANSCRIPT` (in any case).
        func holds(_ field: TagField, isVersion4: Bool) -> Bool {
            switch field {
            case .title: return id == titleID
            case .transcript:
                guard id == userTextID, let description = strings(isVersion4: isVersion4)?.first else { return false }
                return description.uppercased() == transcriptDescription
            }
        }

        /// The frame's value: the first string of a text frame, the second (after the
        /// description) of a `TXXX` frame; nil if it is compressed or encrypted.
        func text(isVersion4: Bool) -> String? {
            let values = strings(isVersion4: isVersion4)
            return id == userTextID ? values?.dropFirst().first : values?.first
        }

        /// The NUL-separated strings of a text frame, or nil if it is compressed or encrypted.
        private func strings(isVersion4: Bool) -> [String]? {
            var body = body[...]
            if isVersion4 {
                // Format flags: grouping 0x40, compression 0x08, encryption 0x04, unsync 0x02, length 0x01.
                if flags[1] & 0x0C != 0 { return nil }
                if flags[1] & 0x40 != 0 { body = body.dropFirst(1) }
                if flags[1] & 0x01 != 0 { body = body.dropFirst(4) }
                if flags[1] & 0x02 != 0 { body = resynchronized(body)[...] }
            } else {
                // Format flags: compression 0x80, encryption 0x40, grouping 0x20.
                if flags[1] & 0xC0 != 0 { return nil }
                if flags[1] & 0x20 != 0 { body = body.dropFirst(1) }
            }
            guard let encoding = body.first else { return nil }
            let text = body.dropFirst()
            switch encoding {
            case 1, 2:
                let units: [UInt16] = stride(from: text.startIndex, to: text.endIndex - 1, by: 2).map {
                    UInt16(text[$0]) | UInt16(text[$0 + 1]) << 8
                }
                // Each string has its own byte order mark; without one, encoding 2 is big-endian.
                return units.split(separator: 0, omittingEmptySubsequences: false).map { string in
                    var string = Array(string)
                    var bigEndian = encoding == 2
                    if let mark = string.first, mark == 0xFEFF || mark == 0xFFFE {
                        bigEndian = mark == 0xFFFE
                        string.removeFirst()
                    }
                    if bigEndian { string = string.map(\.byteSwapped) }
                    return String(decoding: string, as: UTF16.self)
                }
            case 3:
                return text.split(separator: 0, omittingEmptySubsequences: false).map {
                    String(decoding: $0, as: UTF8.self)
                }
            // Latin-1 by the standard, but libsndfile stores UTF-8 here, so that is tried first.
            default: return text.split(separator: 0, omittingEmptySubsequences: false).map(decodeTagText)
            }
        }
    }
}

/// A 28-bit ID3v2 "syncsafe" integer (7 bits per byte), or nil if a high bit is set.
private func syncsafe(_ bytes: some Collection<UInt8>) -> Int? {
    guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
    return bytes.reduce(0) { $0 << 7 | Int($1) }
}

/// Undoes ID3v2 unsynchronisation (0xFF 0x00 back to 0xFF).
private func resynchronized(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    var previous: UInt8 = 0
    for byte in bytes {
        if !(byte == 0 && previous == 0xFF) { out.append(byte) }
        previous = byte
    }
    return out
}
