/// Reads integers and byte runs from a tag structure held in memory, throwing instead of
/// trapping when a length field points past the end.
struct ByteReader {
    /// The bytes being read.
    let bytes: [UInt8]
    /// The index of the next unread byte.
    private(set) var offset = 0
    /// The file the bytes came from, for error messages.
    private let file: InputFile
    /// What the bytes are (for example "the Vorbis comment"), for error messages.
    private let what: String

    /// A reader over `bytes`, which are `what` in `file`.
    init(_ bytes: [UInt8], of what: String, in file: InputFile) {
        self.bytes = bytes
        self.file = file
        self.what = what
    }

    /// How many bytes are left.
    var remaining: Int { bytes.count - offset }

    /// The next `count` bytes; throws if fewer remain.
    mutating func read(_ count: Int) throws(TagEditError) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw file.malformed("\(what) needs \(count) bytes at offset \(offset) but only \(remaining) remain")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Everything not read yet.
    mutating func readRest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// The next byte.
    mutating func readUInt8() throws(TagEditError) -> UInt8 {
        try read(1)[0]
    }

    /// The next 4 bytes as a little-endian integer.
    mutating func readUInt32LE() throws(TagEditError) -> UInt32 {
        let b = try read(4)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    /// The next `count` (at most 4) bytes as a big-endian integer.
    mutating func readUIntBE(_ count: Int) throws(TagEditError) -> UInt32 {
        try read(count).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// An error about `what` with `detail`, for checks on values read.
    func fail(_ detail: String) -> TagEditError {
        file.malformed("\(what): \(detail)")
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as 4 little-endian bytes.
    mutating func appendUInt32LE(_ value: UInt32) {
        append(contentsOf: [
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24),
        ])
    }

    /// Appends the low `count` bytes of `value`, most significant first.
    mutating func appendUIntBE(_ value: UInt32, count: Int) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    /// Whether the array starts with the ASCII text `prefix`.
    func starts(withASCII prefix: String) -> Bool {
        starts(with: prefix.utf8)
    }
}

/// Decodes tag text that should be UTF-8; bytes that are not are read as Latin-1, which is
/// what older taggers meant by them.
func decodeTagText(_ bytes: some Collection<UInt8>) -> String {
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    return String(bytes.map { Character(Unicode.Scalar($0)) })
}
