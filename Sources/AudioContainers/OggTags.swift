/// The tags in an Ogg Opus or Ogg Vorbis file: fields of the comment header packet (`TITLE`,
/// `TRANSCRIPT`).
///
/// An Ogg stream is a sequence of pages, each carrying segments of packets (a packet is split
/// into 255-byte segments and ends with a shorter one, possibly of length 0). The first page
/// holds only the identification header; the comment header (and, for Vorbis, the setup
/// header) follow, and audio starts on a fresh page. Rewriting reassembles the header packets,
/// replaces the field in the comment packet, lays the header packets out on new pages, and then
/// copies every audio page byte for byte except its sequence number (shifted by the change in
/// the number of header pages) and its CRC. Granule positions are unchanged.
enum OggTags {
    /// The file's tags, each field that has one.
    static func texts(in file: InputFile) throws(TagEditError) -> [TagField: String] {
        try Headers(of: file).comment(in: file).values()
    }

    /// Writes `file` to `output` with its `field` tag set to `text` (removed when nil).
    static func write(
        _ file: InputFile, setting field: TagField, to text: String?, into output: AtomicFileReplacement
    ) throws(TagEditError) {
        let headers = try Headers(of: file)
        var comment = try headers.comment(in: file)
        comment.setValue(text, of: field)
        var packets = headers.packets
        packets[1] = comment.bytes

        try write(file, headers: headers, packets: packets, to: output)
    }

    /// Writes the stream of `file`, whose header packets `headers` has read, to `output` with
    /// `packets` as its header packets: new header pages, then every audio page renumbered.
    static func write(
        _ file: InputFile, headers: Headers, packets: [[UInt8]], to output: AtomicFileReplacement
    ) throws(TagEditError) {
        // The identification header alone on the first page, then the others.
        var pages = [OggPage(flags: 0x02, granule: 0, serial: headers.serial, sequence: 0, lacing: [], body: [])]
        pages[0].append(packet: packets[0])
        pages += paginate(Array(packets[1...]), serial: headers.serial, firstSequence: 1)
        if headers.endsStream { pages[pages.count - 1].flags |= 0x04 }
        for page in pages { try output.write(page.bytes) }

        let shift = UInt32(truncatingIfNeeded: pages.count - headers.pageCount)
        var offset = headers.audioStart
        while offset < file.size {
            var page = try OggPage(at: offset, of: file)
            guard page.serial == headers.serial, page.flags & 0x02 == 0 else {
                throw TagEditError(
                    path: file.path,
                    message: "the Ogg file holds more than one logical stream (byte \(offset)), which is not supported")
            }
            offset += Int64(page.length)
            page.sequence &+= shift
            try output.write(page.bytes)
        }
    }

    /// Lays `packets` out on pages of at most 255 segments, starting each packet right after
    /// the previous one; a page on which no packet ends gets granule position -1, as the
    /// specification requires, and the others 0, as header pages have.
    static func paginate(_ packets: [[UInt8]], serial: UInt32, firstSequence: UInt32) -> [OggPage] {
        var pages: [OggPage] = []
        var page = OggPage(flags: 0, granule: UInt64.max, serial: serial, sequence: firstSequence, lacing: [], body: [])
        for packet in packets {
            var start = 0
            // A packet of n bytes takes n / 255 full segments and one shorter (maybe empty) one.
            while true {
                if page.lacing.count == 255 {
                    let continues = page.lacing.last == 255
                    pages.append(page)
                    page = OggPage(
                        flags: continues ? 0x01 : 0, granule: UInt64.max, serial: serial,
                        sequence: page.sequence + 1, lacing: [], body: [])
                }
                let count = min(255, packet.count - start)
                page.lacing.append(UInt8(count))
                page.body += packet[start..<start + count]
                start += count
                if count < 255 {
                    page.granule = 0
                    break
                }
            }
        }
        pages.append(page)
        return pages
    }

    /// The header packets of the stream and where its audio pages begin.
    struct Headers {
        /// Identification, comment and (Vorbis only) setup header.
        var packets: [[UInt8]] = []
        var serial: UInt32 = 0
        var isOpus = false
        /// How many pages the header packets take in the file.
        var pageCount = 0
        var audioStart: Int64 = 0
        /// Whether the last header page ends the stream (a stream without audio).
        var endsStream = false

        init(of file: InputFile) throws(TagEditError) {
            var needed = 1
            var partial: [UInt8] = []
            var offset: Int64 = 0
            while packets.count < needed {
                let page = try OggPage(at: offset, of: file)
                if pageCount == 0 {
                    guard page.flags & 0x02 != 0 else {
                        throw file.malformed("the first Ogg page does not begin a stream")
                    }
                    serial = page.serial
                } else if page.serial != serial || page.flags & 0x02 != 0 {
                    throw TagEditError(
                        path: file.path,
                        message:
                            "the Ogg file interleaves several logical streams (byte \(offset)), which is not supported")
                }
                guard (page.flags & 0x01 != 0) == !partial.isEmpty else {
                    throw file.malformed(
                        "the Ogg page at byte \(offset) does not continue the packet before it as it should")
                }
                var start = 0
                for value in page.lacing {
                    guard packets.count < needed else {
                        throw file.malformed(
                            "audio starts on the header page at byte \(offset), which the specification forbids")
                    }
                    partial += page.body[start..<start + Int(value)]
                    start += Int(value)
                    if value < 255 {
                        packets.append(partial)
                        partial = []
                        if packets.count == 1 {
                            if packets[0].starts(withASCII: "OpusHead") {
                                (needed, isOpus) = (2, true)
                            } else if packets[0].starts(with: [1] + Array("vorbis".utf8)) {
                                needed = 3
                            } else {
                                throw TagEditError(
                                    path: file.path,
                                    message: "the Ogg stream is neither Opus nor Vorbis; only those are supported")
                            }
                        }
                    }
                }
                pageCount += 1
                offset += Int64(page.length)
                endsStream = page.flags & 0x04 != 0
                if endsStream, packets.count < needed {
                    throw file.malformed("the Ogg stream ends before its header packets are complete")
                }
            }
            audioStart = offset
            let commentMagic = isOpus ? Array("OpusTags".utf8) : [3] + Array("vorbis".utf8)
            guard packets[1].starts(with: commentMagic) else {
                throw file.malformed("the second Ogg packet is not a \(isOpus ? "OpusTags" : "Vorbis comment") header")
            }
            guard isOpus || packets[2].starts(with: [5] + Array("vorbis".utf8)) else {
                throw file.malformed("the third Ogg packet is not a Vorbis setup header")
            }
        }

        /// The parsed comment header.
        func comment(in file: InputFile) throws(TagEditError) -> VorbisComment {
            try VorbisComment(parsing: packets[1], magicLength: isOpus ? 8 : 7, in: file)
        }
    }
}

/// One Ogg page: a 27-byte header, the lacing values and the body they describe.
struct OggPage {
    /// 0x01: continues a packet from the previous page; 0x02: first page; 0x04: last page.
    var flags: UInt8
    /// The codec-defined position of the last packet ending on this page (-1: none ends).
    var granule: UInt64
    /// The logical stream the page belongs to.
    var serial: UInt32
    /// The page's number within its logical stream.
    var sequence: UInt32
    /// The segment lengths, at most 255 of them.
    var lacing: [UInt8]
    /// The segments, back to back.
    var body: [UInt8]

    /// A page built from its parts.
    init(flags: UInt8, granule: UInt64, serial: UInt32, sequence: UInt32, lacing: [UInt8], body: [UInt8]) {
        (self.flags, self.granule, self.serial, self.sequence, self.lacing, self.body) =
            (flags, granule, serial, sequence, lacing, body)
    }

    /// Reads the page at `offset`, checking its capture pattern, version and CRC.
    init(at offset: Int64, of file: InputFile) throws(TagEditError) {
        var header = ByteReader(try file.read(at: offset, count: 27), of: "the Ogg page at byte \(offset)", in: file)
        guard try header.read(4) == Array("OggS".utf8), try header.readUInt8() == 0 else {
            throw file.malformed("no Ogg page begins at byte \(offset)")
        }
        flags = try header.readUInt8()
        let granuleBytes = try header.read(8)
        granule = granuleBytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
        serial = try header.readUInt32LE()
        sequence = try header.readUInt32LE()
        let storedCRC = try header.readUInt32LE()
        let segmentCount = Int(try header.readUInt8())
        lacing = try file.read(at: offset + 27, count: segmentCount)
        body = try file.read(at: offset + 27 + Int64(segmentCount), count: lacing.reduce(0) { $0 + Int($1) })
        guard Self.crc(of: bytesWithoutCRC) == storedCRC else {
            throw file.malformed("the Ogg page at byte \(offset) fails its CRC check")
        }
    }

    /// The page's size in the file.
    var length: Int { 27 + lacing.count + body.count }

    /// Appends a whole packet that fits on this page.
    mutating func append(packet: [UInt8]) {
        var start = 0
        repeat {
            let count = min(255, packet.count - start)
            lacing.append(UInt8(count))
            body += packet[start..<start + count]
            start += count
            if count < 255 { return }
        } while true
    }

    /// The page as stored, with its CRC.
    var bytes: [UInt8] {
        var out = bytesWithoutCRC
        let crc = Self.crc(of: out)
        out.replaceSubrange(22..<26, with: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) })
        return out
    }

    private var bytesWithoutCRC: [UInt8] {
        var out = Array("OggS".utf8) + [0, flags]
        out += (0..<8).map { UInt8(truncatingIfNeeded: granule >> UInt64($0 * 8)) }
        out.appendUInt32LE(serial)
        out.appendUInt32LE(sequence)
        out.appendUInt32LE(0)
        out.append(UInt8(lacing.count))
        return out + lacing + body
    }

    /// Ogg's CRC-32: polynomial 0x04C11DB7, most significant bit first, initial value 0, no final xor.
    static func crc(of bytes: [UInt8]) -> UInt32 {
        bytes.reduce(UInt32(0)) { crc, byte in (crc << 8) ^ crcTable[Int((crc >> 24) ^ UInt32(byte))] }
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index) << 24) { remainder, _ in
            remainder & 0x8000_0000 != 0 ? (remainder << 1) ^ 0x04C1_1DB7 : remainder << 1
        }
    }
}
