/// A Vorbis comment structure (vendor string plus `NAME=value` fields), the tag format of
/// Ogg Vorbis, Ogg Opus and FLAC.
///
/// Only the fields of the tag being set are changed; the vendor string, every other field and their order, and
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

    /// The value of the first `field` field, if there is one.
    func value(of field: TagField) -> String? {
        let key = Self.key(field)
        return fields.first { Self.field($0, isNamed: key) }.map { decodeTagText($0.dropFirst(key.count)) }
    }

    /// The value of each field's first occurrence, for the fields that occur.
    func values() -> [TagField: String] {
        var values: [TagField: String] = [:]
        for field in TagField.allCases { values[field] = value(of: field) }
        return values
    }

    /// Replaces every `field` field by one holding `value` where the first one was (at the
    /// front if there was none), or removes them all when `value` is nil.
    mutating func setValue(_ value: String?, of field: TagField) {
        let key = Self.key(field)
        let position = fields.firstIndex { Self.field($0, isNamed: key) } ?? 0
        fields.removeAll { Self.field($0, isNamed: key) }
        if let value {
            fields.insert(key + Array(value.utf8), at: min(position, fields.count))
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

    /// `NAME=` for `field`.
    private static func key(_ field: TagField) -> [UInt8] {
        Array((field.vorbisName + "=").utf8)
    }

    /// Whether `field` starts with `key`: names are ASCII and compared case-insensitively.
    private static func field(_ field: [UInt8], isNamed key: [UInt8]) -> Bool {
        field.count >= key.count
            && zip(field, key).allSatisfy { ($0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0) == $1 }
    }
}
