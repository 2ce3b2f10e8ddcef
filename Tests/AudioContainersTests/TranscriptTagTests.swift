import AudioContainers
import Foundation
import SoundFile
import Testing
import VoiceMemoCore

/// The transcript tag: a few hundred KB of multi-line WebVTT in each container, beside the
/// title and the other tags, read back by us, by libsndfile's view of the file and by ffprobe.
@Suite("Transcript tags in every container")
struct TranscriptTagTests {
    /// About 300 KB of WebVTT: thousands of cues, accents, emoji, and text that looks like markup.
    static let transcript: String = {
        let lines = [
            "Réunion à Zürich ☕🎙️ about the plumber",
            "fish & chips <3 and a --> arrow",
            "naïve façade — the last line of the cue",
        ]
        let segments = (0..<4500).map { index in
            Transcript.Segment(
                start: Double(index) * 2, end: Double(index) * 2 + 1.5, text: "\(index) " + lines[index % 3])
        }
        return Transcript(segments: segments).webVTT
    }()

    /// ffprobe's name for the transcript tag in each format.
    static func ffprobeName(_ format: AudioFormat) -> String {
        switch format {
        // Vorbis comment field names, which ffmpeg upper-cases, and the TXXX frame's description.
        case .flac, .opus, .vorbis, .mp3: "TRANSCRIPT"
        // An INFO id ffmpeg has no name for is listed under the id itself.
        case .wav: "ITRS"
        }
    }

    @Test(arguments: AudioFormat.allCases)
    func aTranscriptIsStoredBesideTheTitleAndTheAudio(format: AudioFormat) throws {
        #expect(Self.transcript.utf8.count > 300_000)
        let memo = try MemoFixture(format)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        let tagsBefore = try ToolReport.ffprobeTags(memo.path)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: memo.container) == nil)

        try TagEditor.setText(Self.transcript, for: .transcript, ofFileAt: memo.path, container: memo.container)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: memo.container) == Self.transcript)
        #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == MemoFixture.originalTitle)
        // The daemon's start-up read: both tags from one opening of the file.
        #expect(
            try TagEditor.texts(ofFileAt: memo.path, container: memo.container)
                == [.title: MemoFixture.originalTitle, .transcript: Self.transcript])
        var after = try Decoded(memo.path)
        #expect(after.samples == before.samples, "decoded audio changed for \(format)")
        #expect(after.title == MemoFixture.originalTitle, "libsndfile reads another title from \(format)")
        #expect(after.date == before.date, "date tag lost for \(format)")
        var tags = try ToolReport.ffprobeTags(memo.path)
        #expect(tags[Self.ffprobeName(format)] == Self.transcript, "ffprobe's tags: \(tags.keys.sorted())")
        // What players read of the other tags is as it was; for an MP3 whose title and date
        // were in ID3v1 alone, the new ID3v2 tag carries them, as ffmpeg then ignores ID3v1.
        #expect(tags.keys.contains { $0.lowercased() == "title" })
        for (key, value) in tagsBefore { #expect(tags[key] == value, "\(format): ffprobe's \(key)") }

        // Renaming keeps the transcript; setting the transcript again replaces it.
        try TagEditor.setTitle("Renamed", ofFileAt: memo.path, container: memo.container)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: memo.container) == Self.transcript)
        try TagEditor.setText("WEBVTT\n", for: .transcript, ofFileAt: memo.path, container: memo.container)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: memo.container) == "WEBVTT\n")
        #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == "Renamed")

        try TagEditor.setText(nil, for: .transcript, ofFileAt: memo.path, container: memo.container)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: memo.container) == nil)
        #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == "Renamed")
        after = try Decoded(memo.path)
        #expect(after.samples == before.samples)
        #expect(after.title == "Renamed")
        #expect(after.date == before.date)
        tags = try ToolReport.ffprobeTags(memo.path)
        #expect(tags[Self.ffprobeName(format)] == nil)
        #expect(memo.directoryEntries == ["memo." + format.fileExtension])
    }

    /// A file without a title gets a transcript alone.
    @Test(arguments: AudioFormat.allCases)
    func aFileWithoutTagsGetsATranscriptAndNoTitle(format: AudioFormat) throws {
        let memo = try MemoFixture(format, title: nil)
        defer { memo.remove() }
        try TagEditor.setText(Self.transcript, for: .transcript, ofFileAt: memo.path, container: memo.container)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: memo.container) == Self.transcript)
        #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == nil)
        #expect(try TagEditor.texts(ofFileAt: memo.path, container: memo.container) == [.transcript: Self.transcript])
        #expect(try ToolReport.ffprobeTags(memo.path)[Self.ffprobeName(format)] == Self.transcript)
        // An empty text removes the tag, as an empty title does.
        try TagEditor.setText("", for: .transcript, ofFileAt: memo.path, container: memo.container)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: memo.container) == nil)
    }

    /// Other programs write ID3v2.3 (ffmpeg, LAME, most taggers); v2.3 has no UTF-8, so the
    /// TXXX frame is UTF-16 there, and its size a plain 32-bit number.
    @Test func anID3v23TagGetsAUTF16TranscriptFrame() throws {
        let memo = try MemoFixture(.mp3, title: TagEditorTests.longTitle)
        defer { memo.remove() }
        let path = memo.directory + "/v23.mp3"
        try ToolReport.convert(memo.path, to: path, ffmpegOptions: ["-c", "copy", "-id3v2_version", "3"])
        #expect(try FileBytes.read(path, at: 0, count: 4) == Array("ID3".utf8) + [3])
        try TagEditor.setText(Self.transcript, for: .transcript, ofFileAt: path, container: .mp3)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: path, container: .mp3) == Self.transcript)
        #expect(try TagEditor.title(ofFileAt: path, container: .mp3) == TagEditorTests.longTitle)
        #expect(try ToolReport.ffprobeTags(path)["TRANSCRIPT"] == Self.transcript)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let frame = try #require(bytes.firstRange(of: Array("TXXX".utf8)))
        let size = bytes[frame.upperBound..<frame.upperBound + 4].reduce(0) { $0 << 8 | Int($1) }
        // Encoding, BOM + description + NUL, BOM + value, in UTF-16 code units.
        #expect(size == 1 + 2 * (1 + 10 + 1) + 2 * (1 + Self.transcript.utf16.count))
        #expect(bytes[frame.upperBound + 6] == 1)
    }

    /// In ID3v2.4 a frame's size is syncsafe: 7 bits a byte, so no byte of it looks like an
    /// MPEG sync; a transcript of 300 KB needs three of its bytes.
    @Test func anID3v24TranscriptFrameHasASyncsafeSize() throws {
        let memo = try MemoFixture(.mp3)
        defer { memo.remove() }
        try TagEditor.setText(Self.transcript, for: .transcript, ofFileAt: memo.path, container: .mp3)
        let bytes = [UInt8](memo.bytes)
        #expect(bytes.starts(with: Array("ID3".utf8) + [4]))
        let frame = try #require(bytes.firstRange(of: Array("TXXX".utf8)))
        let sizeBytes = Array(bytes[frame.upperBound..<frame.upperBound + 4])
        #expect(sizeBytes.allSatisfy { $0 < 0x80 })
        let size = sizeBytes.reduce(0) { $0 << 7 | Int($1) }
        #expect(size == 1 + "TRANSCRIPT".utf8.count + 1 + Self.transcript.utf8.count)
        #expect(size > 1 << 14, "the size must need more than two syncsafe bytes to prove anything")
        let body = Array(bytes[frame.upperBound + 6..<frame.upperBound + 6 + size])
        #expect(body == [3] + Array("TRANSCRIPT".utf8) + [0] + Array(Self.transcript.utf8))
    }

    /// A Vorbis comment field is its 32-bit little-endian length, then `TRANSCRIPT=` and UTF-8.
    @Test func aFlacTranscriptFieldCarriesItsLength() throws {
        let memo = try MemoFixture(.flac)
        defer { memo.remove() }
        try TagEditor.setText(Self.transcript, for: .transcript, ofFileAt: memo.path, container: .flac)
        let bytes = [UInt8](memo.bytes)
        let field = try #require(bytes.firstRange(of: Array("TRANSCRIPT=".utf8)))
        let length = bytes[field.lowerBound - 4..<field.lowerBound].reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(length == "TRANSCRIPT=".utf8.count + Self.transcript.utf8.count)
        #expect(Array(bytes[field.upperBound..<field.lowerBound + length]) == Array(Self.transcript.utf8))
    }

    /// ffmpeg names no INFO id for a transcript, so the raw chunk is checked too: an `ITRS`
    /// entry holding the text and a NUL, its size counting both, a pad byte after an odd size,
    /// and the LIST and RIFF sizes that still add up.
    @Test(arguments: ["WEBVTT\n", "WEBVTT\n\n"])
    func aWaveTranscriptIsAnEvenPaddedInfoEntry(suffix: String) throws {
        let memo = try MemoFixture(.wav)
        defer { memo.remove() }
        let text = Self.transcript + suffix
        try TagEditor.setText(text, for: .transcript, ofFileAt: memo.path, container: .wav)
        let bytes = [UInt8](memo.bytes)
        let littleEndian = { (offset: Int) in bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) } }
        let entry = try #require(bytes.firstRange(of: Array("ITRS".utf8)))
        let size = littleEndian(entry.upperBound)
        #expect(size == text.utf8.count + 1)
        #expect(Array(bytes[entry.upperBound + 4..<entry.upperBound + 4 + size]) == Array(text.utf8) + [0])
        let list = try #require(bytes.firstRange(of: Array("LIST".utf8)))
        let listSize = littleEndian(list.upperBound)
        #expect(listSize % 2 == 0)
        if size % 2 == 1 { #expect(bytes[entry.upperBound + 4 + size] == 0) }
        #expect(littleEndian(4) == bytes.count - 8)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: .wav) == text)
        #expect(try ToolReport.ffprobeTags(memo.path)["ITRS"] == text)
        #expect(try ToolReport.sox(memo.path).frames == 96000)
    }

    /// A hand-edited WAV whose last `LIST` chunk is broken (an entry longer than the chunk)
    /// keeps the title found before it: the one-pass read gives what reading the title
    /// alone gave, and no transcript.
    @Test func aBrokenListAfterTheTitleLeavesTheTitleReadable() throws {
        let memo = try MemoFixture(.wav)
        defer { memo.remove() }
        var bytes = [UInt8](memo.bytes)
        var list = Array("LIST".utf8)
        list.append(contentsOf: [12, 0, 0, 0] + Array("INFO".utf8) + Array("ITRS".utf8) + [100, 0, 0, 0])
        bytes += list
        let riffSize = UInt32(bytes.count - 8)
        bytes.replaceSubrange(4..<8, with: (0..<4).map { UInt8(truncatingIfNeeded: riffSize >> (8 * $0)) })
        try Data(bytes).write(to: URL(fileURLWithPath: memo.path))

        #expect(try TagEditor.texts(ofFileAt: memo.path, container: .wav) == [.title: MemoFixture.originalTitle])
        #expect(try TagEditor.title(ofFileAt: memo.path, container: .wav) == MemoFixture.originalTitle)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: .wav) == nil)
    }

    /// An RF64 file (ours past 4 GiB; ffmpeg writes this one at any length) stays RF64 with a
    /// transcript, its ds64 chunk's RIFF size grown by the entry and its data size kept.
    @Test func anRF64FileKeepsItsSizesWithATranscript() throws {
        let memo = try MemoFixture(.wav)
        defer { memo.remove() }
        let path = memo.directory + "/rf64.wav"
        try ToolReport.convert(memo.path, to: path, ffmpegOptions: ["-c", "copy", "-rf64", "always"])
        let before = try Decoded(path)
        let dataSize = try FileBytes.read(path, at: 28, count: 20)
        try TagEditor.setText(Self.transcript, for: .transcript, ofFileAt: path, container: .wav)
        #expect(try FileBytes.header(path) == "RF64")
        let riffSize = try FileBytes.read(path, at: 20, count: 8).reversed().reduce(0) { $0 << 8 | Int64($1) }
        #expect(riffSize == (try FileBytes.size(path)) - 8)
        #expect(try FileBytes.read(path, at: 28, count: 20) == dataSize)
        #expect(try TagEditor.text(of: .transcript, ofFileAt: path, container: .wav) == Self.transcript)
        #expect(try Decoded(path).samples == before.samples)
        #expect(try ToolReport.ffprobeTags(path)["ITRS"] == Self.transcript)
    }

    @Test func aNulInTheTranscriptIsRefused() throws {
        let memo = try MemoFixture(.flac)
        defer { memo.remove() }
        let original = memo.bytes
        #expect(throws: TagEditError.self) {
            try TagEditor.setText("WEBVTT\n\0", for: .transcript, ofFileAt: memo.path, container: .flac)
        }
        #expect(memo.bytes == original)
    }
}
