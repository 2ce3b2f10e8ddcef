/// A Vorbis comment structure (vendor string plus `NAME=value` fields), the tag format of
/// Ogg Vorbis, Ogg Opus and FLAC.
///
/// Only `TITLE` fields are changed; the vendor string, every other field and their order, and
/// any bytes after the field list (Vorbis's framing bit, Opus's padding) are written back as read.
struct VorbisComment {
    /// The bytes before the vendor string (`\u{3}vorbis` or `OpusTags`; empty in FLAC).
    var magic: [UInt8]
    /// The encoder's name, kept as is.
    var vendor: [UInt8]
    /// Each field as stored, `NAME=value` in UTF-8.
    var fields: [[UInt8]]
    /// Whatever follows the fields.
    var trailer: [UInt8]

    /// A comment structure with the given parts.
    init(magic: [UInt8], vendor: [UInt8], fields: [[UInt8]], trailer: [UInt8]) {
        (self.magic, self.vendor, self.fields, self.trailer) = (magic, vendor, fields, trailer)
    }

    /// Parses `bytes`, which start with `magicLength` bytes of packet signature.
    init(parsing bytes: [UInt8], magicLength: Int, in file: InputFile) throws(TagEditError) {
        var reader = ByteReader(bytes, of: "the Vorbis comment", in: file)
        magic = try reader.read(magicLength)
        vendor = try reader.read(Int(reader.readUInt32LE()))
        let count = try reader.readUInt32LE()
        fields = []
        for _ in 0..<count {
            // Each field needs at least its 4 length bytes, so `count` cannot run away.
            fields.append(try reader.read(Int(reader.readUInt32LE())))
        }
        trailer = reader.readRest()
    }

    /// The value of the first `TITLE` field, if there is one.
    var title: String? {
        fields.first(where: Self.isTitle).map { decodeTagText($0.dropFirst(Self.titleKey.count)) }
    }

    /// Replaces every `TITLE` field by one holding `title` where the first one was (at the
    /// front if there was none), or removes them all when `title` is nil.
    mutating func setTitle(_ title: String?) {
        let position = fields.firstIndex(where: Self.isTitle) ?? 0
        fields.removeAll(where: Self.isTitle)
        if let title {
            fields.insert(Self.titleKey + Array(title.utf8), at: min(position, fields.count))
        }
    }

    /// The structure in its stored form.
    var bytes: [UInt8] {
        var out = magic
        out.appendUInt32LE(UInt32(vendor.count))
        out += vendor
        out.appendUInt32LE(UInt32(fields.count))
        for field in fields {
            out.appendUInt32LE(UInt32(field.count))
            out += field
        }
        return out + trailer
    }

    private static let titleKey = Array("TITLE=".utf8)

    /// Field names are ASCII and compared case-insensitively.
    private static func isTitle(_ field: [UInt8]) -> Bool {
        field.count >= titleKey.count
            && zip(field, titleKey).allSatisfy { ($0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0) == $1 }
    }
}
