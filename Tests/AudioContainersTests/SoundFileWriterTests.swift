import Foundation
import SoundFile
import Testing
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// The memo files libsndfile writes for the daemon.
@Suite("Sound file writer")
struct SoundFileWriterTests {
    /// A memo is its owner's alone even where the umask would share it (the daemon also
    /// sets one, but the writer does not rely on it).
    @Test(arguments: AudioFormat.allCases)
    func aNewMemoIsReadableByItsOwnerAlone(format: AudioFormat) throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let fixture = try MemoFixture(format)
        defer { fixture.remove() }
        #expect(fixture.mode & 0o777 == 0o600)
    }

    /// A WAV memo is written as RF64 with libsndfile's downgrade: under 4 GiB it is a plain
    /// RIFF WAVE, with a JUNK chunk where RF64's ds64 chunk would go, that every WAV reader takes.
    @Test func aShortWaveMemoIsAPlainWave() throws {
        let fixture = try MemoFixture(.wav, channels: 2)
        defer { fixture.remove() }
        let bytes = [UInt8](fixture.bytes)
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8))
        #expect(Array(bytes[8..<16]) == Array("WAVEJUNK".utf8))
        let riffSize = bytes[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(riffSize == bytes.count - 8)
        let decoded = try Decoded(fixture.path)
        #expect(decoded.frameCount == 96000 && decoded.channelCount == 2)
        #expect(decoded.title == MemoFixture.originalTitle)
        #expect(try SoundFileReader(path: fixture.path).format == .wav)
        let ffprobe = try ToolReport.ffprobe(fixture.path)
        #expect(ffprobe.format == "wav" && abs(ffprobe.duration - 2) < 0.001)
        #expect(try ToolReport.sox(fixture.path).frames == 96000)
    }
}
