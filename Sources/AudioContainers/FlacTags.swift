/// The tags in a native FLAC file: fields of the VORBIS_COMMENT metadata block (`TITLE`,
/// `TRANSCRIPT`).
///
/// The file is `fLaC`, then metadata blocks (STREAMINFO first, the last one flagged), then
/// audio frames. Rewriting replaces or inserts the comment block, copies every other block
/// byte for byte (from the file, so large pictures are never held in memory) and then copies
/// the frames unchanged. Where the comments fit in the room of the old block and the padding
/// after it, they are rewritten there instead (`inPlaceEdit`).
enum FlacTags {
    /// The file's tags, each field that has one.
    static func texts(in file: InputFile) throws(TagEditError) -> [TagField: String] {
        let layout = try Layout(of: file)
        guard let block = layout.blocks.first(where: { $0.type == commentType }) else { return [:] }
        return try comment(in: block, of: file).values()
    }

    /// Writes `file` to `output` with its `field` tag set to `text` (removed when nil).
    static func write(
        _ file: InputFile, setting field: TagField, to text: String?, into output: AtomicFileReplacement
    ) throws(TagEditError) {
        let layout = try Layout(of: file)
        var blocks = layout.blocks.map { (type: $0.type, content: Content.copy($0.range)) }
        if let index = layout.blocks.firstIndex(where: { $0.type == commentType }) {
            var comment = try comment(in: layout.blocks[index], of: file)
            comment.setValue(text, of: field)
            blocks[index].content = .new(comment.bytes)
        } else if let text {
            // Vorbis comments in FLAC must carry a vendor string; name ourselves, as encoders do.
            var comment = VorbisComment(magic: [], vendor: Array("voicememo".utf8), fields: [], trailer: [])
            comment.setValue(text, of: field)
            blocks.insert((commentType, .new(comment.bytes)), at: 1)
        }

        if !layout.blocks.contains(where: { $0.type == paddingType }),
            let index = blocks.firstIndex(where: { $0.type == commentType })
        {
            // Room for the next edit to happen in place (libsndfile writes no padding).
            blocks.insert((paddingType, .new([UInt8](repeating: 0, count: addedPadding))), at: index + 1)
        }
        try output.write(Array("fLaC".utf8))
        for (index, block) in blocks.enumerated() {
            let length: Int64
            switch block.content {
            case .copy(let range): length = Int64(range.count)
            case .new(let bytes): length = Int64(bytes.count)
            }
            guard length < 1 << 24 else {
                throw TagEditError(
                    path: file.path, message: "the tags are too long for a FLAC comment block (16 MiB at most)")
            }
            let last: UInt8 = index == blocks.count - 1 ? 0x80 : 0
            var header = [last | block.type]
            header.appendUIntBE(UInt32(length), count: 3)
            try output.write(header)
            switch block.content {
            case .copy(let range): try file.copy(range, to: output)
            case .new(let bytes): try output.write(bytes)
            }
        }
        try file.copy(layout.audioStart..<file.size, to: output)
    }

    /// Where a block of the new file comes from.
    private enum Content {
        /// These bytes of the original file.
        case copy(Range<Int64>)
        /// New bytes (the rewritten comment).
        case new([UInt8])
    }

    static let commentType: UInt8 = 4
    /// The PADDING block a whole rewrite adds to a file that has none: titles and a short
    /// transcript then change in place (`inPlaceEdit`), as after `flac`, which leaves 8 KiB.
    static let addedPadding = 8192

    /// One metadata block: its type and where its body lies in the file.
    struct Block {
        var type: UInt8
        var range: Range<Int64>
    }

    /// The metadata blocks of a FLAC file and where its frames begin.
    struct Layout {
        var blocks: [Block] = []
        var audioStart: Int64

        /// Walks the block headers, checking each length against the file's size.
        init(of file: InputFile) throws(TagEditError) {
            guard try file.read(at: 0, upTo: 4) == Array("fLaC".utf8) else {
                throw file.malformed("it does not start with the FLAC signature \"fLaC\"")
            }
            var offset: Int64 = 4
            var isLast = false
            while !isLast {
                var header = ByteReader(try file.read(at: offset, count: 4), of: "a FLAC block header", in: file)
                let flagAndType = try header.readUInt8()
                let length = Int64(try header.readUIntBE(3))
                isLast = flagAndType & 0x80 != 0
                let type = flagAndType & 0x7F
                guard type != 127 else { throw file.malformed("invalid metadata block type 127 at byte \(offset)") }
                guard length <= file.size - offset - 4 else {
                    throw file.malformed(
                        "the metadata block at byte \(offset) claims \(length) bytes, past the end of the file")
                }
                if blocks.isEmpty, type != 0 || length != 34 {
                    throw file.malformed("the first metadata block is not a STREAMINFO block")
                }
                blocks.append(Block(type: type, range: offset + 4..<offset + 4 + length))
                offset += 4 + length
            }
            audioStart = offset
            let sync = try file.read(at: offset, upTo: 2)
            guard sync.isEmpty || (sync.count == 2 && sync[0] == 0xFF && sync[1] & 0xFE == 0xF8) else {
                throw file.malformed("no FLAC frame follows the metadata at byte \(offset)")
            }
        }
    }

    static func comment(in block: Block, of file: InputFile) throws(TagEditError) -> VorbisComment {
        let bytes = try file.read(at: block.range.lowerBound, count: Int(block.range.count))
        return try VorbisComment(parsing: bytes, magicLength: 0, in: file)
    }
}
