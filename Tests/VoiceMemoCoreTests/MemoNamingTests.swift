import FoundationEssentials
import Testing
import VoiceMemoCore

@Suite("Memo file names and ids")
struct MemoNamingTests {
    let date = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 11:06:40 UTC
    let utc = TimeZone(identifier: "UTC")!

    @Test func namesAreSortableStampsWithTitle() {
        #expect(MemoNaming.fileName(date: date, title: nil, format: .opus, timeZone: utc) == "2026-11-18 11.06.40.opus")
        #expect(
            MemoNaming.fileName(date: date, title: "Team sync", format: .vorbis, timeZone: utc)
                == "2026-11-18 11.06.40 Team sync.ogg")
        #expect(
            MemoNaming.fileName(date: date, title: nil, format: .wav, sequence: 3, timeZone: utc)
                == "2026-11-18 11.06.40-3.wav")
    }

    @Test(arguments: [
        ("2026-11-18 11.06.40.opus", "20261118T110640"),
        ("2026-11-18 11.06.40 Team sync.ogg", "20261118T110640"),
        ("2026-11-18 11.06.40-3.wav", "20261118T110640_3"),
        ("2026-11-18 11.06.40-3 Renamed.wav", "20261118T110640_3"),
    ])
    func idsKeepOnlyTheStampSoRenamesKeepThem(name: String, id: String) {
        #expect(MemoNaming.memoID(forFileName: name) == id)
    }

    @Test(arguments: [
        "interview.wav", "über café.flac", "2026-11-18.wav", "2026-11-18 11.06.40x.wav", ".hidden", "a_b",
    ])
    func otherNamesBecomeValidPathElements(name: String) {
        let id = MemoNaming.memoID(forFileName: name)
        #expect(id.first == "f")
        #expect(
            id.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
            })
    }

    @Test func escapingIsInjective() {
        #expect(MemoNaming.escapedIdentifier("a_b") != MemoNaming.escapedIdentifier("a b"))
        #expect(MemoNaming.escapedIdentifier("a.b") == "a_2eb")
    }

    @Test(arguments: [
        ("../../etc/passwd", "-..-etc-passwd"),
        ("...hidden", "hidden"),
        ("a/b\\c", "a-b-c"),
        ("  spaced  ", "spaced"),
        ("tab\there", "tab here"),
    ])
    func titlesCannotEscapeTheDirectory(title: String, safe: String) {
        #expect(MemoNaming.fileSafeTitle(title) == safe)
        #expect(!MemoNaming.fileName(date: date, title: title, format: .wav, timeZone: utc).contains("/"))
    }

    @Test func longTitlesFitInAFileName() {
        let name = MemoNaming.fileName(
            date: date, title: String(repeating: "é", count: 500), format: .flac, timeZone: utc)
        #expect(name.utf8.count <= 255)
    }

    @Test func titleIsReadBackFromTheName() {
        #expect(MemoNaming.title(forFileName: "2026-11-18 11.06.40 Team sync.ogg") == "Team sync")
        #expect(MemoNaming.title(forFileName: "2026-11-18 11.06.40.ogg") == nil)
        #expect(MemoNaming.title(forFileName: "interview.wav") == "interview")
    }
}
