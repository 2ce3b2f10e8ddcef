/// The 64-bit sizes of an RF64 file (EBU Tech 3306), kept in its `ds64` chunk, the first
/// after the header: an RF64 file's RIFF size, its `data` size and any other chunk's size
/// past 4 GiB read `0xFFFFFFFF` where a plain WAV has them, and are taken from here.
struct RF64Sizes: Equatable {
    /// The file's length less 8, as a plain WAV's RIFF size would say.
    var riffSize: Int64
    /// The length of the `data` chunk's body.
    var dataSize: Int64
    /// Frames in the `data` chunk (a `fact` chunk's count, 64 bits wide).
    var sampleCount: Int64
    /// The sizes of other chunks past 4 GiB, by id (libsndfile writes none).
    var table: [(id: [UInt8], size: Int64)] = []

    static let magic = Array("RF64".utf8)
    static let chunkID = Array("ds64".utf8)
    /// What a 32-bit size field holds when the real size is in the `ds64` chunk.
    static let placeholder = UInt32.max

    init(riffSize: Int64, dataSize: Int64, sampleCount: Int64, table: [(id: [UInt8], size: Int64)] = []) {
        self.riffSize = riffSize
        self.dataSize = dataSize
        self.sampleCount = sampleCount
        self.table = table
    }

    /// Reads the `ds64` chunk body `bytes`, which lie at `offset` in `file`.
    init(_ bytes: [UInt8], at offset: Int64, in file: InputFile) throws(TagEditError) {
        var reader = ByteReader(bytes, of: "the ds64 chunk at byte \(offset)", in: file)
        riffSize = try reader.readInt64LE()
        dataSize = try reader.readInt64LE()
        sampleCount = try reader.readInt64LE()
        let tableLength = try reader.readUInt32LE()
        guard Int(tableLength) <= reader.remaining / 12 else {
            throw reader.fail("its table claims \(tableLength) entries but holds \(reader.remaining / 12)")
        }
        for _ in 0..<tableLength {
            table.append((try reader.read(4), try reader.readInt64LE()))
        }
    }

    /// The size of the chunk `id` whose 32-bit size field reads `size`.
    func size(ofChunk id: [UInt8], declared size: UInt32) -> Int64? {
        guard size == Self.placeholder else { return Int64(size) }
        if id == Array("data".utf8) { return dataSize }
        return table.first { $0.id == id }?.size
    }

    /// The chunk body: the three sizes and the table.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        for value in [riffSize, dataSize, sampleCount] { out.appendUInt64LE(UInt64(value)) }
        out.appendUInt32LE(UInt32(table.count))
        for entry in table {
            out += entry.id
            out.appendUInt64LE(UInt64(entry.size))
        }
        return out
    }

    static func == (lhs: RF64Sizes, rhs: RF64Sizes) -> Bool {
        lhs.bytes == rhs.bytes
    }
}

extension ByteReader {
    /// The next 8 bytes as a little-endian integer; throws past `Int64.max`, which no file reaches.
    mutating func readInt64LE() throws(TagEditError) -> Int64 {
        let low = UInt64(try readUInt32LE())
        let high = UInt64(try readUInt32LE())
        guard let value = Int64(exactly: high << 32 | low) else { throw fail("a 64-bit size past any file's length") }
        return value
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as 8 little-endian bytes.
    mutating func appendUInt64LE(_ value: UInt64) {
        appendUInt32LE(UInt32(truncatingIfNeeded: value))
        appendUInt32LE(UInt32(truncatingIfNeeded: value >> 32))
    }
}
