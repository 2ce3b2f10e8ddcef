import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// `ListMemos`, `FindMemos` and `MemoCount` against the real daemon: what a panel that shows
/// a few memos of a long library asks, and what a hostile caller might send.
final class MemoListingTests: IntegrationTestCase {
    override class var launchesDaemon: Bool { false }

    /// Starts the daemon on the memos already in the directory, read before it answers.
    private func start() throws -> (Daemon, VoiceMemoProxy) {
        let daemon = try fixture.launchDaemon()
        return (daemon, try VoiceMemoProxy(session: fixture.session))
    }

    /// Writes a tiny WAV named `name` into the memo directory.
    private func addMemo(named name: String) throws {
        let directory = fixture.session.memoDirectory
        let scratch = fixture.session.root.appendingPathComponent("one-memo")
        try? FileManager.default.removeItem(at: scratch)
        try MemoLibraryFiles.create(1, in: scratch)
        let made = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: scratch.path).first)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.moveItem(
            at: scratch.appendingPathComponent(made), to: directory.appendingPathComponent(name))
    }

    private func listMemos(
        _ recorder: VoiceMemoProxy, offset: UInt32, count: UInt32, order: String
    ) throws -> [(path: ObjectPath, properties: [String: BusValue])] {
        let reply = try recorder.call(
            RecorderMember.listMemos, [.uint32(offset), .uint32(count), .string(order)])
        let entries = try XCTUnwrap(reply.first?.array)
        return try entries.map { entry in
            let fields = try XCTUnwrap(entry.structure)
            return (try XCTUnwrap(fields[0].objectPath), try XCTUnwrap(fields[1].stringDictionary))
        }
    }

    private func findMemos(_ recorder: VoiceMemoProxy, _ text: String) throws -> [ObjectPath] {
        let reply = try recorder.call(RecorderMember.findMemos, [.string(text)])
        let entries = try XCTUnwrap(reply.first?.array)
        return try entries.map { try XCTUnwrap($0.objectPath) }
    }

    private func assertInvalidArgument(
        _ recorder: VoiceMemoProxy, _ member: BusMethodDeclaration, _ arguments: [BusValue],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let error = recorder.callFailing(member, arguments, file: file, line: line)
        XCTAssertEqual(
            error?.name, ContractError.invalidArgument.name, "\(String(describing: error))", file: file, line: line)
        XCTAssertFalse(error?.message.isEmpty ?? true, file: file, line: line)
    }

    func testAnEmptyLibraryListsAndFindsNothing() throws {
        let (daemon, recorder) = try start()
        defer { daemon.stop() }
        XCTAssertEqual(try recorder.property(RecorderMember.memoCount).uint32, 0)
        for order in ["", "newest", "oldest"] {
            XCTAssertTrue(try listMemos(recorder, offset: 0, count: 50, order: order).isEmpty)
            XCTAssertTrue(try listMemos(recorder, offset: 1, count: 1000, order: order).isEmpty)
        }
        XCTAssertEqual(try findMemos(recorder, "memo"), [])
        XCTAssertEqual(try findMemos(recorder, ""), [])
    }

    func testPagesMeetEveryMemoOnceInEitherOrderWithTheListingsProperties() throws {
        try MemoLibraryFiles.create(25, in: fixture.session.memoDirectory)
        // Two memos of the same second: ties are ordered by Id.
        try addMemo(named: "2025-06-01 08.00.00 First of two.wav")
        try addMemo(named: "2025-06-01 08.00.00-2 Second of two.wav")
        let (daemon, recorder) = try start()
        defer { daemon.stop() }
        let managed = try recorder.managedMemos()
        XCTAssertEqual(managed.count, 27)
        XCTAssertEqual(try recorder.property(RecorderMember.memoCount).uint32, 27)

        // Newest first by Created, ties by Id, greater first; oldest is its exact reverse.
        let expected = managed.sorted {
            let a = ($0.value[MemoMember.created.name]?.int64 ?? 0, $0.value[MemoMember.id.name]?.string ?? "")
            let b = ($1.value[MemoMember.created.name]?.int64 ?? 0, $1.value[MemoMember.id.name]?.string ?? "")
            return a > b
        }.map(\.key)
        var newest: [ObjectPath] = []
        for offset in stride(from: 0, to: 28, by: 7) {
            let page = try listMemos(recorder, offset: UInt32(offset), count: 7, order: "")
            XCTAssertEqual(page.count, min(7, 27 - offset))
            for memo in page {
                XCTAssertEqual(memo.properties, managed[memo.path], "\(memo.path) as GetManagedObjects gives it")
            }
            newest += page.map(\.path)
        }
        XCTAssertEqual(newest, expected)
        XCTAssertEqual(try listMemos(recorder, offset: 0, count: 1000, order: "newest").map(\.path), expected)
        XCTAssertEqual(
            try listMemos(recorder, offset: 0, count: 1000, order: "oldest").map(\.path), expected.reversed())
        let tie = try listMemos(recorder, offset: 0, count: 2, order: "oldest").map {
            $0.properties[MemoMember.title.name]?.string
        }
        XCTAssertEqual(tie, ["First of two", "Second of two"], "the same second, ordered by Id")
        XCTAssertEqual(
            try listMemos(recorder, offset: 26, count: 5, order: "oldest").map(\.path), [expected[0]], "the last page")

        // Boundaries: nothing at or past the end, nothing for a count of 0.
        XCTAssertTrue(try listMemos(recorder, offset: 27, count: 5, order: "").isEmpty)
        XCTAssertTrue(try listMemos(recorder, offset: UInt32.max, count: 1000, order: "oldest").isEmpty)
        XCTAssertTrue(try listMemos(recorder, offset: 0, count: 0, order: "").isEmpty)

        for arguments: [BusValue] in [
            [.uint32(0), .uint32(1001), .string("")], [.uint32(0), .uint32(UInt32.max), .string("oldest")],
            [.uint32(0), .uint32(5), .string("Newest")], [.uint32(0), .uint32(5), .string("random")],
        ] {
            assertInvalidArgument(recorder, RecorderMember.listMemos, arguments)
        }
    }

    func testFindMemosFoldsCaseAndDiacriticsAndTakesHostileTextCalmly() throws {
        try addMemo(named: "2026-02-01 10.00.00 Réunion Müller.wav")
        // Decomposed in the file name, as macOS writes names: it must match all the same.
        try addMemo(named: "2026-02-02 10.00.00 Cafe\u{301} cre\u{300}me.wav")
        try addMemo(named: "2026-02-03 10.00.00 Straße.wav")
        try addMemo(named: "2026-02-04 10.00.00 Plain notes.wav")
        let (daemon, recorder) = try start()
        defer { daemon.stop() }
        let byTitle = Dictionary(
            uniqueKeysWithValues: try recorder.managedMemos().map {
                ($0.value[MemoMember.title.name]?.string ?? "", $0.key)
            })
        let reunion = try XCTUnwrap(byTitle["Réunion Müller"])
        let cafe = try XCTUnwrap(byTitle["Cafe\u{301} cre\u{300}me"])
        let strasse = try XCTUnwrap(byTitle["Straße"])
        let plain = try XCTUnwrap(byTitle["Plain notes"])

        XCTAssertEqual(try findMemos(recorder, "muller"), [reunion])
        XCTAssertEqual(try findMemos(recorder, "MÜLLER"), [reunion])
        XCTAssertEqual(try findMemos(recorder, "réunion müller"), [reunion])
        XCTAssertEqual(try findMemos(recorder, "Café crème"), [cafe], "precomposed finds decomposed")
        XCTAssertEqual(try findMemos(recorder, "CAFE CREME"), [cafe])
        XCTAssertEqual(try findMemos(recorder, "strasse"), [strasse])
        XCTAssertEqual(try findMemos(recorder, "STRASSE"), [strasse])
        XCTAssertEqual(try findMemos(recorder, "2026-02-04"), [plain], "the file name is searched too")
        XCTAssertEqual(try findMemos(recorder, ".wav"), [plain, strasse, cafe, reunion], "newest first")
        XCTAssertEqual(try findMemos(recorder, ""), [], "an empty text finds nothing")
        XCTAssertEqual(try findMemos(recorder, "\u{301}"), [], "a text of marks alone folds to nothing")

        // Hostile text finds nothing (no pattern language, no path) and harms nothing.
        for text in [
            "*", "%s%n%x", "' OR 1=1 --", "../../../etc/passwd", "\u{202E}evil", "🎙️", "\\", "Müller\nStraße",
            String(repeating: "a", count: 1024), String(repeating: "é", count: 512),
        ] {
            XCTAssertEqual(try findMemos(recorder, text), [], "'\(text.prefix(20))'")
        }
        assertInvalidArgument(recorder, RecorderMember.findMemos, [.string(String(repeating: "a", count: 1025))])
        assertInvalidArgument(recorder, RecorderMember.findMemos, [.string(String(repeating: "ü", count: 600))])
        XCTAssertEqual(try recorder.property(RecorderMember.memoCount).uint32, 4, "the daemon still answers")
    }

    func testMemoCountFollowsTheLibraryAndIsAnnounced() throws {
        try MemoLibraryFiles.create(3, in: fixture.session.memoDirectory)
        let (daemon, recorder) = try start()
        defer { daemon.stop() }
        XCTAssertEqual(try recorder.property(RecorderMember.memoCount).uint32, 3)
        let newest = try XCTUnwrap(try listMemos(recorder, offset: 0, count: 1, order: "").first?.path)
        let mark = try recorder.markSignals()
        try recorder.callMemo(newest, MemoMember.deletePermanently)
        try recorder.waitForSignal("PropertiesChanged", timeout: .seconds(5), after: mark) {
            $0.arguments.count == 3 && $0.arguments[1].stringDictionary?[RecorderMember.memoCount.name]?.uint32 == 2
        }
        XCTAssertEqual(try recorder.property(RecorderMember.memoCount).uint32, 2)
        XCTAssertFalse(try listMemos(recorder, offset: 0, count: 10, order: "").map(\.path).contains(newest))
        XCTAssertEqual(try findMemos(recorder, "memo 2"), [], "a deleted memo is no longer found")
        XCTAssertEqual(try findMemos(recorder, "memo 1").count, 1)
    }
}
