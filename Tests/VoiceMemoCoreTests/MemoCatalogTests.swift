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

    @Test func theRevisionMovesWithEachAddChangeAndRemovalAndNothingElse() {
        var catalog = MemoCatalog([info("a.wav")])
        var seen = [catalog.revision]
        catalog.insert(info("b.wav"))
        seen.append(catalog.revision)
        var changed = info("a.wav")
        changed.title = "Budget"
        catalog.insert(changed)
        seen.append(catalog.revision)
        catalog.insert(contentsOf: [info("c.wav"), info("d.wav")])
        seen.append(catalog.revision)
        catalog.remove(id: MemoNaming.memoID(forFileName: "b.wav"))
        seen.append(catalog.revision)
        #expect(Set(seen).count == seen.count, "each change gives a revision not seen before: \(seen)")

        // The same memo again, a removal of none, pages and searches change nothing.
        let settled = catalog.revision
        catalog.insert(changed)
        catalog.remove(id: "nothing-like-it")
        _ = catalog.page(offset: 0, count: 10)
        _ = catalog.find("Budget")
        #expect(catalog.revision == settled)
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

@Suite("Memo catalog pages and search")
struct MemoCatalogPagingTests {
    func memo(_ name: String, created: Int64, title: String = "") -> MemoInfo {
        MemoInfo(
            fileName: name, title: title, format: .wav, created: created, duration: 1, sampleRate: 48000, channels: 1,
            size: 100, modified: 1)
    }

    /// Ten memos, created out of name order, two of them in the same microsecond.
    var library: MemoCatalog {
        MemoCatalog((0..<10).map { memo("m\($0).wav", created: Int64(($0 * 7) % 10)) } + [memo("tie.wav", created: 3)])
    }

    @Test func pagesFollowCreationNewestFirstAndTiesById() {
        var catalog = library
        let all = catalog.page(offset: 0, count: 100)
        let expected = catalog.memos.values.sorted { ($0.created, $0.id) > ($1.created, $1.id) }
        #expect(all == expected)
        #expect(all.count == 11)
        let tied = all.filter { $0.created == 3 }.map(\.id)
        #expect(tied == tied.sorted(by: >), "greater id first among equals")
    }

    @Test func oldestIsTheExactReverseAndPagesJoinUp() {
        var catalog = library
        let newest = catalog.page(offset: 0, count: 100)
        #expect(catalog.page(offset: 0, count: 100, order: .oldest) == newest.reversed())
        var joined: [MemoInfo] = []
        for offset in stride(from: 0, to: 12, by: 4) { joined += catalog.page(offset: offset, count: 4) }
        #expect(joined == newest)
        #expect(catalog.page(offset: 9, count: 4, order: .oldest) == Array(newest.prefix(2).reversed()))
    }

    @Test func emptyPagesAtTheEndAndForNoCount() {
        var catalog = library
        #expect(catalog.page(offset: 11, count: 5).isEmpty)
        #expect(catalog.page(offset: Int(UInt32.max), count: 5, order: .oldest).isEmpty)
        #expect(catalog.page(offset: 0, count: 0).isEmpty)
        var empty = MemoCatalog()
        #expect(empty.page(offset: 0, count: 50).isEmpty)
    }

    @Test func theOrderFollowsInsertsRemovalsAndChangesAfterItIsBuilt() {
        var catalog = library
        _ = catalog.page(offset: 0, count: 1)
        catalog.insert(memo("late.wav", created: 100))
        catalog.remove(id: MemoNaming.memoID(forFileName: "m0.wav"))
        var moved = catalog[MemoNaming.memoID(forFileName: "m1.wav")]!
        moved.created = -5
        catalog.insert(moved)
        let rebuilt = MemoCatalog(Array(catalog.memos.values))
        var fresh = rebuilt
        #expect(catalog.page(offset: 0, count: 100) == fresh.page(offset: 0, count: 100))
        #expect(catalog.page(offset: 0, count: 1).first?.fileName == "late.wav")
        #expect(catalog.page(offset: 0, count: 1, order: .oldest).first?.fileName == "m1.wav")
        #expect(catalog.count == 11)
    }

    @Test func aLargeBatchInsertKeepsTheOrderRight() {
        var catalog = library
        _ = catalog.page(offset: 0, count: 1)
        _ = catalog.find("m")
        catalog.insert(
            contentsOf: (0..<100).map { memo("b\($0).wav", created: Int64(1000 - $0), title: "Batch \($0)") })
        #expect(catalog.page(offset: 0, count: 1).first?.fileName == "b0.wav")
        #expect(catalog.find("batch 99") == [MemoNaming.memoID(forFileName: "b99.wav")])
    }

    @Test func searchFoldsCaseAndDiacriticsNewestFirst() {
        var catalog = MemoCatalog([
            memo("a.wav", created: 1, title: "Réunion Müller"), memo("b.wav", created: 2, title: "MULLER budget"),
            memo("c.wav", created: 3, title: "Stra\u{DF}e"), memo("Cafe\u{301}.flac", created: 4, title: ""),
        ])
        let id = { (name: String) in MemoNaming.memoID(forFileName: name) }
        #expect(catalog.find("muller") == [id("b.wav"), id("a.wav")])
        #expect(catalog.find("MÜLLER") == [id("b.wav"), id("a.wav")])
        #expect(catalog.find("réunion") == [id("a.wav")])
        #expect(catalog.find("STRASSE") == [id("c.wav")])
        #expect(catalog.find("café") == [id("Cafe\u{301}.flac")], "the file name too, precomposed or not")
        #expect(catalog.find("").isEmpty)
        #expect(catalog.find("\u{301}").isEmpty, "marks alone fold to nothing")
        #expect(catalog.find("muller\nb").isEmpty, "no match spans the title and the file name")
        catalog.insert(memo("b.wav", created: 2, title: "renamed"))
        #expect(catalog.find("muller") == [id("a.wav")], "a new title is searched")
        catalog.remove(id: id("a.wav"))
        #expect(catalog.find("muller").isEmpty)
    }

    @Test func searchFindsWhatWasSaidAndFollowsANewTranscript() {
        var said = memo("a.wav", created: 1, title: "Monday")
        said.transcript = "WEBVTT\n\n00:01:42.000 --> 00:01:45.500\nCall the plumber about the Pipe.\n"
        var catalog = MemoCatalog([said, memo("b.wav", created: 2, title: "Tuesday")])
        let id = MemoNaming.memoID(forFileName: "a.wav")
        #expect(catalog.find("PLUMBER") == [id])
        #expect(catalog.find("the pipe") == [id], "case ignored across words")
        #expect(catalog.find("00:01").isEmpty, "the cue times are not words")
        #expect(catalog.find("webvtt").isEmpty)
        said.transcript = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nNothing of the sort\n"
        catalog.insert(said)
        #expect(catalog.find("plumber").isEmpty, "a new transcript is searched")
        #expect(catalog.find("sort") == [id])
    }
}

@Suite("Search text")
struct SearchTextTests {
    @Test func foldingRemovesDiacriticsAndCase() {
        let folded = { (text: String) in String(decoding: SearchText(text).utf8, as: UTF8.self) }
        #expect(folded("Réunion MÜLLER") == "reunion muller")
        #expect(folded("Ångström") == "angstrom")
        #expect(folded("ﬁle Straße") == "file strasse")
        #expect(folded("İstanbul") == "istanbul")
        #expect(folded("日本語") == "日本語")
        #expect(folded("ABC-123_x") == "abc-123_x")
    }

    @Test func containsIsASubstringOfTheFoldedText() {
        let text = SearchText("2026-01-01 Réunion.wav")
        #expect(text.contains(SearchText("REUNION")))
        #expect(text.contains(SearchText("n.wav")))
        #expect(text.contains(SearchText("")))
        #expect(!text.contains(SearchText("reunions")))
        #expect(!SearchText("ab").contains(SearchText("abc")))
    }
}
