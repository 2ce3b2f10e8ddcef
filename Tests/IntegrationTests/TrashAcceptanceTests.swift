import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoRuntime
import XCTest

/// Delete moves a memo to the freedesktop trash, from where it comes back as the same memo;
/// DeletePermanently removes it for good. Against the real daemon, with the trash in the
/// session's private `$XDG_DATA_HOME`.
///
/// GLib lists and restores the trash (`gio trash --list`, `--restore`) through gvfs's
/// `trash://` backend, as a desktop does: the test starts `gvfsd` on the session's private
/// bus (which activates nothing by itself), and GLib's own `gio trash` checks that our info
/// files are written as GLib writes them.
final class TrashAcceptanceTests: RecorderTestCase {
    private var trash: Trash { Trash(directory: fixture.session.dataDirectory.appendingPathComponent("Trash").path) }

    /// The session (and so its trash) lives as long as the class; each test starts with none.
    override func setUpWithError() throws {
        try super.setUpWithError()
        if FileManager.default.fileExists(atPath: trash.directory) {
            try FileManager.default.removeItem(atPath: trash.directory)
        }
    }

    private func recordMemo(title: String, seconds: Double = 1, on proxy: VoiceMemoProxy? = nil) throws -> ObjectPath {
        let recorder = proxy ?? recorder!
        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "duration": .double(seconds), "title": .string(title),
        ])
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(seconds + 5)) {
            $0.arguments.first?.objectPath == memo
        }
        try recorder.waitForSignal("InterfacesAdded") { $0.arguments.first?.objectPath == memo }
        return memo
    }

    private func trashed() throws -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: trash.filesDirectory).sorted()) ?? []
    }

    private func infoFile(_ name: String) throws -> [String: String] {
        let text = try String(contentsOfFile: trash.infoDirectory + "/" + name + ".trashinfo", encoding: .utf8)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.first, "[Trash Info]")
        return Dictionary(
            lines.dropFirst().compactMap { line in
                line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
            }
        ) { first, _ in first }
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & 0o7777
    }

    /// Runs `gio` in the session, with gvfs's daemon on its bus.
    private func gio(_ arguments: [String]) throws -> CommandOutput {
        try fixture.session.run(try Executable.find("gio"), arguments)
    }

    /// Starts gvfs's daemon on the session bus, as a desktop session has it (D-Bus activation
    /// would, but the private bus activates nothing); stopped by its PID after the test.
    private func startFileSystemDaemon() throws -> ChildProcess {
        let gvfsd = try fixture.session.launch("/usr/libexec/gvfsd", [], logName: "gvfsd")
        try waitUntil("gvfsd owns org.gtk.vfs.Daemon", timeout: .seconds(10)) {
            try fixture.session.busNameHasOwner("org.gtk.vfs.Daemon")
        }
        return gvfsd
    }

    func testDeleteMovesTheMemoToTheTrashAndRestoringBringsTheSameMemoBack() throws {
        let gvfsd = try startFileSystemDaemon()
        defer { _ = gvfsd.terminate() }
        // ASCII only: GLib 2.74's `gio trash --restore` writes a non-ASCII byte of the original
        // path back as the four characters of its escape ("é" as "\\xc3\\xa9"), whoever wrote
        // the info file (seen with a file trashed by `gio trash` itself). The encoding of such
        // names is checked against GLib's in TrashTests.
        let memo = try recordMemo(title: "Standup #1 (50%) ok?")
        let file = try recorder.file(of: memo)
        let content = try Data(contentsOf: file)
        let properties = try XCTUnwrap(try recorder.managedMemos()[memo])

        let deleted = Date()
        _ = try recorder.callMemo(memo, MemoMember.delete)
        let removed = try recorder.waitForSignal("InterfacesRemoved") { $0.arguments.first?.objectPath == memo }
        XCTAssertEqual(removed.arguments[1].array?.compactMap(\.string), [Contract.memoInterface.rawValue])
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "the file left the memo directory")
        XCTAssertNil(try recorder.managedMemos()[memo])

        let name = file.lastPathComponent
        XCTAssertEqual(try trashed(), [name])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: trash.filesDirectory + "/" + name)), content)
        XCTAssertEqual(mode(trash.filesDirectory + "/" + name), 0o600, "the memo stays user-only in the trash")
        XCTAssertEqual(mode(trash.directory), 0o700)
        let info = try infoFile(name)
        XCTAssertEqual(info["Path"]?.removingPercentEncoding, file.path)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        let date = try XCTUnwrap(info["DeletionDate"].flatMap(formatter.date(from:)), "\(info)")
        XCTAssertEqual(date.timeIntervalSince(deleted), 0, accuracy: 5, "local time of the deletion")

        // GLib trashing a file of the same name from another directory writes the same name part.
        let decoyDirectory = fixture.session.dataDirectory.appendingPathComponent("decoy")
        try FileManager.default.createDirectory(at: decoyDirectory, withIntermediateDirectories: true)
        let decoy = decoyDirectory.appendingPathComponent(name)
        try Data("decoy".utf8).write(to: decoy)
        let trashedByGLib = try gio(["trash", decoy.path])
        XCTAssertEqual(trashedByGLib.status, 0, "\(trashedByGLib)")
        let decoyName = try XCTUnwrap(try trashed().first { $0 != name }, "gio trashed the decoy under another name")
        XCTAssertEqual(
            try infoFile(decoyName)["Path"],
            Trash.encodedPath(decoyDirectory.path) + "/" + (info["Path"]?.split(separator: "/").last ?? ""),
            "percent-encoded as GLib does")

        // What a user does: find it in the trash, and restore it.
        let listing = try gio(["trash", "--list"])
        XCTAssertEqual(listing.status, 0, "\(listing)")
        // Each line: the item's trash:// URI, a tab, its original path (non-ASCII bytes escaped).
        let entries = listing.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let entry = try XCTUnwrap(
            entries.first { $0.first?.removingPercentEncoding == "trash:///" + name }, "\(listing)")
        XCTAssertEqual(
            entry.last?.hasPrefix(file.deletingLastPathComponent().path + "/"), true,
            "from the memo directory: \(entry)")
        let uri = try XCTUnwrap(entry.first)
        let restoring = try gio(["trash", "--restore", uri])
        XCTAssertEqual(restoring.status, 0, "\(restoring)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path), "gio put it back where it was")
        try waitUntil("the restored memo is back on the bus", timeout: .seconds(5)) {
            try self.recorder.managedMemos()[memo] != nil
        }
        try recorder.drainSignals()
        let added = recorder.received.filter {
            $0.member.rawValue == "InterfacesAdded" && $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(added.count, 2, "announced when recorded and again when restored")
        XCTAssertEqual(try recorder.managedMemos()[memo], properties, "the same memo: id, title, path and all")
        XCTAssertEqual(try Data(contentsOf: file), content)
        XCTAssertEqual(try trashed(), [decoyName])
    }

    func testAMemoDeletedTwiceUnderOneNameGetsAUniqueNameInTheTrash() throws {
        let memo = try recordMemo(title: "Twice")
        let file = try recorder.file(of: memo)
        let copy = try Data(contentsOf: file)
        _ = try recorder.callMemo(memo, MemoMember.delete)
        try recorder.waitForSignal("InterfacesRemoved") { $0.arguments.first?.objectPath == memo }
        // The same file again (as if restored by hand and deleted once more).
        try copy.write(to: file)
        try waitUntil("the copy is a memo again", timeout: .seconds(5)) {
            try self.recorder.managedMemos()[memo] != nil
        }
        _ = try recorder.callMemo(memo, MemoMember.delete)
        XCTAssertNil(try recorder.managedMemos()[memo])
        let base = file.deletingPathExtension().lastPathComponent
        XCTAssertEqual(try trashed(), [file.lastPathComponent, base + ".2.wav"].sorted())
        for name in try trashed() {
            XCTAssertEqual(try infoFile(name)["Path"]?.removingPercentEncoding, file.path, name)
        }
    }

    func testDeletePermanentlyRemovesTheFileForGoodAndTheObject() throws {
        let memo = try recordMemo(title: "Gone")
        let file = try recorder.file(of: memo)
        _ = try recorder.callMemo(memo, MemoMember.deletePermanently)
        let removed = try recorder.waitForSignal("InterfacesRemoved") { $0.arguments.first?.objectPath == memo }
        XCTAssertEqual(removed.arguments[1].array?.compactMap(\.string), [Contract.memoInterface.rawValue])
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertEqual(try trashed(), [], "not in the trash either")
        XCTAssertEqual(recorder.memoFiles, [])
        XCTAssertNil(try recorder.managedMemos()[memo])
        XCTAssertThrowsError(try recorder.callMemo(memo, MemoMember.deletePermanently)) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ErrorName.unknownObject.rawValue)
        }
    }

    /// Only the home trash is implemented: a memo directory on another file system is refused
    /// with Storage rather than copied, and the memo stays where and what it was.
    func testAMemoDirectoryOnAnotherFileSystemAnswersStorageAndKeepsTheMemo() throws {
        var template = Array("/dev/shm/voicememo-trash-test.XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw FixtureError.systemCallFailed("mkdtemp in /dev/shm", errno: errno)
        }
        let elsewhere = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        var shared = stat()
        var data = stat()
        XCTAssertEqual(stat(elsewhere, &shared), 0)
        XCTAssertEqual(stat(fixture.session.dataDirectory.path, &data), 0)
        guard shared.st_dev != data.st_dev else { throw XCTSkip("/dev/shm is on the same file system as the session") }

        XCTAssertEqual(daemon.stop(), .exited(0))
        let memoDirectory = fixture.session.memoDirectory.path
        if FileManager.default.fileExists(atPath: memoDirectory) {
            try FileManager.default.removeItem(atPath: memoDirectory)
        }
        try FileManager.default.createSymbolicLink(atPath: memoDirectory, withDestinationPath: elsewhere)
        // The fixture's reset does not remove a dangling link, and the next daemon would trip on it.
        defer { try? FileManager.default.removeItem(atPath: memoDirectory) }
        let relaunched = try fixture.launchDaemon()
        defer { relaunched.stop() }
        let recorder = try VoiceMemoProxy(session: fixture.session)
        let memo = try recordMemo(title: "Elsewhere", seconds: 3, on: recorder)
        let file = try recorder.file(of: memo)
        _ = try recorder.callMemo(memo, MemoMember.play)

        XCTAssertThrowsError(try recorder.callMemo(memo, MemoMember.delete)) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ContractError.storage.name.rawValue)
            XCTAssertTrue((error as? BusError)?.message.contains("another file system") == true, "\(error)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path), "the memo stays")
        XCTAssertNotNil(try recorder.managedMemos()[memo], "and so does its object")
        XCTAssertEqual(try recorder.property(RecorderMember.playing).objectPath, memo, "and its playback")
        XCTAssertEqual(try trashed(), [], "nothing copied into the trash")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: trash.infoDirectory), [], "no info file left behind")

        _ = try recorder.callMemo(memo, MemoMember.deletePermanently)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertNil(try recorder.managedMemos()[memo])
    }

    func testTheCommandLineTrashesAndDeletesPermanently() throws {
        let kept = try recordMemo(title: "Kept")
        let gone = try recordMemo(title: "Gone")
        let keptID = String(kept.rawValue.split(separator: "/").last!)
        let goneID = String(gone.rawValue.split(separator: "/").last!)
        let keptFile = try recorder.file(of: kept)

        let toTrash = try fixture.voicememo(["delete", keptID])
        XCTAssertEqual(toTrash.status, 0, "\(toTrash)")
        XCTAssertEqual(toTrash.stdout, "Moved \(keptID) to the trash\n")
        XCTAssertEqual(try trashed(), [keptFile.lastPathComponent])

        let permanently = try fixture.voicememo(["delete", "--permanently", goneID])
        XCTAssertEqual(permanently.status, 0, "\(permanently)")
        XCTAssertEqual(permanently.stdout, "Deleted \(goneID) permanently\n")
        XCTAssertEqual(recorder.memoFiles, [])
        XCTAssertEqual(try trashed(), [keptFile.lastPathComponent], "the permanent one is not in the trash")
        try recorder.waitForSignal("InterfacesRemoved") { $0.arguments.first?.objectPath == gone }

        for arguments in [
            ["delete"], ["delete", "--permanently"], ["delete", keptID, goneID], ["delete", "--forever", keptID],
        ] {
            let usage = try fixture.voicememo(arguments)
            XCTAssertEqual(usage.status, 64, "\(arguments): \(usage)")
            XCTAssertTrue(usage.stderr.contains("Usage: voicememo delete [--permanently] ID"), usage.stderr)
        }
        let help = try fixture.voicememo(["delete", "--help"])
        XCTAssertTrue(help.stdout.contains("--permanently"), help.stdout)
    }
}
