import AudioContainers
import Foundation
import SoundFile
import Testing
import VoiceMemoCore

/// Damage as a crash leaves it, made to a finished file, then repaired.
@Suite("Crash repair")
struct CrashRepairTests {
    /// Cuts the file to `length` bytes, as a kill mid-write leaves it.
    func truncate(_ fixture: MemoFixture, to length: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fixture.path))
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()
    }

    func patch(_ fixture: MemoFixture, at offset: Int, _ bytes: [UInt8]) throws {
        var data = fixture.bytes
        data.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        try data.write(to: URL(fileURLWithPath: fixture.path))
    }

    @Test func aTornWaveGetsSizesFromItsRealLength() throws {
        let fixture = try MemoFixture(.wav)
        defer { fixture.remove() }
        let dataStart = fixture.bytes.count - 96000 * 2
        try truncate(fixture, to: dataStart + 48000 * 2 + 1)  // a second, and half a frame
        try patch(fixture, at: dataStart - 4, [0xFF, 0xFF, 0xFF, 0x7F])  // a size never written back
        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .wav)
        #expect(!fixes.isEmpty)
        let decoded = try Decoded(fixture.path)
        #expect(decoded.frameCount == 48000)
        #expect(decoded.samples.count == 48000)
        #expect(fixture.bytes.count == dataStart + 96000)
        #expect(try CrashRepair.repair(fileAt: fixture.path, container: .wav).isEmpty, "repair is idempotent")
    }

    /// libsndfile's WAVE_FORMAT_EXTENSIBLE memos count their frames in a `fact` chunk too,
    /// which ffmpeg takes for the length.
    @Test func aTornWaveGetsItsFactCountFromItsRealLength() throws {
        let fixture = try MemoFixture(.wav)
        defer { fixture.remove() }
        let dataStart = fixture.bytes.count - 96000 * 2
        try truncate(fixture, to: dataStart + 48000 * 2)
        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .wav)
        #expect(fixes.contains("fact frame count set to 48000"), "\(fixes)")
        #expect(abs(try ToolReport.ffprobe(fixture.path).duration - 1) < 0.001)
        #expect(try ToolReport.sox(fixture.path).frames == 48000)
    }

    @Test func aWaveWhoseHeaderLagsKeepsEveryFrameWritten() throws {
        let fixture = try MemoFixture(.wav)
        defer { fixture.remove() }
        let dataStart = fixture.bytes.count - 96000 * 2
        // The header was last updated a second into the recording; two were written.
        try patch(fixture, at: dataStart - 4, [0x00, 0x77, 0x01, 0x00])  // 96,000 bytes
        #expect(try Decoded(fixture.path).frameCount == 48000)
        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .wav)
        #expect(fixes.contains("data size 96000 → 192000"))
        #expect(try Decoded(fixture.path).frameCount == 96000)
    }

    /// A plain WAV's 32-bit sizes end at 4 GiB. libsndfile makes the memo RF64 at the first
    /// header update past that; a crash before it leaves a plain WAV too long for its header,
    /// which repair makes RF64. The length comes from a sparse extension: zeros, no disk.
    @Test func aPlainWavePast4GiBBecomesRF64() throws {
        let fixture = try MemoFixture(.wav)
        defer { fixture.remove() }
        let original = try Decoded(fixture.path)
        let dataStart = Int64(fixture.bytes.count - 96000 * 2)
        #expect(try FileBytes.read(fixture.path, at: 12, count: 4) == Array("JUNK".utf8))
        let frames: Int64 = 2_200_000_000  // 4.4 GB of 16-bit mono
        try FileBytes.truncate(fixture.path, to: dataStart + frames * 2 + 1)
        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .wav)
        #expect(fixes.contains("made RF64: the audio passed 4 GiB after the header was last written"), "\(fixes)")
        #expect(try FileBytes.header(fixture.path) == "RF64")
        #expect(try FileBytes.read(fixture.path, at: 12, count: 8) == Array("ds64".utf8) + [28, 0, 0, 0])
        #expect(try FileBytes.size(fixture.path) == dataStart + frames * 2, "the torn byte is cut")
        let reader = try SoundFileReader(path: fixture.path)
        #expect(reader.frameCount == Int(frames))
        #expect(reader.format == .wav)
        #expect(reader.title == MemoFixture.originalTitle, "the LIST chunk moved with the header")
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 96000)
        defer { buffer.deallocate() }
        #expect(try reader.read(into: buffer, frameCount: 96000) == 96000)
        #expect(buffer.map { Int16(($0 * 32768).rounded()) } == original.samples, "the audio is where it was")
        // (sox is left out: it reads this 2.2-billion-frame mono file for minutes.)
        let duration = Double(frames) / 48000
        #expect(abs(try ToolReport.ffprobe(fixture.path).duration - duration) < 0.01)
        #expect(try CrashRepair.repair(fileAt: fixture.path, container: .wav).isEmpty, "repair is idempotent")
    }

    /// Past 4 GiB the sizes a crash leaves stale are the ds64 chunk's.
    @Test func anRF64WithStaleSizesGetsThemFromItsRealLength() throws {
        let fixture = try MemoFixture(.wav)
        defer { fixture.remove() }
        let dataStart = Int64(fixture.bytes.count - 96000 * 2)
        try FileBytes.truncate(fixture.path, to: dataStart + 4_400_000_000)
        _ = try CrashRepair.repair(fileAt: fixture.path, container: .wav)
        #expect(try FileBytes.header(fixture.path) == "RF64")
        // Recording went on for a second after the last header update, and stopped mid-frame.
        let frames: Int64 = 2_300_000_000
        try FileBytes.truncate(fixture.path, to: dataStart + frames * 2 + 1)
        let stale = frames - 48000
        try FileBytes.patch(fixture.path, at: 20, ds64(dataStart - 8 + stale * 2, stale * 2, stale))
        #expect(try SoundFileReader(path: fixture.path).frameCount == Int(stale))
        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .wav)
        #expect(fixes == ["cut 1 torn bytes", "ds64 sizes set to \(frames * 2) bytes of data, \(frames) frames"])
        #expect(
            try FileBytes.read(fixture.path, at: 20, count: 28) == ds64(dataStart - 8 + frames * 2, frames * 2, frames))
        #expect(try SoundFileReader(path: fixture.path).frameCount == Int(frames))
        #expect(abs(try ToolReport.ffprobe(fixture.path).duration - Double(frames) / 48000) < 0.01)
        #expect(try CrashRepair.repair(fileAt: fixture.path, container: .wav).isEmpty)
    }

    /// Whatever a damaged ds64 chunk claims, repair and renaming throw or mend, never trap.
    @Test(arguments: [UInt64.max, UInt64(Int64.max), 1 << 40, 0])
    func aDamagedDS64ChunkNeverTraps(size: UInt64) throws {
        let fixture = try MemoFixture(.wav)
        defer { fixture.remove() }
        let path = fixture.directory + "/rf64.wav"
        try ToolReport.convert(fixture.path, to: path, ffmpegOptions: ["-c", "copy", "-rf64", "always"])
        #expect(try FileBytes.header(path) == "RF64")
        for field in 0..<3 {
            try FileBytes.patch(
                path, at: 20 + 8 * Int64(field), (0..<8).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) })
        }
        _ = try? TagEditor.title(ofFileAt: path, container: .wav)
        _ = try? TagEditor.setTitle("Renamed", ofFileAt: path, container: .wav)
        _ = try? CrashRepair.repair(fileAt: path, container: .wav)
        if size == 0 {
            // Sizes of zero are a crash's before the first header update: the audio is found.
            #expect(try SoundFileReader(path: path).frameCount == 96000)
        }
    }

    /// A `ds64` body: RIFF size, data size, frames, an empty table.
    func ds64(_ riffSize: Int64, _ dataSize: Int64, _ frames: Int64) -> [UInt8] {
        [riffSize, dataSize, frames].flatMap { value in (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
            + [0, 0, 0, 0]
    }

    @Test(arguments: [AudioFormat.opus, .vorbis])
    func aTornOggStreamEndsAtItsLastWholePage(format: AudioFormat) throws {
        let fixture = try MemoFixture(format)
        defer { fixture.remove() }
        try truncate(fixture, to: fixture.bytes.count - 100)  // the last page torn
        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .ogg)
        #expect(fixes.contains { $0.contains("torn page") })
        #expect(fixes.contains { $0.contains("end-of-stream") })
        // What survives is whole pages: how much audio that is depends on the codec's page
        // size (Vorbis fills ~4 KiB pages, about 0.4 s here), so only bounds are fixed.
        let decoded = try Decoded(fixture.path)
        #expect(decoded.frameCount > 0 && decoded.frameCount < 96000)
        #expect(decoded.samples.count == decoded.frameCount, "the header's length is the decodable length")
        #expect(try CrashRepair.repair(fileAt: fixture.path, container: .ogg).isEmpty)
    }

    @Test func aFlacWithoutItsTotalGetsTheDecodedLength() throws {
        let fixture = try MemoFixture(.flac)
        defer { fixture.remove() }
        var word = [UInt8](fixture.bytes[18..<26])
        word[3] &= 0xF0  // clear the 36-bit total, as an unfinished encoder leaves it
        word[4...7] = [0, 0, 0, 0]
        try patch(fixture, at: 18, word)
        #expect(try SoundFileReader(path: fixture.path).frameCount != 96000)
        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .flac, decodedFrames: 96000)
        #expect(fixes == ["total samples set to 96000"])
        #expect(try Decoded(fixture.path).frameCount == 96000)
    }

    /// A power loss can leave the last frame half written; `flac -t` rejects such a stream.
    @Test func aFlacCutMidFrameLosesOnlyItsTornFrame() throws {
        let fixture = try MemoFixture(.flac)
        defer { fixture.remove() }
        var word = [UInt8](fixture.bytes[18..<26])
        word[3] &= 0xF0
        word[4...7] = [0, 0, 0, 0]
        try patch(fixture, at: 18, word)
        try truncate(fixture, to: fixture.bytes.count - 100)
        /// Frames a decoder reads, whatever the header says.
        func decodedFrames() throws -> Int {
            let decoded = try Decoded(fixture.path)
            return decoded.samples.count / decoded.channelCount
        }
        let decodable = try decodedFrames()
        #expect(decodable > 90000 && decodable < 96000, "all but the torn frame decodes: \(decodable)")

        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .flac, decodedFrames: UInt64(decodable))
        #expect(fixes.count == 2, "\(fixes)")
        #expect(
            fixes.first?.hasPrefix("cut ") == true && fixes.first?.hasSuffix(" bytes of a torn frame") == true,
            "\(fixes)")
        #expect(fixes.last == "total samples set to \(decodable)")
        #expect(try decodedFrames() == decodable, "no complete frame was cut")
        #expect(try Decoded(fixture.path).frameCount == decodable, "and the header says so")
        #expect(
            try CrashRepair.repair(fileAt: fixture.path, container: .flac, decodedFrames: UInt64(decodable)) == [],
            "the repaired file ends with a whole frame")
    }

    @Test func aFinishedFlacIsLeftAlone() throws {
        let fixture = try MemoFixture(.flac)
        defer { fixture.remove() }
        #expect(try CrashRepair.repair(fileAt: fixture.path, container: .flac, decodedFrames: 96000) == [])
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path)) == fixture.bytes)
    }

    @Test func anMP3GetsItsXingCountsFromTheFrames() throws {
        let fixture = try MemoFixture(.mp3)
        defer { fixture.remove() }
        let complete = try Decoded(fixture.path)
        let bytes = [UInt8](fixture.bytes)
        let xing = try #require(
            (0..<bytes.count - 12).first {
                bytes[$0..<$0 + 4].elementsEqual("Xing".utf8) || bytes[$0..<$0 + 4].elementsEqual("Info".utf8)
            })
        try patch(fixture, at: xing + 8, [0, 0, 0, 10])  // a frame count from early in the recording
        #expect(try Decoded(fixture.path).frameCount < complete.frameCount / 2)
        let fixes = try CrashRepair.repair(fileAt: fixture.path, container: .mp3)
        #expect(fixes.contains { $0.contains("Xing") })
        #expect(abs(try Decoded(fixture.path).frameCount - complete.frameCount) < 1152 * 2)
    }

    @Test func garbageIsRefusedNotTrapped() throws {
        let fixture = try MemoFixture(.wav)
        defer { fixture.remove() }
        try Data(repeating: 0x41, count: 300).write(to: URL(fileURLWithPath: fixture.path))
        for container in [TagContainer.wav, .ogg, .flac, .mp3] {
            #expect(throws: TagEditError.self) { try CrashRepair.repair(fileAt: fixture.path, container: container) }
        }
    }
}
