import AudioContainers
import Foundation
import SoundFile
import Testing
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// A WAV memo past 4 GiB, the 6.2 hours of 48 kHz stereo where a plain WAV's 32-bit sizes
/// wrap: written through the daemon's writer as it would be after hours of recording, then
/// read, crashed, repaired and renamed as the daemon does.
///
/// The file is 4.3 GB of real frames, written in 4 MiB blocks and deleted at the end. Measured
/// on the 2-core machine in a debug build, beside other builds: 45 s alone and 60 s beside
/// the other unit tests (`make test` runs them together), of which writing takes 18 to 21 s,
/// the crash repair under 1 s, the rename (in place) a few milliseconds. It needs
/// the file's size free.
@Suite("WAV memos past 4 GiB")
struct LargeWaveTests {
    static let sampleRate = 48000
    static let blockFrames = 1 << 20
    /// 1,026 blocks of 4 MiB: 4,303,355,904 bytes of audio, 8 MB past 4 GiB.
    static let blockCount = 1026
    static let frameCount = blockFrames * blockCount

    /// The frames of one block: a 440 Hz tone on the left, a ramp on the right, and the
    /// block's number in its first frame, so a frame read back shows where it came from.
    static func block(_ number: Int, into samples: inout [Int16]) {
        samples[0] = Int16(number)
        samples[1] = Int16.min
    }

    static func pattern() -> [Int16] {
        var samples = [Int16](repeating: 0, count: blockFrames * 2)
        for frame in 1..<blockFrames {
            samples[2 * frame] = Int16(12000 * sin(2 * Double.pi * 440 * Double(frame) / Double(sampleRate)))
            samples[2 * frame + 1] = Int16(truncatingIfNeeded: frame)
        }
        return samples
    }

    @Test(.timeLimit(.minutes(10)))
    func aMemoPast4GiBIsRF64AndSurvivesCrashRepairAndRename() throws {
        let directory = NSTemporaryDirectory() + "LargeWaveTests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var disk = statvfs()
        #expect(statvfs(directory, &disk) == 0)
        try #require(
            Int(disk.f_bavail) * Int(disk.f_frsize) > 10_000_000_000, "the test needs 10 GB free in \(directory)")
        let path = directory + "/memo.wav"

        // Written as the daemon writes: its writer, a header update (with fsync) each so often.
        var request = RecordingRequest(defaults: RecorderDefaults())
        request.format = .wav
        request.sampleRate = UInt32(Self.sampleRate)
        request.channels = 2
        let writer = try SoundFileWriter(
            path: path, request: request, tags: MemoTags(title: MemoFixture.originalTitle, date: MemoFixture.date))
        var samples = Self.pattern()
        // The block that takes the file past 4 GiB: its header and 1,024 blocks of audio.
        let crossing = Int((Int64(UInt32.max) + 1) / Int64(Self.blockFrames * 4)) - 1
        for number in 0..<Self.blockCount {
            Self.block(number, into: &samples)
            try samples.withUnsafeBytes { try writer.write($0, frameCount: Self.blockFrames) }
            if number == crossing - 1 {
                try writer.synchronize()
                #expect(try FileBytes.header(path) == "RIFF", "a plain WAV until it passes 4 GiB")
            }
            if number == crossing {
                try writer.synchronize()
                #expect(try FileBytes.header(path) == "RF64", "RF64 from the first header update past 4 GiB")
            }
        }
        try writer.close()

        let bytes = Int64(Self.frameCount) * 4
        let dataOffset = try FileBytes.size(path) - bytes
        #expect(try FileBytes.header(path) == "RF64")
        try expectIntact(path, frames: Self.frameCount, title: MemoFixture.originalTitle)

        // A SIGKILL mid-recording: the file ends in the middle of a frame, half a block after
        // a header update that counted two blocks fewer.
        let cut = dataOffset + bytes - Int64(Self.blockFrames * 4) / 2 + 3
        try FileBytes.truncate(path, to: cut)
        let stale = Int64(Self.frameCount - 2 * Self.blockFrames)
        try FileBytes.patch(
            path, at: 20, ds64(riffSize: dataOffset + stale * 4 - 8, dataSize: stale * 4, frames: stale))
        #expect(try SoundFileReader(path: path).frameCount == Int(stale), "the stale header hides audio")
        let fixes = try CrashRepair.repair(fileAt: path, container: .wav)
        #expect(fixes.contains("cut 3 torn bytes"), "\(fixes)")
        let kept = Int((cut - dataOffset) / 4)
        #expect(kept == Self.frameCount - Self.blockFrames / 2)
        #expect(try FileBytes.size(path) == dataOffset + Int64(kept) * 4)
        let repairedSizes = ds64(
            riffSize: dataOffset + Int64(kept) * 4 - 8, dataSize: Int64(kept) * 4, frames: Int64(kept))
        #expect(try FileBytes.read(path, at: 20, count: 28) == repairedSizes)
        try expectIntact(path, frames: kept, title: MemoFixture.originalTitle)
        #expect(try CrashRepair.repair(fileAt: path, container: .wav).isEmpty, "repair is idempotent")

        // A rename rewrites the LIST chunk in place, in the room the writer left after it.
        let title = "Six hours of a meeting that would not end"
        try TagEditor.setTitle(title, ofFileAt: path, container: .wav)
        #expect(try FileBytes.header(path) == "RF64")
        let renamedSize = try FileBytes.size(path)
        #expect(renamedSize == dataOffset + Int64(kept) * 4, "the longer title takes room already there")
        #expect(try FileBytes.read(path, at: 20, count: 28) == repairedSizes)
        #expect(try TagEditor.title(ofFileAt: path, container: .wav) == title)
        try expectIntact(path, frames: kept, title: title)
    }

    /// libsndfile, ffprobe and sox read the whole length; the frames past 4 GiB are where
    /// they were written.
    func expectIntact(_ path: String, frames: Int, title: String) throws {
        let reader = try SoundFileReader(path: path)
        #expect(reader.format == .wav)
        #expect(reader.frameCount == frames)
        #expect(reader.sampleRate == Self.sampleRate && reader.channelCount == 2)
        #expect(reader.title == title)
        #expect(reader.date == MemoFixture.date)
        let expected = Self.pattern()
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * 64)
        defer { buffer.deallocate() }
        // The last whole block, its first frames all past 4 GiB, and the frame before it.
        let lastBlock = frames / Self.blockFrames - 1
        try reader.seek(toFrame: lastBlock * Self.blockFrames - 1)
        #expect(try reader.read(into: buffer, frameCount: 64) == 64)
        let read = buffer.map { Int16(($0 * 32768).rounded()) }
        #expect(read[0] == expected[2 * Self.blockFrames - 2] && read[1] == expected[2 * Self.blockFrames - 1])
        #expect(read[2] == Int16(lastBlock) && read[3] == Int16.min, "block \(lastBlock) reads as itself")
        #expect(Array(read[4...]) == Array(expected[2..<126]))

        let duration = Double(frames) / Double(Self.sampleRate)
        let ffprobe = try ToolReport.ffprobe(path)
        #expect(ffprobe.format == "wav")
        #expect(abs(ffprobe.duration - duration) < 0.01, "ffprobe: \(ffprobe.duration) s of \(duration) s")
        let sox = try ToolReport.sox(path)
        #expect(sox.frames == frames)
        #expect(abs(sox.duration - duration) < 0.01, "sox: \(sox.duration) s of \(duration) s")
    }

    /// The `ds64` chunk's body as libsndfile writes it: three 64-bit sizes, an empty table.
    func ds64(riffSize: Int64, dataSize: Int64, frames: Int64) -> [UInt8] {
        [riffSize, dataSize, frames].flatMap { value in (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
            + [0, 0, 0, 0]
    }
}
