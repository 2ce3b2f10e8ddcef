import FoundationEssentials
import Testing
import VoiceMemoCore

@Suite("Memo catalog")
struct MemoCatalogTests {
    func info(_ name: String, size: UInt64 = 100, modified: Int64 = 1) -> MemoInfo {
        MemoInfo(
            fileName: name, title: "", format: .wav, created: 0, duration: 1, sampleRate: 48000, channels: 1,
            size: size,
            modified: modified)
    }

    func status(_ name: String, size: UInt64 = 100, modified: Int64 = 1) -> MemoFileStatus {
        MemoFileStatus(fileName: name, size: size, modified: modified)
    }

    @Test func unchangedFilesAreNotReadAgain() {
        let catalog = MemoCatalog([info("2026-11-18 11.06.40.wav")])
        #expect(catalog.changes(for: [status("2026-11-18 11.06.40.wav")]) == .init())
    }

    @Test func newChangedAndVanishedFilesAreFound() {
        let catalog = MemoCatalog([info("a.wav"), info("b.wav"), info("c.wav")])
        let changes = catalog.changes(for: [status("a.wav"), status("b.wav", size: 200), status("d.flac")])
        #expect(changes.toRead.map(\.fileName) == ["b.wav", "d.flac"])
        #expect(changes.removed == [MemoNaming.memoID(forFileName: "c.wav")])
    }

    @Test func filesBeingRecordedAndNonAudioFilesAreIgnored() {
        let changes = MemoCatalog().changes(
            for: [status("now.opus"), status("notes.txt"), status(".hidden.wav"), status("README"), status("x.OGG")],
            ignoring: ["now.opus"])
        #expect(changes.toRead.map(\.fileName) == ["x.OGG"])
    }

    @Test func aRenamedStampedMemoKeepsItsId() {
        let catalog = MemoCatalog([info("2026-11-18 11.06.40.wav")])
        let changes = catalog.changes(for: [status("2026-11-18 11.06.40 Notes.wav")])
        #expect(changes.toRead.map(\.fileName) == ["2026-11-18 11.06.40 Notes.wav"])
        #expect(changes.removed.isEmpty, "same id: updated in place, not removed and added")
    }

    @Test func newestFirst() {
        var older = info("a.wav")
        older.created = 1
        var newer = info("b.wav")
        newer.created = 2
        #expect(MemoCatalog([older, newer]).newestFirst.map(\.fileName) == ["b.wav", "a.wav"])
    }

    @Test(arguments: [
        ("2026-11-18 11.06.40.wav", "Meeting notes", "2026-11-18 11.06.40 Meeting notes.wav"),
        ("2026-11-18 11.06.40 Old.wav", "New", "2026-11-18 11.06.40 New.wav"),
        ("2026-11-18 11.06.40-2 Old.flac", "", "2026-11-18 11.06.40-2.flac"),
        ("2026-11-18 11.06.40 Old.ogg", "../../etc/x", "2026-11-18 11.06.40 -..-etc-x.ogg"),
        ("interview.wav", "Anything", "interview.wav"),
    ])
    func renamingKeepsTheStamp(name: String, title: String, renamed: String) {
        #expect(MemoNaming.renamedFileName(name, title: title) == renamed)
        #expect(MemoNaming.memoID(forFileName: renamed) == MemoNaming.memoID(forFileName: name))
    }

    @Test func creationDateComesFromTheStamp() throws {
        let utc = TimeZone(identifier: "UTC")!
        let date = try #require(MemoNaming.creationDate(forFileName: "2026-11-18 11.06.40 X.wav", timeZone: utc))
        #expect(date.timeIntervalSince1970 == 1_795_000_000)
        #expect(MemoNaming.creationDate(forFileName: "interview.wav") == nil)
    }
}
