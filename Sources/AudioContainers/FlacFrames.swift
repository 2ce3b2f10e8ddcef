/// Finds where a FLAC stream's last complete frame ends, so that a frame torn by a power
/// loss can be cut off: decoders such as `flac -t` reject a stream that ends mid-frame.
///
/// A frame starts with a 14-bit sync code and a header guarded by a CRC-8, and ends with a
/// CRC-16 of the whole frame. Sync codes can also occur inside audio data, so a frame start
/// counts only when the frame before it ends exactly there (its CRC-16 holds).
enum FlacFrames {
    /// How far back from the end a torn frame is looked for: many times the largest frame
    /// voicememo writes (4608 frames of 2 × 24-bit audio, about 28 KiB, before compression).
    static let searchWindow = 1 << 20

    /// The offset where `file` should end: `file.size` when it ends with a complete frame,
    /// the start of the torn frame otherwise; nil when no frame boundary is found near the end.
    static func endOfLastCompleteFrame(in file: InputFile, audioStart: Int64) throws(TagEditError) -> Int64? {
        let windowStart = max(audioStart, file.size - Int64(searchWindow))
        guard windowStart < file.size else { return nil }
        let bytes = try file.read(at: windowStart, count: Int(file.size - windowStart))
        let starts = frameHeaderCandidates(in: bytes)
        // The torn frame is the last real one; a few more allow for sync codes in audio data.
        for start in starts.suffix(16).reversed() {
            if isCompleteFrame(bytes[start...]) { return file.size }
            // A real frame start: some earlier candidate's frame ends exactly here.
            let earlier = starts.filter { $0 < start }.suffix(8)
            if earlier.contains(where: { isCompleteFrame(bytes[$0..<start]) }) { return windowStart + Int64(start) }
        }
        return nil
    }

    /// Offsets in `bytes` where a frame header with a valid CRC-8 begins.
    private static func frameHeaderCandidates(in bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var index = 0
        while index + 1 < bytes.count {
            // 0b1111_1111_1111_10 then a reserved 0 bit and the blocking strategy bit.
            if bytes[index] == 0xFF, bytes[index + 1] & 0xFE == 0xF8, let length = headerLength(bytes, at: index),
                index + length < bytes.count, crc8(bytes[index..<index + length]) == bytes[index + length]
            {
                starts.append(index)
            }
            index += 1
        }
        return starts
    }

    /// The length of the frame header at `start`, up to (not including) its CRC-8.
    private static func headerLength(_ bytes: [UInt8], at start: Int) -> Int? {
        guard start + 4 < bytes.count else { return nil }
        let blockSizeCode = bytes[start + 2] >> 4
        let sampleRateCode = bytes[start + 2] & 0x0F
        guard blockSizeCode != 0, sampleRateCode != 0x0F, bytes[start + 3] & 0x01 == 0 else { return nil }
        // The frame or sample number, coded like UTF-8 in 1 to 7 bytes.
        let lead = bytes[start + 4]
        let numberLength: Int
        switch lead {
        case 0x00...0x7F: numberLength = 1
        case 0xC0...0xDF: numberLength = 2
        case 0xE0...0xEF: numberLength = 3
        case 0xF0...0xF7: numberLength = 4
        case 0xF8...0xFB: numberLength = 5
        case 0xFC...0xFD: numberLength = 6
        case 0xFE: numberLength = 7
        default: return nil
        }
        var length = 4 + numberLength
        if blockSizeCode == 6 { length += 1 } else if blockSizeCode == 7 { length += 2 }
        if sampleRateCode == 12 { length += 1 } else if sampleRateCode == 13 || sampleRateCode == 14 { length += 2 }
        return length
    }

    /// Whether `frame` is one whole frame: its last two bytes are the CRC-16 of the rest.
    private static func isCompleteFrame(_ frame: ArraySlice<UInt8>) -> Bool {
        guard frame.count > 6 else { return false }
        let body = frame.dropLast(2)
        let stored = UInt16(frame[frame.endIndex - 2]) << 8 | UInt16(frame[frame.endIndex - 1])
        return crc16(body) == stored
    }

    /// CRC-8 with polynomial x^8 + x^2 + x + 1, as the FLAC format defines it.
    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }

    /// CRC-16 with polynomial x^16 + x^15 + x^2 + 1, as the FLAC format defines it.
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x8005 : crc << 1 }
        }
        return crc
    }
}
