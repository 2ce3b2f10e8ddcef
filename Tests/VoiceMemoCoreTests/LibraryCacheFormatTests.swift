import Testing
import VoiceMemoCore

@Suite("Library cache format")
struct LibraryCacheFormatTests {
    func memo(_ name: String, title: String = "Notes", duration: Double = 1.5) -> MemoInfo {
        MemoInfo(
            fileName: name, title: title, format: .opus, created: 1_767_225_600_123_456, duration: duration,
            sampleRate: 48_000, channels: 2, size: 12_345, modified: -7)
    }

    @Test func memosSurviveARoundTrip() {
        let memos = [
            memo("2026-01-01 00.00.00 Notes.opus"), memo("b.opus", title: "", duration: 0.1 + 0.2),
            memo("c.opus", title: "Ünïcode ✓", duration: 3600.000001),
        ]
        #expect(LibraryCacheFormat.decode(LibraryCacheFormat.encode(memos)) == memos)
    }

    @Test func tabsNewlinesAndBackslashesInNamesAndTitlesAreKept() {
        let memos = [memo("a\tb\\n.opus", title: "line\nbreak\\t\t")]
        let bytes = LibraryCacheFormat.encode(memos)
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 2, "the header and one line")
        #expect(LibraryCacheFormat.decode(bytes) == memos)
    }

    @Test func aTranscriptOfManyLinesIsOneFieldAndSurvives() {
        var spoken = memo("t.opus")
        spoken.transcript = "WEBVTT\n\n00:00:00.430 --> 00:00:02.000\nCall the plumber\tback\\now\n"
        let bytes = LibraryCacheFormat.encode([spoken, memo("u.opus")])
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 3, "the header and one line per memo")
        #expect(LibraryCacheFormat.decode(bytes) == [spoken, memo("u.opus")])
        #expect(LibraryCacheFormat.decode(bytes)[1].transcript == nil, "none stays none, not empty")
    }

    @Test func aDamagedLineIsSkippedAndTheRestKept() {
        var text = String(decoding: LibraryCacheFormat.encode([memo("a.opus"), memo("b.opus")]), as: UTF8.self)
        text = text.replacing("a.opus\tNotes\topus", with: "a.opus\tNotes\tmp4")
        text += "garbage\twithout\tfields\n" + "bad\\escape.opus\tx\topus\t1\t1\t1\t1\t1\t1\t\n"
        #expect(LibraryCacheFormat.decode(Array(text.utf8)).map(\.fileName) == ["b.opus"])
    }

    @Test func anotherVersionOrAnEmptyFileGivesNothing() {
        #expect(LibraryCacheFormat.decode([UInt8]()).isEmpty)
        #expect(LibraryCacheFormat.decode(Array("[{\"id\":\"x\"}]".utf8)).isEmpty, "the old JSON cache")
        let newer =
            Array("voicememo-library-cache 4\n".utf8) + LibraryCacheFormat.encode([memo("a.opus")]).dropFirst(26)
        #expect(LibraryCacheFormat.decode(newer).isEmpty)
    }

    @Test func infiniteOrNonNumericFieldsAreRejected() {
        let line = "x.opus\tt\topus\t1\tinf\t48000\t1\t10\t1\t\ny.opus\tt\topus\tnow\t1\t48000\t1\t10\t1\t\n"
        #expect(LibraryCacheFormat.decode(Array((LibraryCacheFormat.header + "\n" + line).utf8)).isEmpty)
    }
}
