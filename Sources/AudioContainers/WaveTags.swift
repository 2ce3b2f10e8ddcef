/// The title in a RIFF WAVE file: the `INAM` entry of a `LIST` chunk of type `INFO`.
///
/// libsndfile writes its `LIST`/`INFO` chunk before `data` when the tags are set before the
/// first frame, and after `data` otherwise; both are handled. Rewriting copies every other
/// chunk (including `data`) byte for byte, rebuilds the first `INFO` list with the new `INAM`
/// (dropping `INAM` entries from any further `INFO` lists), keeps every chunk at an even
/// offset with a pad byte after odd-sized ones, and recomputes the RIFF size.
enum WaveTags {
    /// The file's title, if it has one.
    static func title(of file: InputFile) throws(TagEditError) -> String? {
        for chunk in try chunks(of: file).chunks where chunk.id == Self.list {
            if let info = try InfoList(chunk, of: file), let name = info.entries.first(where: { $0.id == titleID }) {
                var text = name.data[...]
                while text.last == 0 { text.removeLast() }
                return decodeTagText(text)
            }
        }
        return nil
    }

    /// Writes `file` to `output` with its title replaced by `title` (removed when nil).
    static func write(
        _ file: InputFile, replacingTitleWith title: String?, to output: AtomicFileReplacement
    ) throws(TagEditError) {
        let (chunks, riffEnd) = try chunks(of: file)
        var title = title
        // Each chunk becomes either a copy of its source bytes or new bytes.
        var parts: [(id: [UInt8], source: Chunk?, body: [UInt8])] = []
        for chunk in chunks {
            guard chunk.id == Self.list, var info = try InfoList(chunk, of: file) else {
                parts.append((chunk.id, chunk, []))
                continue
            }
            let position = info.entries.firstIndex { $0.id == titleID } ?? 0
            info.entries.removeAll { $0.id == titleID }
            if let newTitle = title {
                info.entries.insert((titleID, Array(newTitle.utf8) + [0]), at: min(position, info.entries.count))
                title = nil
            }
            if !info.entries.isEmpty { parts.append((chunk.id, nil, info.bytes)) }
        }
        if let title {
            // No INFO list yet: put one before `data`, where libsndfile puts it.
            let list = InfoList(entries: [(titleID, Array(title.utf8) + [0])])
            let index = parts.firstIndex { $0.id == Self.data } ?? parts.count
            parts.insert((Self.list, nil, list.bytes), at: index)
        }

        let lengths = parts.map { $0.source.map { Int64($0.range.count) } ?? Int64($0.body.count) }
        let riffSize = lengths.reduce(Int64(4)) { $0 + 8 + $1 + $1 % 2 }
        guard riffSize <= Int64(UInt32.max) else {
            throw TagEditError(path: file.path, message: "the file would grow past the 4 GiB limit of WAV")
        }
        var header = Array("RIFF".utf8)
        header.appendUInt32LE(UInt32(riffSize))
        header += Array("WAVE".utf8)
        try output.write(header)
        for (part, length) in zip(parts, lengths) {
            var chunkHeader = part.id
            chunkHeader.appendUInt32LE(UInt32(length))
            try output.write(chunkHeader)
            if let source = part.source {
                try file.copy(source.range, to: output)
            } else {
                try output.write(part.body)
            }
            if length % 2 == 1 { try output.write([0]) }
        }
        // Anything after the RIFF chunk is not ours to judge; it is kept.
        try file.copy(riffEnd..<file.size, to: output)
    }

    private static let titleID = Array("INAM".utf8)
    private static let list = Array("LIST".utf8)
    private static let data = Array("data".utf8)

    /// A top-level chunk: its four-character id and where its body lies in the file.
    private struct Chunk {
        var id: [UInt8]
        var range: Range<Int64>
    }

    /// The chunks inside the RIFF WAVE chunk, each length checked against the file's size,
    /// and the offset where the RIFF chunk ends.
    private static func chunks(of file: InputFile) throws(TagEditError) -> (chunks: [Chunk], end: Int64) {
        var header = ByteReader(try file.read(at: 0, upTo: 12), of: "the RIFF header", in: file)
        let magic = try header.read(4)
        if magic == Array("RF64".utf8) {
            throw TagEditError(path: file.path, message: "RF64 (WAV larger than 4 GiB) files are not supported")
        }
        let riffSize = Int64(try header.readUInt32LE())
        guard magic == Array("RIFF".utf8), try header.read(4) == Array("WAVE".utf8) else {
            throw file.malformed("it does not start with a RIFF WAVE header")
        }
        guard riffSize <= file.size - 8 else {
            throw file.malformed("the RIFF header claims \(riffSize + 8) bytes but the file has \(file.size)")
        }
        let end = 8 + riffSize
        var chunks: [Chunk] = []
        var offset: Int64 = 12
        while end - offset >= 8 {
            var chunkHeader = ByteReader(try file.read(at: offset, count: 8), of: "a RIFF chunk header", in: file)
            let id = try chunkHeader.read(4)
            let size = Int64(try chunkHeader.readUInt32LE())
            guard size <= end - offset - 8 else {
                throw file.malformed(
                    "the \"\(decodeTagText(id))\" chunk at byte \(offset) claims \(size) bytes, past the end of the RIFF data"
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
        return (chunks, end)
    }

    /// The entries of a `LIST` chunk of type `INFO`, such as `INAM` (title), `ICRD` (date) and
    /// `ISFT` (software).
    private struct InfoList {
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
