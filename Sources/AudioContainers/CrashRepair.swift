import Glibc

/// Makes a memo that a crash (SIGKILL, power loss) left unfinished decodable by any
/// standard decoder, keeping every complete piece of audio it holds.
///
/// Repairs are small edits in place (a header field, an end-of-stream flag, cutting a torn
/// tail), each synced before returning; the file was already damaged, so there is no
/// original worth keeping beside it.
public enum CrashRepair {
    /// Repairs the file at `path`; returns what was fixed (empty when nothing needed it).
    /// `decodedFrames` is the number of frames a decoder could read from it, which FLAC
    /// needs because its header learns the total only when the encoder finishes.
    public static func repair(
        fileAt path: String, container: TagContainer, decodedFrames: UInt64? = nil
    ) throws(TagEditError) -> [String] {
        let file = try InputFile(path: path)
        let editor = try InPlaceEditor(path: path)
        var fixes: [String] = []
        switch container {
        case .wav: try repairWave(file, editor, &fixes)
        case .ogg: try repairOgg(file, editor, &fixes)
        case .flac: try repairFlac(file, editor, decodedFrames: decodedFrames, &fixes)
        case .mp3: try repairMP3(file, editor, &fixes)
        }
        if !fixes.isEmpty { try editor.synchronize() }
        return fixes
    }

    /// RIFF and data sizes from the file's real length, cut to whole frames.
    ///
    /// A WAV memo is a plain WAV with a `JUNK` chunk until it passes 4 GiB, then RF64 with
    /// its sizes in a `ds64` chunk (see `RF64Sizes`); a crash can leave either with stale
    /// sizes, and a plain one past 4 GiB when it came between the crossing and the next
    /// header update, which is then made the RF64 file libsndfile would have made it.
    private static func repairWave(_ file: InputFile, _ editor: InPlaceEditor, _ fixes: inout [String])
        throws(TagEditError)
    {
        var header = ByteReader(try file.read(at: 0, count: 12), of: "the RIFF header", in: file)
        let magic = try header.read(4)
        guard magic == Array("RIFF".utf8) || magic == RF64Sizes.magic else {
            throw file.malformed("it does not start with RIFF or RF64")
        }
        _ = try header.readUInt32LE()
        guard try header.read(4) == Array("WAVE".utf8) else { throw file.malformed("it is not a WAVE file") }
        var offset: Int64 = 12
        var sizes: RF64Sizes?
        if magic == RF64Sizes.magic {
            guard try startsChunk(file, at: offset), try file.read(at: offset, count: 4) == RF64Sizes.chunkID else {
                throw file.malformed("its RF64 header has no ds64 chunk")
            }
            var chunk = ByteReader(try file.read(at: offset + 4, count: 4), of: "the ds64 chunk header", in: file)
            let size = Int64(try chunk.readUInt32LE())
            sizes = try RF64Sizes(try file.read(at: offset + 8, count: Int(size)), at: offset, in: file)
            offset += 8 + size + size % 2
        }
        var blockAlign: Int64 = 1
        var factOffset: Int64?
        while file.size - offset >= 8 {
            var chunk = ByteReader(try file.read(at: offset, count: 8), of: "a RIFF chunk header", in: file)
            let id = try chunk.read(4)
            let declared = try chunk.readUInt32LE()
            // At most the file's size, so a corrupt ds64 chunk's size cannot overflow the sums below.
            let size = min(
                sizes.map { $0.size(ofChunk: id, declared: declared) ?? Int64(declared) } ?? Int64(declared), file.size)
            if id == Array("fmt ".utf8), size >= 16 {
                var format = ByteReader(try file.read(at: offset + 8, count: 16), of: "the fmt chunk", in: file)
                _ = try format.read(12)
                blockAlign = max(1, Int64(try format.readUIntBE(1)) | Int64(try format.readUIntBE(1)) << 8)
            }
            if id == Array("fact".utf8), size >= 4 { factOffset = offset + 8 }
            if id == Array("data".utf8) {
                let available = file.size - offset - 8
                // A data chunk followed by an intact chunk keeps its size; otherwise it is the
                // last one, and whatever follows its (possibly stale) size is its audio.
                guard !(try startsChunk(file, at: offset + 8 + size + size % 2)) else { return }
                // The last chunk's real length is the file's: the header may lag behind the
                // audio written after it was last updated.
                let dataSize = available / blockAlign * blockAlign
                let end = offset + 8 + dataSize
                if end != file.size {
                    try editor.truncate(to: end)
                    fixes.append("cut \(file.size - end) torn bytes")
                }
                if sizes == nil, end - 8 > Int64(UInt32.max) {
                    try convertToRF64(file, editor, dataOffset: offset)
                    sizes = RF64Sizes(riffSize: 0, dataSize: 0, sampleCount: 0)  // as written, to be set
                    fixes.append("made RF64: the audio passed 4 GiB after the header was last written")
                }
                if var sizes {
                    let stale = sizes
                    (sizes.riffSize, sizes.dataSize, sizes.sampleCount) = (end - 8, dataSize, dataSize / blockAlign)
                    if sizes != stale {
                        try editor.write(sizes.bytes, at: 20)
                        fixes.append("ds64 sizes set to \(dataSize) bytes of data, \(sizes.sampleCount) frames")
                    }
                    if declared != RF64Sizes.placeholder {
                        try editor.write(RF64Sizes.placeholder.littleEndianBytes, at: offset + 4)
                        fixes.append("data size \(declared) → the ds64 chunk's")
                    }
                    return
                }
                if dataSize != Int64(declared) {
                    try editor.write(UInt32(dataSize).littleEndianBytes, at: offset + 4)
                    fixes.append("data size \(declared) → \(dataSize)")
                }
                let riffSize = UInt32(end - 8)
                if try file.read(at: 4, count: 4) != riffSize.littleEndianBytes {
                    try editor.write(riffSize.littleEndianBytes, at: 4)
                    fixes.append("RIFF size set to \(riffSize)")
                }
                // libsndfile's WAVE_FORMAT_EXTENSIBLE files count their frames in `fact` too,
                // and ffmpeg believes that count.
                let frames = UInt32(dataSize / blockAlign)
                if let factOffset, try file.read(at: factOffset, count: 4) != frames.littleEndianBytes {
                    try editor.write(frames.littleEndianBytes, at: factOffset)
                    fixes.append("fact frame count set to \(frames)")
                }
                return
            }
            offset += 8 + size + size % 2
        }
        throw file.malformed("it has no data chunk")
    }

    /// Rewrites a plain WAV's header, up to its `data` chunk at `dataOffset`, as the RF64
    /// header libsndfile writes past 4 GiB, in the same bytes: `RF64`, a `ds64` chunk (its
    /// sizes left for the caller) where the `JUNK` placeholder was, the other chunks but
    /// `JUNK` and `fact` (whose 32-bit count RF64 replaces), a `PAD ` chunk for what is left.
    private static func convertToRF64(_ file: InputFile, _ editor: InPlaceEditor, dataOffset: Int64)
        throws(TagEditError)
    {
        var region = RF64Sizes.chunkID
        region.appendUInt32LE(28)
        region += RF64Sizes(riffSize: 0, dataSize: 0, sampleCount: 0).bytes
        var offset: Int64 = 12
        while offset < dataOffset {
            var chunk = ByteReader(try file.read(at: offset, count: 8), of: "a RIFF chunk header", in: file)
            let id = try chunk.read(4)
            let size = Int64(try chunk.readUInt32LE())
            let length = 8 + size + size % 2
            guard length <= dataOffset - offset else { throw file.malformed("a chunk runs into the data chunk") }
            if ![Array("JUNK".utf8), Array("fact".utf8), Array("PAD ".utf8)].contains(id) {
                region += try file.read(at: offset, count: Int(length))
            }
            offset += length
        }
        let room = dataOffset - 12 - Int64(region.count)
        guard room == 0 || room >= 8 else {
            throw file.malformed("its header has no room for the ds64 chunk RF64 needs past 4 GiB")
        }
        if room >= 8 {
            region += Array("PAD ".utf8)
            region.appendUInt32LE(UInt32(room - 8))
            region += [UInt8](repeating: 0, count: Int(room - 8))
        }
        try editor.write(region, at: 12)
        try editor.write(RF64Sizes.magic + RF64Sizes.placeholder.littleEndianBytes, at: 0)
    }

    /// Whether a RIFF chunk header (a printable four-character id and a size that fits in
    /// the file) begins at `offset`, rather than audio bytes or the end of the file.
    private static func startsChunk(_ file: InputFile, at offset: Int64) throws(TagEditError) -> Bool {
        guard file.size - offset >= 8 else { return false }
        var header = ByteReader(try file.read(at: offset, count: 8), of: "a RIFF chunk header", in: file)
        let id = try header.read(4)
        let size = Int64(try header.readUInt32LE())
        return id.allSatisfy { (0x20...0x7E).contains($0) } && size <= file.size - offset - 8
    }

    /// Cuts the stream after its last complete page and marks that page end-of-stream.
    private static func repairOgg(_ file: InputFile, _ editor: InPlaceEditor, _ fixes: inout [String])
        throws(TagEditError)
    {
        var offset: Int64 = 0
        var last: (page: OggPage, offset: Int64)?
        while offset < file.size, let page = try? OggPage(at: offset, of: file) {
            last = (page, offset)
            offset += Int64(page.length)
        }
        guard let (lastPage, pageOffset) = last else { throw file.malformed("it holds no complete Ogg page") }
        var page = lastPage
        if offset < file.size {
            try editor.truncate(to: offset)
            fixes.append("cut \(file.size - offset) bytes of a torn page")
        }
        if page.flags & 0x04 == 0 {
            page.flags |= 0x04
            try editor.write(page.bytes, at: pageOffset)
            fixes.append("marked the last page end-of-stream")
        }
    }

    /// Cuts a torn last frame, and puts the decoded length into STREAMINFO, which the
    /// encoder fills in only at the end.
    private static func repairFlac(
        _ file: InputFile, _ editor: InPlaceEditor, decodedFrames: UInt64?, _ fixes: inout [String]
    ) throws(TagEditError) {
        // "fLaC", a 4-byte block header, then STREAMINFO; the total sits in the low 36 bits
        // of the big-endian 64-bit word at STREAMINFO offset 10.
        guard try file.read(at: 0, count: 4) == Array("fLaC".utf8), try file.read(at: 4, count: 1)[0] & 0x7F == 0 else {
            throw file.malformed("it does not start with a FLAC STREAMINFO block")
        }
        if let audioStart = try? flacAudioStart(file),
            let end = try FlacFrames.endOfLastCompleteFrame(in: file, audioStart: audioStart), end < file.size
        {
            try editor.truncate(to: end)
            fixes.append("cut \(file.size - end) bytes of a torn frame")
        }
        let word = try file.read(at: 18, count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let total = word & 0xF_FFFF_FFFF
        guard total == 0, let decodedFrames, decodedFrames > 0, decodedFrames <= 0xF_FFFF_FFFF else { return }
        let repaired = (word & ~0xF_FFFF_FFFF) | decodedFrames
        try editor.write((0..<8).map { UInt8(truncatingIfNeeded: repaired >> UInt64(56 - 8 * $0)) }, at: 18)
        fixes.append("total samples set to \(decodedFrames)")
    }

    /// Where the frames begin: after the last metadata block.
    private static func flacAudioStart(_ file: InputFile) throws(TagEditError) -> Int64 {
        var offset: Int64 = 4
        while true {
            let header = try file.read(at: offset, count: 4)
            offset += 4 + Int64(header[1]) << 16 + Int64(header[2]) << 8 + Int64(header[3])
            if header[0] & 0x80 != 0 { return offset }
            guard offset < file.size else { throw file.malformed("its metadata blocks run past its end") }
        }
    }

    /// Rewrites the Xing/Info frame's frame and byte counts, which LAME fills in only at
    /// the end (until then decoders stop at the count it started with), and cuts a torn frame.
    private static func repairMP3(_ file: InputFile, _ editor: InPlaceEditor, _ fixes: inout [String])
        throws(TagEditError)
    {
        var start: Int64 = 0
        let head = try file.read(at: 0, upTo: 10)
        if head.count == 10, head.starts(withASCII: "ID3") {
            start = 10 + head[6...9].reduce(Int64(0)) { $0 << 7 | Int64($1 & 0x7F) }
        }
        var offset = start
        var frames: UInt32 = 0
        var firstFrame: (offset: Int64, length: Int)?
        while offset < file.size {
            let header = try file.read(at: offset, upTo: 4)
            guard header.count == 4, let length = ID3Tags.frameLength(header), Int64(length) <= file.size - offset
            else { break }
            if firstFrame == nil { firstFrame = (offset, length) }
            frames += 1
            offset += Int64(length)
        }
        guard let firstFrame, frames > 1 else { throw file.malformed("it holds no complete MPEG frame") }
        let tail = try file.read(at: offset, upTo: 128)
        if offset < file.size, !tail.starts(withASCII: "TAG") {
            try editor.truncate(to: offset)
            fixes.append("cut \(file.size - offset) bytes of a torn frame")
        }
        let frame = try file.read(at: firstFrame.offset, count: firstFrame.length)
        guard
            let tag = (0..<max(0, frame.count - 16)).first(where: {
                frame[$0..<$0 + 4].elementsEqual("Xing".utf8) || frame[$0..<$0 + 4].elementsEqual("Info".utf8)
            })
        else { return }
        let flags = frame[tag + 4..<tag + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var field = Int64(tag + 8)
        // The Xing frame itself counts as no audio frame.
        let audioFrames = frames - 1
        if flags & 1 != 0 {
            try editor.write(audioFrames.bigEndianBytes, at: firstFrame.offset + field)
            field += 4
        }
        if flags & 2 != 0 {
            try editor.write(UInt32(clamping: offset - firstFrame.offset).bigEndianBytes, at: firstFrame.offset + field)
        }
        if flags & 3 != 0 { fixes.append("Xing frame counts set to \(audioFrames) frames") }
    }
}

/// Writes and truncates a file in place, through one descriptor.
private final class InPlaceEditor {
    private let descriptor: Int32
    private let path: String

    init(path: String) throws(TagEditError) {
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        self.path = path
        guard descriptor >= 0 else {
            throw TagEditError(path: path, message: "cannot open for repair: \(systemError())")
        }
    }

    deinit { close(descriptor) }

    func write(_ bytes: [UInt8], at offset: Int64) throws(TagEditError) {
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count else { throw TagEditError(path: path, message: "cannot write: \(systemError())") }
    }

    func truncate(to length: Int64) throws(TagEditError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw TagEditError(path: path, message: "cannot truncate: \(systemError())")
        }
    }

    func synchronize() throws(TagEditError) {
        guard fsync(descriptor) == 0 else { throw TagEditError(path: path, message: "cannot sync: \(systemError())") }
    }
}

extension UInt32 {
    fileprivate var littleEndianBytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: self >> UInt32(8 * $0)) } }
    fileprivate var bigEndianBytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: self >> UInt32(24 - 8 * $0)) } }
}
