import AudioContainers
import Foundation
import SoundFile
import Testing
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// Titles rewritten without moving the audio: a WAV memo's LIST chunk in its room or at the
/// end, an RF64 one's with its ds64 size, a FLAC memo's comments in its padding, an MP3
/// memo's ID3v2 tag in its room; and the journal that makes each of them all-or-nothing
/// across a crash.
@Suite("Tags rewritten in place")
struct InPlaceTagTests {
    /// A title longer than the room the writer leaves after the LIST chunk.
    static let hugeTitle = String(repeating: "Quarterly planning, again — ", count: 60)

    @Test func aWaveTitleThatFitsIsWrittenInItsRoom() throws {
        let memo = try MemoFixture(.wav)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        let size = try FileBytes.size(memo.path)
        let layout = try RiffChunks(memo.path)
        #expect(layout.ids == ["JUNK", "fmt ", "fact", "LIST", "JUNK", "data"], "the writer leaves room")
        let data = try #require(layout.chunk("data"))

        for title in [TagEditorTests.longTitle, "Short", ""] {
            #expect(try TagEditor.setText(title, for: .title, ofFileAt: memo.path, container: .wav, stoppingAfter: nil))
            #expect(try FileBytes.size(memo.path) == size, "not a byte appended")
            let after = try RiffChunks(memo.path)
            #expect(after.chunk("data") == data, "the audio did not move")
            #expect(after.riffSize == size - 8)
            #expect(try Decoded(memo.path) == before.retitled(title.isEmpty ? nil : title))
            #expect(try Self.title(memo.path) == (title.isEmpty ? nil : title))
            #expect(try ToolReport.ffprobeTags(memo.path)["date"] == MemoFixture.date)
            #expect(memo.directoryEntries == ["memo.wav"])
        }
    }

    @Test func aWaveTitleWithoutRoomGoesToTheEndAndTheOldListBecomesJunk() throws {
        let memo = try MemoFixture(.wav)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        let size = try FileBytes.size(memo.path)
        let old = try #require(try RiffChunks(memo.path).chunk("LIST"))
        let data = try #require(try RiffChunks(memo.path).chunk("data"))

        #expect(
            try TagEditor.setText(Self.hugeTitle, for: .title, ofFileAt: memo.path, container: .wav, stoppingAfter: nil)
        )
        let appended = try RiffChunks(memo.path)
        #expect(appended.ids == ["JUNK", "fmt ", "fact", "JUNK", "JUNK", "data", "LIST"])
        #expect(appended.chunks[3].range == old.range, "the old list, renamed, in its place")
        #expect(appended.chunks[5] == data, "the audio did not move")
        #expect(appended.riffSize == (try FileBytes.size(memo.path)) - 8)
        #expect(try FileBytes.size(memo.path) > size)
        #expect(try Decoded(memo.path) == before.retitled(Self.hugeTitle))
        #expect(try Self.title(memo.path) == Self.hugeTitle)
        let sox = try ToolReport.sox(memo.path)
        #expect(sox.frames == before.frameCount)

        // The list is now last: it shrinks where it is, and the file with it.
        #expect(
            try TagEditor.setText("Short again", for: .title, ofFileAt: memo.path, container: .wav, stoppingAfter: nil))
        let shrunk = try RiffChunks(memo.path)
        #expect(shrunk.ids == appended.ids)
        #expect(shrunk.riffSize == (try FileBytes.size(memo.path)) - 8)
        #expect(try FileBytes.size(memo.path) < size + 200)
        #expect(try Decoded(memo.path) == before.retitled("Short again"))
        #expect(abs(try ToolReport.ffprobe(memo.path).duration - 2) < 0.001)
        #expect(memo.directoryEntries == ["memo.wav"])
    }

    /// ffmpeg's RF64 (no room after its LIST chunk): the list goes to the end and the ds64
    /// chunk's RIFF size follows; the 32-bit one stays the placeholder.
    @Test func anRF64TitleWithoutRoomGrowsTheDs64Size() throws {
        let memo = try MemoFixture(.wav, channels: 2)
        defer { memo.remove() }
        let path = memo.directory + "/rf64.wav"
        try ToolReport.convert(memo.path, to: path, ffmpegOptions: ["-rf64", "always", "-metadata", "title=First"])
        let before = try Decoded(path)
        #expect(try FileBytes.header(path) == "RF64")
        let data = try #require(try RiffChunks(path).chunk("data"))

        #expect(try TagEditor.setText(Self.hugeTitle, for: .title, ofFileAt: path, container: .wav, stoppingAfter: nil))
        let after = try RiffChunks(path)
        #expect(after.chunk("data") == data)
        #expect(after.ids.last == "LIST")
        #expect(try FileBytes.read(path, at: 4, count: 4) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(after.riffSize == (try FileBytes.size(path)) - 8, "the ds64 chunk's size")
        #expect(try Decoded(path) == before.retitled(Self.hugeTitle))
        #expect(try Self.title(path) == Self.hugeTitle)
        #expect(abs(try ToolReport.ffprobe(path).duration - 2) < 0.001)
    }

    @Test func flacCommentsGoIntoThePaddingOnceThereIsSome() throws {
        let memo = try MemoFixture(.flac)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        // libsndfile writes no padding: the first edit rewrites the file, and leaves some.
        #expect(
            !(try TagEditor.setText("First", for: .title, ofFileAt: memo.path, container: .flac, stoppingAfter: nil)))
        let blocks = try Self.metaflacBlocks(memo.path)
        #expect(blocks.map(\.type) == ["STREAMINFO", "VORBIS_COMMENT", "PADDING"])
        let size = try FileBytes.size(memo.path)
        let room = blocks[1].length + blocks[2].length

        for title in [TagEditorTests.longTitle, "Short", ""] {
            #expect(
                try TagEditor.setText(title, for: .title, ofFileAt: memo.path, container: .flac, stoppingAfter: nil))
            #expect(try FileBytes.size(memo.path) == size)
            let now = try Self.metaflacBlocks(memo.path)
            #expect(now.map(\.type) == ["STREAMINFO", "VORBIS_COMMENT", "PADDING"])
            #expect(now[1].length + now[2].length == room, "the padding takes up the difference")
            #expect(try Decoded(memo.path) == before.retitled(title.isEmpty ? nil : title))
            #expect(try Self.title(memo.path) == (title.isEmpty ? nil : title))
            #expect(memo.directoryEntries == ["memo.flac"])
        }
        // metaflac checks the stream and every block.
        #expect(try Self.run("flac", ["-t", "-s", memo.path]).status == 0)
    }

    @Test func flacCommentsTooLongForThePaddingFallBackToARewrite() throws {
        let memo = try MemoFixture(.flac)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        try TagEditor.setTitle("First", ofFileAt: memo.path, container: .flac)
        let title = String(repeating: "A title past the padding. ", count: 400)
        #expect(!(try TagEditor.setText(title, for: .title, ofFileAt: memo.path, container: .flac, stoppingAfter: nil)))
        #expect(try Decoded(memo.path) == before.retitled(title))
        #expect(try Self.title(memo.path) == title)
        #expect(memo.directoryEntries == ["memo.flac"])
    }

    /// An MP3 memo starts with an ID3v2.4 tag that has room: its frames are rewritten there,
    /// the padding takes up the difference, and the MPEG frames after it never move.
    @Test func anMP3TitleIsWrittenInTheRoomOfItsID3Tag() throws {
        let memo = try MemoFixture(.mp3)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        let size = try FileBytes.size(memo.path)
        let tagEnd = try Self.id3TagEnd(memo.path)
        #expect(try FileBytes.read(memo.path, at: 0, count: 4) == Array("ID3".utf8) + [4])
        #expect(tagEnd > 4096, "the writer leaves room")
        let audio = try FileBytes.read(memo.path, at: tagEnd, count: Int(size - tagEnd))
        let tags = try ToolReport.ffprobeTags(memo.path)
        #expect(tags["date"] == "2024-05-06T07:08:09", "\(tags)")
        #expect(abs(try ToolReport.ffprobe(memo.path).duration - 2) < 0.05)

        for title in [TagEditorTests.longTitle, "Short", ""] {
            #expect(try TagEditor.setText(title, for: .title, ofFileAt: memo.path, container: .mp3, stoppingAfter: nil))
            #expect(try FileBytes.size(memo.path) == size, "not a byte appended")
            #expect(try Self.id3TagEnd(memo.path) == tagEnd)
            #expect(try FileBytes.read(memo.path, at: tagEnd, count: audio.count) == audio, "the audio did not move")
            #expect(try Decoded(memo.path) == before.retitled(title.isEmpty ? nil : title))
            #expect(try Self.title(memo.path) == (title.isEmpty ? nil : title))
            #expect(memo.directoryEntries == ["memo.mp3"])
        }
        // A transcript of a few minutes fits as well.
        let transcript = "WEBVTT\n\n" + String(repeating: "00:00.000 --> 00:02.000\nA few words.\n\n", count: 60)
        #expect(
            try TagEditor.setText(
                transcript, for: .transcript, ofFileAt: memo.path, container: .mp3, stoppingAfter: nil))
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: .mp3) == transcript)
        #expect(try FileBytes.read(memo.path, at: tagEnd, count: audio.count) == audio)
        #expect(try ToolReport.ffprobeTags(memo.path)["date"] == "2024-05-06T07:08:09")
    }

    /// An MP3 file another program wrote without an ID3v2 tag, or whose frames outgrow the
    /// room, is rewritten whole once and given room; the next edit is made in place. An ID3v1
    /// tag at the end gets the title too, in place.
    @Test func anMP3WithoutRoomIsRewrittenOnceAndGetsSome() throws {
        let memo = try MemoFixture(.mp3)
        defer { memo.remove() }
        let before = try Decoded(memo.path)
        // The MPEG frames alone, and an ID3v1 tag after them, as older encoders write.
        let frames = memo.bytes.dropFirst(Int(try Self.id3TagEnd(memo.path)))
        var v1 = Array("TAG".utf8) + Array("Old".utf8) + [UInt8](repeating: 0, count: 125 - 3)
        v1[127] = 255  // no genre
        try (Data(frames) + Data(v1)).write(to: URL(fileURLWithPath: memo.path))
        #expect(try TagEditor.title(ofFileAt: memo.path, container: .mp3) == "Old")

        #expect(
            !(try TagEditor.setText("First", for: .title, ofFileAt: memo.path, container: .mp3, stoppingAfter: nil)))
        let tagEnd = try Self.id3TagEnd(memo.path)
        #expect(tagEnd > 4096, "room for the next edit")
        #expect(try TagEditor.setText("Second", for: .title, ofFileAt: memo.path, container: .mp3, stoppingAfter: nil))
        #expect(try Self.id3TagEnd(memo.path) == tagEnd)
        #expect(
            try FileBytes.read(memo.path, at: try FileBytes.size(memo.path) - 125, count: 6) == Array("Second".utf8))

        let transcript = String(repeating: "Longer than the room. ", count: 300)
        #expect(
            !(try TagEditor.setText(
                transcript, for: .transcript, ofFileAt: memo.path, container: .mp3, stoppingAfter: nil)))
        #expect(try TagEditor.setText("Third", for: .title, ofFileAt: memo.path, container: .mp3, stoppingAfter: nil))
        #expect(try TagEditor.text(of: .transcript, ofFileAt: memo.path, container: .mp3) == transcript)
        #expect(try Self.title(memo.path) == "Third")
        let after = try Decoded(memo.path)
        #expect(after.samples == before.samples && after.frameCount == before.frameCount)
        #expect(memo.directoryEntries == ["memo.mp3"])
    }

    /// Where an MP3 file's ID3v2 tag (header and body) ends.
    static func id3TagEnd(_ path: String) throws -> Int64 {
        let header = try FileBytes.read(path, at: 0, count: 10)
        guard header.starts(with: Array("ID3".utf8)) else { return 0 }
        return 10 + header[6...].reduce(0) { $0 << 7 | Int64($1) }
    }

    /// Each in-place path stopped after each step, as a SIGKILL there would stop it; the
    /// next start (`recoverInterruptedEdits`) puts back the memo exactly as it was.
    @Test(arguments: InPlaceCase.allCases, TagJournal.Step.allCases)
    func anEditStoppedAtAnyStepIsUndoneAtTheNextStart(kind: InPlaceCase, step: TagJournal.Step) throws {
        let memo = try kind.memo()
        defer { memo.remove() }
        let original = memo.bytes
        let journal = TagJournal.path(forMemoAt: memo.path)

        #expect(
            try TagEditor.setText(
                kind.newTitle, for: .title, ofFileAt: memo.path, container: memo.container, stoppingAfter: step))
        #expect(FileManager.default.fileExists(atPath: journal))
        var status = stat()
        #expect(stat(journal, &status) == 0 && status.st_mode & 0o777 == 0o600, "the journal is user-only")

        let lines = TagEditor.recoverInterruptedEdits(in: memo.directory)
        #expect(lines.count == 1 && lines[0].contains("undone"), "\(lines)")
        #expect(memo.bytes == original, "the old bytes are back, the old size too")
        #expect(try TagEditor.title(ofFileAt: memo.path, container: memo.container) == kind.oldTitle)
        #expect(memo.directoryEntries == [memo.path.split(separator: "/").last.map(String.init)!])
        #expect(TagEditor.recoverInterruptedEdits(in: memo.directory).isEmpty)
    }

    /// A journal cut short while it was written never let the memo be touched: it is
    /// deleted, whatever its length, and the memo is left as it is.
    @Test(arguments: InPlaceCase.allCases)
    func aTornJournalIsDroppedAndTheMemoLeftAlone(kind: InPlaceCase) throws {
        let memo = try kind.memo()
        defer { memo.remove() }
        let original = memo.bytes
        let journal = TagJournal.path(forMemoAt: memo.path)
        try TagEditor.setText(
            kind.newTitle, for: .title, ofFileAt: memo.path, container: memo.container, stoppingAfter: .journalSynced)
        let whole = try Data(contentsOf: URL(fileURLWithPath: journal))
        #expect(memo.bytes == original)

        for length in stride(from: 0, to: whole.count, by: max(1, whole.count / 97)) {
            try whole.prefix(length).write(to: URL(fileURLWithPath: journal))
            #expect(try TagJournal.recover(memoAt: memo.path) == .dropped, "cut at \(length) of \(whole.count)")
            #expect(!FileManager.default.fileExists(atPath: journal))
            #expect(memo.bytes == original)
        }
        // One flipped bit in the old bytes: the checksum catches it.
        var flipped = whole
        flipped[whole.count / 2] ^= 0x10
        try flipped.write(to: URL(fileURLWithPath: journal))
        #expect(try TagJournal.recover(memoAt: memo.path) == .dropped)
        #expect(memo.bytes == original)
    }

    /// A journal left behind is undone before the next edit, which then starts from the old bytes.
    @Test func aNewEditUndoesALeftoverJournalFirst() throws {
        let memo = try MemoFixture(.wav)
        defer { memo.remove() }
        try TagEditor.setText(
            Self.hugeTitle, for: .title, ofFileAt: memo.path, container: .wav, stoppingAfter: .firstRunWritten)
        try TagEditor.setTitle("Next", ofFileAt: memo.path, container: .wav)
        #expect(try TagEditor.title(ofFileAt: memo.path, container: .wav) == "Next")
        #expect(try RiffChunks(memo.path).ids == ["JUNK", "fmt ", "fact", "LIST", "JUNK", "data"])
        #expect(memo.directoryEntries == ["memo.wav"])
    }

    /// The title as ffprobe reads it, whatever the case of its key (FLAC keeps the writer's).
    static func title(_ path: String) throws -> String? {
        try ToolReport.ffprobeTags(path).first { $0.key.lowercased() == "title" }?.value
    }

    static func metaflacBlocks(_ path: String) throws -> [(type: String, length: Int)] {
        let listing = try run("metaflac", ["--list", path]).output.split(separator: "\n")
        var blocks: [(type: String, length: Int)] = []
        for line in listing.map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("type: ") {
                blocks.append((String(line.split(separator: " ").last!.dropFirst().dropLast()), 0))
            }
            if line.hasPrefix("length: "), !blocks.isEmpty { blocks[blocks.count - 1].length = Int(line.dropFirst(8))! }
        }
        return blocks
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}

/// The in-place paths a journal covers.
enum InPlaceCase: CaseIterable, Sendable {
    /// A WAV memo's list rewritten in its room.
    case waveInRoom
    /// A WAV memo's list appended, the old one renamed `JUNK`, the RIFF size changed.
    case waveAppended
    /// A WAV memo's list, last in the file, rewritten shorter there: the file shrinks.
    case waveShrunkAtTheEnd
    /// A FLAC memo's comments written into its padding.
    case flacPadding
    /// An MP3 memo's ID3v2 tag rewritten in its room.
    case mp3Room

    var oldTitle: String {
        switch self {
        case .waveInRoom, .waveAppended, .mp3Room: MemoFixture.originalTitle
        case .waveShrunkAtTheEnd: InPlaceTagTests.hugeTitle
        case .flacPadding: "Padded"
        }
    }
    var newTitle: String { self == .waveAppended ? InPlaceTagTests.hugeTitle : "A new title" }

    func memo() throws -> MemoFixture {
        switch self {
        case .waveInRoom, .waveAppended: return try MemoFixture(.wav)
        case .mp3Room: return try MemoFixture(.mp3)
        case .waveShrunkAtTheEnd:
            let memo = try MemoFixture(.wav)
            try TagEditor.setTitle(oldTitle, ofFileAt: memo.path, container: .wav)
            return memo
        case .flacPadding:
            let memo = try MemoFixture(.flac)
            try TagEditor.setTitle(oldTitle, ofFileAt: memo.path, container: .flac)
            return memo
        }
    }
}

extension Decoded {
    /// What the file decodes to with `title` instead: every sample the same.
    func retitled(_ title: String?) -> RetitledDecoding { RetitledDecoding(base: self, title: title) }
}

/// A decoding compared with another but for the title, which must be `title`.
struct RetitledDecoding {
    let base: Decoded
    let title: String?

    static func == (lhs: Decoded, rhs: RetitledDecoding) -> Bool {
        lhs.title == rhs.title && lhs.frameCount == rhs.base.frameCount && lhs.sampleRate == rhs.base.sampleRate
            && lhs.channelCount == rhs.base.channelCount && lhs.samples == rhs.base.samples
            && lhs.date == rhs.base.date
    }
}

/// The top-level chunks of a WAVE (or RF64) file, as a reader walks them.
struct RiffChunks {
    struct Chunk: Equatable {
        var id: String
        var range: Range<Int64>
    }

    var chunks: [Chunk] = []
    /// The RIFF size: the header's, or the ds64 chunk's for RF64.
    var riffSize: Int64

    init(_ path: String) throws {
        func integer(_ bytes: [UInt8]) -> Int64 { bytes.reversed().reduce(0) { $0 << 8 | Int64($1) } }
        let size = try FileBytes.size(path)
        riffSize = integer(try FileBytes.read(path, at: 4, count: 4))
        var dataSize: Int64?
        if try FileBytes.header(path) == "RF64" {
            riffSize = integer(try FileBytes.read(path, at: 20, count: 8))
            dataSize = integer(try FileBytes.read(path, at: 28, count: 8))
        }
        var offset: Int64 = 12
        while offset + 8 <= min(size, riffSize + 8) {
            let header = try FileBytes.read(path, at: offset, count: 8)
            let id = String(decoding: header[..<4], as: UTF8.self)
            var length = integer(Array(header[4...]))
            if id == "data", let dataSize { length = dataSize }
            if id != "ds64" { chunks.append(Chunk(id: id, range: offset + 8..<offset + 8 + length)) }
            offset += 8 + length + length % 2
        }
    }

    var ids: [String] { chunks.map(\.id) }

    func chunk(_ id: String) -> Chunk? { chunks.first { $0.id == id } }
}
