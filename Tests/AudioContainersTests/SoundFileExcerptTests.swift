import Foundation
import SoundFile
import Testing
import VoiceMemoCore

/// The trimmed copy libsndfile writes of a memo, in every format the daemon records.
@Suite("Sound file excerpt")
struct SoundFileExcerptTests {
    /// One second from 0.5 s of a two-second memo recorded at `quality` and encoded again at
    /// it: the copy holds that second, to within one frame of the encoder's for the lossy
    /// formats (1152 samples for MP3, 960 for Opus), as libsndfile and ffprobe read it.
    @Test(arguments: AudioFormat.allCases, [Quality.min, .max])
    func aStretchOfAMemoIsWrittenInItsOwnFormat(format: AudioFormat, quality: Quality) throws {
        let fixture = try MemoFixture(format, quality: quality)
        defer { fixture.remove() }
        let output = fixture.directory + "/excerpt." + format.fileExtension
        let level = format == .flac || format == .wav ? nil : format.compressionLevel(at: quality)
        try SoundFileExcerpt.write(
            24_000..<72_000, of: SoundFileReader(path: fixture.path), to: output, compressionLevel: level)
        let excerpt = try SoundFileReader(path: output)
        #expect(excerpt.format == format)
        #expect(excerpt.title == MemoFixture.originalTitle)
        let tolerance = format == .mp3 ? 1152 : format == .opus || format == .vorbis ? 960 : 0
        #expect(abs(excerpt.frameCount - 48_000) <= tolerance, "\(excerpt.frameCount) frames")
        // ffprobe counts an MP3's encoder delay in both, so the difference is what was cut.
        let cut = try ToolReport.ffprobe(fixture.path).duration - ToolReport.ffprobe(output).duration
        #expect(abs(cut - 1) <= Double(tolerance) / 48_000 + 0.001, "\(cut) s cut")
    }
}
