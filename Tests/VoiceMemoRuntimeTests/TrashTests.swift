import FoundationEssentials
import Testing
import VoiceMemoCore
import VoiceMemoRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// A scratch `$XDG_DATA_HOME` with a memo directory in it, removed when done.
private final class ScratchData {
    let root: String
    let memos: String
    let trash: Trash

    init() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/trash-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        try #require(made, "a scratch directory")
        root = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        memos = root + "/voicememo"
        try FileManager.default.createDirectory(atPath: memos, withIntermediateDirectories: false)
        trash = Trash(directory: root + "/Trash")
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Writes a user-only memo file named `name` holding `content`.
    func memo(_ name: String, content: String = "audio") throws -> String {
        let path = memos + "/" + name
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(content.utf8), attributes: [.posixPermissions: 0o600]))
        return path
    }

    func info(_ name: String) throws -> String {
        try String(contentsOfFile: trash.infoDirectory + "/" + name + ".trashinfo", encoding: .utf8)
    }
}

private func mode(_ path: String) -> mode_t {
    var info = stat()
    #expect(lstat(path, &info) == 0, "\(path) exists")
    return info.st_mode & 0o7777
}

@Suite("The freedesktop Trash")
struct TrashTests {
    let date = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 11:06:40 UTC

    @Test func aTrashedFileLeavesItsDirectoryWithAnInfoFileSayingWhereFromAndWhen() throws {
        let scratch = try ScratchData()
        let path = try scratch.memo("2026-11-18 11.06.40.wav", content: "RIFF memo")
        let name = try scratch.trash.moveToTrash(
            path, deletionDate: date, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(name == "2026-11-18 11.06.40.wav")
        #expect(!FileManager.default.fileExists(atPath: path))
        let trashed = scratch.trash.filesDirectory + "/" + name
        #expect(FileManager.default.contents(atPath: trashed) == Data("RIFF memo".utf8))
        // Local time, no zone: 11:06:40 UTC is 12:06:40 in Berlin.
        #expect(
            try scratch.info(name)
                == "[Trash Info]\nPath=\(Trash.encodedPath(scratch.memos))/2026-11-18%2011.06.40.wav\nDeletionDate=2026-11-18T12:06:40\n"
        )
    }

    @Test func theTrashIsUserOnlyAndTheMemoStaysSo() throws {
        let scratch = try ScratchData()
        let name = try scratch.trash.moveToTrash(try scratch.memo("a.opus"))
        for directory in [scratch.trash.directory, scratch.trash.filesDirectory, scratch.trash.infoDirectory] {
            #expect(mode(directory) == 0o700, "\(directory)")
        }
        #expect(mode(scratch.trash.filesDirectory + "/" + name) == 0o600)
        #expect(mode(scratch.trash.infoDirectory + "/" + name + ".trashinfo") == 0o600)
    }

    @Test func aMissingDataHomeIsCreatedUserOnly() throws {
        let scratch = try ScratchData()
        let trash = Trash(directory: scratch.root + "/deeper/share/Trash")
        try trash.moveToTrash(try scratch.memo("a.wav"))
        #expect(mode(scratch.root + "/deeper/share") == 0o700)
        #expect(FileManager.default.fileExists(atPath: trash.filesDirectory + "/a.wav"))
    }

    @Test func namesTakenInTheTrashGetANumberBeforeTheExtension() throws {
        let scratch = try ScratchData()
        var names: [String] = []
        for content in ["first", "second", "third"] {
            names.append(
                try scratch.trash.moveToTrash(try scratch.memo("2026-11-18 11.06.40 v1.2.wav", content: content)))
        }
        #expect(
            names == [
                "2026-11-18 11.06.40 v1.2.wav", "2026-11-18 11.06.40 v1.2.2.wav", "2026-11-18 11.06.40 v1.2.3.wav",
            ])
        for (name, content) in zip(names, ["first", "second", "third"]) {
            #expect(
                FileManager.default.contents(atPath: scratch.trash.filesDirectory + "/" + name) == Data(content.utf8))
            #expect(
                try scratch.info(name).contains(
                    "Path=\(Trash.encodedPath(scratch.memos))/2026-11-18%2011.06.40%20v1.2.wav\n"))
        }
        // Without an extension the number goes at the end.
        try scratch.trash.moveToTrash(try scratch.memo("notes"))
        #expect(try scratch.trash.moveToTrash(try scratch.memo("notes")) == "notes.2")
    }

    @Test func aNameTakenOnlyByAnInfoFileOrOnlyByAFileIsSkipped() throws {
        let scratch = try ScratchData()
        try scratch.trash.moveToTrash(try scratch.memo("placeholder"))
        // Left behind by another program: an info file without its file, and a file without its info.
        #expect(
            FileManager.default.createFile(
                atPath: scratch.trash.infoDirectory + "/a.wav.trashinfo", contents: Data("other".utf8)))
        #expect(
            FileManager.default.createFile(
                atPath: scratch.trash.filesDirectory + "/a.2.wav", contents: Data("other".utf8)))
        #expect(try scratch.trash.moveToTrash(try scratch.memo("a.wav", content: "mine")) == "a.3.wav")
        #expect(try scratch.info("a.wav") == "other", "another program's info file is left alone")
        #expect(FileManager.default.contents(atPath: scratch.trash.filesDirectory + "/a.2.wav") == Data("other".utf8))
        #expect(FileManager.default.contents(atPath: scratch.trash.filesDirectory + "/a.3.wav") == Data("mine".utf8))
    }

    @Test(arguments: [
        ("plain-name_1.0~x.wav", "plain-name_1.0~x.wav"),
        ("über café.flac", "%C3%BCber%20caf%C3%A9.flac"),
        ("100% #1?.wav", "100%25%20%231%3F.wav"),
        (" !\"$&'()*+,:;<=>@[\\]^`{|}", "%20%21%22%24%26%27%28%29%2A%2B%2C%3A%3B%3C%3D%3E%40%5B%5C%5D%5E%60%7B%7C%7D"),
        ("tab\there\nnewline", "tab%09here%0Anewline"),
    ])
    func oddNamesArePercentEncodedAsGLibDoes(name: String, encoded: String) throws {
        let scratch = try ScratchData()
        let trashed = try scratch.trash.moveToTrash(try scratch.memo(name))
        #expect(trashed == name)
        let lines = try scratch.info(name).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines[3].isEmpty, "three lines, the last one ended")
        #expect(lines[1] == "Path=\(Trash.encodedPath(scratch.memos))/\(encoded)")
    }

    @Test func aMissingFileIsAStorageErrorAndLeavesNoInfoFile() throws {
        let scratch = try ScratchData()
        #expect(throws: RecorderError.self) { try scratch.trash.moveToTrash(scratch.memos + "/gone.wav") }
        let infos = (try? FileManager.default.contentsOfDirectory(atPath: scratch.trash.infoDirectory)) ?? []
        #expect(infos.isEmpty)
    }

    @Test func aRelativePathIsRefused() throws {
        let scratch = try ScratchData()
        let error = #expect(throws: RecorderError.self) { try scratch.trash.moveToTrash("voicememo/a.wav") }
        #expect(error?.message.contains("not an absolute path") == true)
    }

    /// /dev/shm is a tmpfs on Linux, so a file there is on another file system than the
    /// temporary directory (checked first, so the test never passes by accident).
    @Test(.enabled(if: TrashTests.sharedMemoryIsAnotherFileSystem()))
    func aFileOnAnotherFileSystemIsRefusedNotCopied() throws {
        let scratch = try ScratchData()
        let path = "/dev/shm/voicememo-trash-test-\(getpid()).wav"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("memo".utf8)))
        defer { unlink(path) }
        let error = #expect(throws: RecorderError.self) { try scratch.trash.moveToTrash(path) }
        guard case .storage(let message) = error else {
            Issue.record("not a Storage error: \(String(describing: error))")
            return
        }
        #expect(message.contains("another file system"))
        #expect(FileManager.default.fileExists(atPath: path), "the file stays where it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.trash.filesDirectory).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.trash.infoDirectory).isEmpty)
    }

    static func sharedMemoryIsAnotherFileSystem() -> Bool {
        var shared = stat()
        var temporary = stat()
        return stat("/dev/shm", &shared) == 0 && access("/dev/shm", W_OK) == 0
            && stat(FileManager.default.temporaryDirectory.path, &temporary) == 0 && shared.st_dev != temporary.st_dev
    }
}
