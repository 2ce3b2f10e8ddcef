import AudioContainers
import Foundation
import SoundFile
import TestSupport
import Testing
import VoiceMemoCore

@Suite("Title editing keeps the audio and the other tags")
struct TagEditorTests {
    static let longTitle: String = {
        let piece = "Réunion à Zürich ☕🎙️ naïve façade — "
        var title = ""
        while title.count < 300 { title += piece }
        return String(title.prefix(300))
    }()

    @Test(arguments: AudioFormat.allCases)
    func renamesKeepAudioAndTags(format: AudioFormat) throws {
        let memo = try MemoFixture(format)
        defer { memo.remove() }
        try memo.setMode(0o600)
        let before = try Decoded(memo.path)
        #expect(before.frameCount == 96000)
        #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == MemoFixture.originalTitle)

        for title in ["Meeting notes", Self.longTitle, ""] {
            try TagEditor.setTitle(title, ofFileAt: memo.path, container: memo.container)
            let after = try Decoded(memo.path)
            #expect(after.frameCount == before.frameCount, "\(format) \(title.prefix(10))")
            #expect(after.sampleRate == before.sampleRate)
            #expect(after.channelCount == before.channelCount)
            #expect(after.samples.count == before.samples.count)
            #expect(after.samples == before.samples, "decoded audio changed for \(format)")
            #expect(after.date == before.date, "date tag lost for \(format)")
            let expected: String? = title.isEmpty ? nil : title
            #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == expected)
            if format == .mp3, title.isEmpty {
                // libsndfile reports the (now blank) ID3v1 title field as an empty string.
                #expect(after.title == nil || after.title == "")
            } else {
                #expect(after.title == expected, "libsndfile reads another title from \(format)")
            }
            #expect(memo.mode == 0o600)
            #expect(memo.directoryEntries == ["memo." + format.fileExtension])
        }
    }

    /// An RF64 file (as ours become past 4 GiB; this one ffmpeg wrote, at any length): the
    /// rename rewrites the ds64 chunk's RIFF size and keeps its data size and frame count.
    @Test func renamingAnRF64FileKeepsItRF64() throws {
        let memo = try MemoFixture(.wav, channels: 2)
        defer { memo.remove() }
        let path = memo.directory + "/rf64.wav"
        try ToolReport.convert(memo.path, to: path, ffmpegOptions: ["-c", "copy", "-rf64", "always"])
        let before = try Decoded(path)
        #expect(before.frameCount == 96000)
        #expect(try FileBytes.header(path) == "RF64")
        let ds64 = try FileBytes.read(path, at: 20, count: 28)
        for title in ["Meeting notes", Self.longTitle, ""] {
            try TagEditor.setTitle(title, ofFileAt: path, container: .wav)
            #expect(try FileBytes.header(path) == "RF64")
            let riffSize = try FileBytes.read(path, at: 20, count: 8).reversed().reduce(0) { $0 << 8 | Int64($1) }
            #expect(riffSize == (try FileBytes.size(path)) - 8)
            #expect(try FileBytes.read(path, at: 28, count: 20) == Array(ds64[8...]), "data size and frames")
            let after = try Decoded(path)
            #expect(after.samples == before.samples)
            #expect(after.title == (title.isEmpty ? nil : title))
            #expect(try TagEditor.title(ofFileAt: path, container: .wav) == (title.isEmpty ? nil : title))
            let ffprobe = try ToolReport.ffprobe(path)
            #expect(ffprobe.format == "wav" && abs(ffprobe.duration - 2) < 0.001)
        }
    }

    @Test(arguments: AudioFormat.allCases)
    func stereoFileWithoutTitleGetsOne(format: AudioFormat) throws {
        let memo = try MemoFixture(format, channels: 2, title: nil)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == nil)
        try TagEditor.setTitle("Meeting notes", ofFileAt: memo.path, container: memo.container)
        let after = try Decoded(memo.path)
        #expect(after.samples == before.samples)
        #expect(after.date == before.date)
        #expect(after.title == "Meeting notes")
        #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == "Meeting notes")
    }

    /// Titles whose comment packet ends on every possible lacing boundary, including exact
    /// multiples of 255 bytes (which need a terminating 0 lacing value).
    @Test(arguments: [AudioFormat.opus, .vorbis])
    func oggLacingBoundaries(format: AudioFormat) throws {
        let memo = try MemoFixture(format)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        for length in 1...256 {
            let title = String(repeating: "a", count: length)
            try TagEditor.setTitle(title, ofFileAt: memo.path, container: .ogg)
            #expect(try TagEditor.title(ofFileAt: memo.path, container: .ogg) == title)
        }
        let after = try Decoded(memo.path)
        #expect(after.samples == before.samples)
        #expect(after.title == String(repeating: "a", count: 256))
    }

    /// A title larger than one Ogg page forces extra header pages, so every audio page is renumbered.
    @Test(arguments: [AudioFormat.opus, .vorbis])
    func oggHeadersSpanningPages(format: AudioFormat) throws {
        let memo = try MemoFixture(format)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        let huge = String(repeating: "é", count: 70_000)
        try TagEditor.setTitle(huge, ofFileAt: memo.path, container: .ogg)
        var after = try Decoded(memo.path)
        #expect(after.samples == before.samples)
        #expect(after.frameCount == before.frameCount)
        #expect(after.title == huge)
        #expect(after.date == before.date)
        try TagEditor.setTitle("Short again", ofFileAt: memo.path, container: .ogg)
        after = try Decoded(memo.path)
        #expect(after.samples == before.samples)
        #expect(after.title == "Short again")
    }

    @Test(arguments: AudioFormat.allCases)
    func corruptFilesThrowAndStayUntouched(format: AudioFormat) throws {
        let memo = try MemoFixture(format)
        defer { memo.remove() }
        let original = memo.bytes
        // FLAC frames carry no lengths, so truncation is only detectable inside the metadata.
        let cut = format == .flac ? 60 : original.count * 6 / 10
        let damaged: [Data] = [
            original.prefix(cut),
            original.prefix(20),
            Data(),
            Data(repeating: 0x58, count: 16) + original.dropFirst(16),
        ]
        for bytes in damaged {
            _ = FileManager.default.createFile(atPath: memo.path, contents: bytes)
            try memo.setMode(0o640)
            #expect(throws: TagEditError.self) {
                try TagEditor.setTitle("Meeting notes", ofFileAt: memo.path, container: memo.container)
            }
            #expect(memo.bytes == bytes)
            #expect(memo.mode == 0o640)
            #expect(memo.directoryEntries == ["memo." + format.fileExtension])
        }
    }

    /// Random damage to the headers must end in an error or a file, never a crash or a hang.
    @Test(arguments: AudioFormat.allCases)
    func damagedHeadersNeverTrap(format: AudioFormat) throws {
        let memo = try MemoFixture(format)
        defer { memo.remove() }
        let original = memo.bytes
        var random = SeededGenerator(seed: 42)
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<3 {
                let index = Int.random(in: 0..<min(4096, bytes.count), using: &random)
                bytes[index] = UInt8.random(in: 0...255, using: &random)
            }
            _ = FileManager.default.createFile(atPath: memo.path, contents: bytes)
            do {
                try TagEditor.setTitle("Meeting notes", ofFileAt: memo.path, container: memo.container)
            } catch {
                #expect(memo.bytes == bytes)
            }
            #expect(memo.directoryEntries == ["memo." + format.fileExtension])
        }
    }

    @Test func missingFileThrows() {
        #expect(throws: TagEditError.self) {
            try TagEditor.setTitle("x", ofFileAt: "/nonexistent/memo.wav", container: .wav)
        }
    }

    @Test func nulInTitleIsRefused() throws {
        let memo = try MemoFixture(.wav)
        defer { memo.remove() }
        let original = memo.bytes
        #expect(throws: TagEditError.self) {
            try TagEditor.setTitle("a\0b", ofFileAt: memo.path, container: .wav)
        }
        #expect(memo.bytes == original)
    }
}
