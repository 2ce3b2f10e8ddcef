/// The tags in a RIFF WAVE file: entries of a `LIST` chunk of type `INFO` (`INAM` for the
/// title, `ITRS` for the transcript), each NUL-terminated UTF-8 padded to an even length.
///
/// libsndfile writes its `LIST`/`INFO` chunk before `data` when the tags are set before the
/// first frame, and after `data` otherwise; both are handled. Rewriting copies every other
/// chunk (including `data`) byte for byte, rebuilds the first `INFO` list with the new entry
/// (dropping that entry from any further `INFO` lists), keeps every chunk at an even
/// offset with a pad byte after odd-sized ones, and recomputes the RIFF size.
///
/// A WAV memo past 4 GiB is RF64 (`RF64Sizes`): its sizes live in a `ds64` chunk, which is
/// rewritten with them; under 4 GiB libsndfile writes it as a plain WAV with a `JUNK` chunk
/// where `ds64` would go, which is copied like any other chunk.
enum WaveTags {
    /// The file's tags, each field that has one: its first entry in the `INFO` lists. A list
    /// that cannot be read throws only if no field was found before it, so a field is read
    /// as it was when each was read alone (from the lists up to its own).
    static func texts(in file: InputFile) throws(TagEditError) -> [TagField: String] {
        var texts: [TagField: String] = [:]
        for chunk in try chunks(of: file).chunks where chunk.id == Self.list {
            let info: InfoList?
            do {
                info = try InfoList(chunk, of: file)
            } catch _ where !texts.isEmpty {
                break
            }
            guard let info else { continue }
            for field in TagField.allCases where texts[field] == nil {
                guard let entry = info.entries.first(where: { $0.id == field.infoID }) else { continue }
                var text = entry.data[...]
                while text.last == 0 { text.removeLast() }
                texts[field] = decodeTagText(text)
            }
            if texts.count == TagField.allCases.count { break }
        }
        return texts
    }

    /// Writes `file` to `output` with its `field` tag set to `text` (removed when nil).
    static func write(
        _ file: InputFile, setting field: TagField, to text: String?, into output: AtomicFileReplacement
    ) throws(TagEditError) {
        let layout = try chunks(of: file)
        let id = field.infoID
        var text = text
        // Each chunk becomes either a copy of its source bytes or new bytes.
        var parts: [(id: [UInt8], source: Chunk?, body: [UInt8])] = []
        for chunk in layout.chunks {
            guard chunk.id == Self.list, var info = try InfoList(chunk, of: file) else {
                parts.append((chunk.id, chunk, []))
                continue
            }
            let position = info.entries.firstIndex { $0.id == id } ?? 0
            info.entries.removeAll { $0.id == id }
            if let newText = text {
                info.entries.insert((id, Array(newText.utf8) + [0]), at: min(position, info.entries.count))
                text = nil
            }
            if !info.entries.isEmpty { parts.append((chunk.id, nil, info.bytes)) }
        }
        if let text {
            // No INFO list yet: put one before `data`, where libsndfile puts it.
            let list = InfoList(entries: [(id, Array(text.utf8) + [0])])
            let index = parts.firstIndex { $0.id == Self.data } ?? parts.count
            parts.insert((Self.list, nil, list.bytes), at: index)
        }

        try write(parts, of: file, layout: layout, to: output)
    }

    /// A chunk of a new file: a copy of a chunk of the file being rewritten, or new bytes.
    typealias Part = (id: [UInt8], source: Chunk?, body: [UInt8])

    /// Writes `parts` as the chunks of a new WAVE file to `output`, the sources read from
    /// `file` (laid out as `layout`): a RIFF header with the sizes, or RF64 with a `ds64`
    /// chunk when the file was RF64 or grows past 4 GiB.
    static func write(
        _ parts: [Part], of file: InputFile, layout: Layout, to output: AtomicFileReplacement
    ) throws(TagEditError) {
        var parts = parts
        func length(_ part: (id: [UInt8], source: Chunk?, body: [UInt8])) -> Int64 {
            part.source.map { Int64($0.range.count) } ?? Int64(part.body.count)
        }
        func riffSize() -> Int64 { parts.reduce(Int64(4)) { $0 + 8 + length($1) + length($1) % 2 } }
        // An RF64 file stays one; a plain WAV becomes one only if the new tag takes it past
        // 4 GiB, and then its ds64 chunk takes the place of libsndfile's JUNK placeholder.
        var sizes = layout.sizes
        if sizes == nil, riffSize() > Int64(UInt32.max) {
            if parts.first?.id == Self.junk { parts.removeFirst() }
            sizes = RF64Sizes(riffSize: 0, dataSize: 0, sampleCount: try layout.frameCount(in: file))
        }
        var header: [UInt8]
        if var sizes {
            let data = parts.first { $0.id == Self.data }.map(length) ?? 0
            sizes.dataSize = data
            sizes.table = parts.filter { $0.id != Self.data && length($0) > Int64(UInt32.max) }.map {
                ($0.id, length($0))
            }
            sizes.riffSize = riffSize() + 8 + Int64(sizes.bytes.count)
            header = RF64Sizes.magic
            header.appendUInt32LE(RF64Sizes.placeholder)
            header += Array("WAVE".utf8) + RF64Sizes.chunkID
            header.appendUInt32LE(UInt32(sizes.bytes.count))
            header += sizes.bytes
        } else {
            header = Array("RIFF".utf8)
            header.appendUInt32LE(UInt32(riffSize()))
            header += Array("WAVE".utf8)
        }
        try output.write(header)
        for part in parts {
            let length = length(part)
            var chunkHeader = part.id
            // In RF64, `data` always reads the placeholder, as libsndfile writes it.
            let isPlaceholder = length > Int64(UInt32.max) || (sizes != nil && part.id == Self.data)
            chunkHeader.appendUInt32LE(isPlaceholder ? RF64Sizes.placeholder : UInt32(length))
            try output.write(chunkHeader)
            if let source = part.source {
                try file.copy(source.range, to: output)
            } else {
                try output.write(part.body)
            }
            if length % 2 == 1 { try output.write([0]) }
        }
        // Anything after the RIFF chunk is not ours to judge; it is kept.
        try file.copy(layout.end..<file.size, to: output)
    }

    static let list = Array("LIST".utf8)
    static let data = Array("data".utf8)
    static let junk = Array("JUNK".utf8)

    /// A top-level chunk: its four-character id and where its body lies in the file.
    struct Chunk {
        var id: [UInt8]
        var range: Range<Int64>
    }

    /// A WAVE file's chunks, and its 64-bit sizes when it is RF64.
    struct Layout {
        /// Every chunk inside the RIFF (or RF64) chunk but `ds64`, in file order.
        var chunks: [Chunk]
        /// Where the RIFF chunk ends.
        var end: Int64
        /// The `ds64` chunk's sizes, for an RF64 file.
        var sizes: RF64Sizes?

        /// Frames in `data`, from the format's block size: for a plain WAV about to become RF64.
        func frameCount(in file: InputFile) throws(TagEditError) -> Int64 {
            guard let format = chunks.first(where: { $0.id == Array("fmt ".utf8) }), format.range.count >= 16,
                let data = chunks.first(where: { $0.id == WaveTags.data })
            else { return 0 }
            let blockAlign = try file.read(at: format.range.lowerBound + 12, count: 2)
            return Int64(data.range.count) / max(1, Int64(blockAlign[0]) | Int64(blockAlign[1]) << 8)
        }
    }

    /// The chunks inside the RIFF WAVE (or RF64 WAVE) chunk, each length checked against the
    /// file's size, and the offset where that chunk ends.
    static func chunks(of file: InputFile) throws(TagEditError) -> Layout {
        var header = ByteReader(try file.read(at: 0, upTo: 12), of: "the RIFF header", in: file)
        let magic = try header.read(4)
        let riffSize32 = try header.readUInt32LE()
        guard magic == Array("RIFF".utf8) || magic == RF64Sizes.magic, try header.read(4) == Array("WAVE".utf8) else {
            throw file.malformed("it does not start with a RIFF WAVE or RF64 WAVE header")
        }
        var offset: Int64 = 12
        var sizes: RF64Sizes?
        var riffSize = Int64(riffSize32)
        if magic == RF64Sizes.magic {
            // The ds64 chunk comes first and holds the sizes the 32-bit fields cannot.
            var chunkHeader = ByteReader(try file.read(at: offset, upTo: 8), of: "the ds64 chunk header", in: file)
            let id = try chunkHeader.read(4)
            let size = Int64(try chunkHeader.readUInt32LE())
            guard id == RF64Sizes.chunkID, size >= 28 else { throw file.malformed("its RF64 header has no ds64 chunk") }
            let found = try RF64Sizes(try file.read(at: offset + 8, count: Int(size)), at: offset, in: file)
            sizes = found
            riffSize = found.riffSize
            offset += 8 + size + size % 2
        }
        guard riffSize <= file.size - 8 else {
            // (Not riffSize + 8: a corrupt ds64 chunk may hold any 63-bit size.)
            throw file.malformed(
                "the RIFF header claims \(riffSize) bytes after its first 8, but the file has \(file.size)")
        }
        let end = 8 + riffSize
        var chunks: [Chunk] = []
        while end - offset >= 8 {
            var chunkHeader = ByteReader(try file.read(at: offset, count: 8), of: "a RIFF chunk header", in: file)
            let id = try chunkHeader.read(4)
            let declared = try chunkHeader.readUInt32LE()
            guard let size = sizes.map({ $0.size(ofChunk: id, declared: declared) }) ?? Int64(declared),
                size <= end - offset - 8
            else {
                throw file.malformed(
                    "the \"\(decodeTagText(id))\" chunk at byte \(offset) claims \(declared) bytes, past the end of the RIFF data"
                )
            }
            chunks.append(Chunk(id: id, range: offset + 8..<offset + 8 + size))
            // The pad byte after an odd-sized chunk may be missing at the very end.
            offset = min(offset + 8 + size + size % 2, end)
        }
        guard offset == end else { throw file.malformed("\(end - offset) stray bytes at the end of the RIFF data") }
        guard chunks.contains(where: { $0.id == Array("fmt ".utf8) }), chunks.contains(where: { $0.id == data }) else {
            throw file.malformed("the WAVE data has no \"fmt \" or no \"data\" chunk")
        }
        return Layout(chunks: chunks, end: end, sizes: sizes)
    }

    /// The entries of a `LIST` chunk of type `INFO`, such as `INAM` (title), `ICRD` (date) and
    /// `ISFT` (software).
    struct InfoList {
        var entries: [(id: [UInt8], data: [UInt8])]

        init(entries: [(id: [UInt8], data: [UInt8])]) {
            self.entries = entries
        }

        /// Parses `chunk`, or returns nil when it is a `LIST` of another type (such as `adtl`).
        init?(_ chunk: Chunk, of file: InputFile) throws(TagEditError) {
            let body = try file.read(at: chunk.range.lowerBound, count: Int(chunk.range.count))
            var reader = ByteReader(body, of: "the LIST chunk at byte \(chunk.range.lowerBound - 8)", in: file)
            guard body.count >= 4, try reader.read(4) == Array("INFO".utf8) else { return nil }
            entries = []
            while reader.remaining >= 8 {
                let id = try reader.read(4)
                let size = Int(try reader.readUInt32LE())
                entries.append((id, try reader.read(size)))
                if size % 2 == 1, reader.remaining > 0 { _ = try reader.read(1) }
            }
            guard reader.remaining == 0 else { throw reader.fail("\(reader.remaining) stray bytes after its entries") }
        }

        /// The chunk body: `INFO` and the entries, each padded to an even length.
        var bytes: [UInt8] {
            var out = Array("INFO".utf8)
            for entry in entries {
                out += entry.id
                out.appendUInt32LE(UInt32(entry.data.count))
                out += entry.data
                if entry.data.count % 2 == 1 { out.append(0) }
            }
            return out
        }
    }
}
