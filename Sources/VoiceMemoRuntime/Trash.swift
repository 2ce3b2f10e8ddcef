import FoundationEssentials
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// The user's home trash of the freedesktop.org Trash specification 1.0
/// (`$XDG_DATA_HOME/Trash`), where a deleted memo stays recoverable: file managers and
/// `gio trash` list it and put it back where it was.
///
/// Only the home trash: a file on another file system than the trash is refused with a
/// `Storage` error rather than copied across (the spec's `$topdir/.Trash-$uid` is not
/// implemented).
public struct Trash: Sendable {
    /// The trash directory, `$XDG_DATA_HOME/Trash`.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// Where trashed files go.
    public var filesDirectory: String { directory + "/files" }
    /// Where each trashed file's `NAME.trashinfo` goes.
    public var infoDirectory: String { directory + "/info" }

    /// Moves the file at the absolute `path` into the trash, with an info file saying where
    /// it came from and when; returns the name it has in `files/` (unique there).
    @discardableResult
    public func moveToTrash(_ path: String, deletionDate: Date = Date(), timeZone: TimeZone = .current)
        throws(RecorderError) -> String
    {
        try place(path, keepingOriginal: false, deletionDate: deletionDate, timeZone: timeZone)
    }

    /// Puts a copy of the file at `path` in the trash as `moveToTrash` would put the file,
    /// but as a second hard link: the file stays where it is, and a new version can then
    /// replace it with `rename(2)`, so at every instant one of them is at `path`.
    @discardableResult
    public func linkIntoTrash(_ path: String, deletionDate: Date = Date(), timeZone: TimeZone = .current)
        throws(RecorderError) -> String
    {
        try place(path, keepingOriginal: true, deletionDate: deletionDate, timeZone: timeZone)
    }

    private func place(_ path: String, keepingOriginal: Bool, deletionDate: Date, timeZone: TimeZone)
        throws(RecorderError) -> String
    {
        guard path.hasPrefix("/") else { throw .storage("cannot trash \(path): not an absolute path") }
        var file = stat()
        guard lstat(path, &file) == 0 else { throw .storage("cannot trash \(path): \(Self.lastError())") }
        try prepare()
        var trash = stat()
        guard stat(filesDirectory, &trash) == 0 else {
            throw .storage("cannot use the trash \(filesDirectory): \(Self.lastError())")
        }
        // Moving across file systems would be a copy; refuse rather than copy a memo silently.
        guard file.st_dev == trash.st_dev else {
            throw .storage(
                "cannot trash \(path): it is on another file system than the trash \(directory); "
                    + "delete it permanently instead, or keep memos on the same file system as $XDG_DATA_HOME")
        }
        let info = Self.info(path: path, deletionDate: deletionDate, timeZone: timeZone)
        let baseName = String(path[path.index(after: path.lastIndex(of: "/")!)...])
        var attempt = 1
        while true {
            let name = Self.uniqueName(baseName, attempt: attempt)
            attempt += 1
            var existing = stat()
            if lstat(filesDirectory + "/" + name, &existing) == 0 { continue }
            // The spec: claim the name by creating the info file atomically, then move the file.
            let infoPath = infoDirectory + "/" + name + ".trashinfo"
            let descriptor = open(infoPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor < 0 && errno == EEXIST { continue }
            guard descriptor >= 0 else { throw .storage("cannot write \(infoPath): \(Self.lastError())") }
            let written = Array(info.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            let writeError = Self.lastError()
            let closed = close(descriptor)
            guard written == info.utf8.count, closed == 0 else {
                unlink(infoPath)
                throw .storage("cannot write \(infoPath): \(writeError)")
            }
            let placed =
                keepingOriginal ? link(path, filesDirectory + "/" + name) : rename(path, filesDirectory + "/" + name)
            guard placed == 0 else {
                let reason = Self.lastError()
                unlink(infoPath)
                throw .storage("cannot \(keepingOriginal ? "link" : "move") \(path) into the trash: \(reason)")
            }
            return name
        }
    }

    /// Takes `name` (as `moveToTrash` or `linkIntoTrash` returned it) out of the trash again,
    /// file and info, for an operation that could not finish after trashing.
    public func forget(_ name: String) {
        unlink(filesDirectory + "/" + name)
        unlink(infoDirectory + "/" + name + ".trashinfo")
    }

    /// Creates the trash, `files/` and `info/`, user-only, where missing.
    private func prepare() throws(RecorderError) {
        let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        if !parent.isEmpty && !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(
                    atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .storage("cannot create \(parent): \(FileSystemFailure.reason(error))")
            }
        }
        for path in [directory, filesDirectory, infoDirectory] where mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw .storage("cannot create the trash directory \(path): \(Self.lastError())")
        }
    }

    /// The `.trashinfo` document for a file that was at `path`.
    static func info(path: String, deletionDate: Date, timeZone: TimeZone) -> String {
        "[Trash Info]\nPath=\(encodedPath(path))\nDeletionDate=\(Self.deletionDate(deletionDate, timeZone: timeZone))\n"
    }

    /// `path` percent-encoded as GLib's trash writes it (g_uri_escape_string with `/`
    /// allowed): every UTF-8 byte but ASCII letters, digits, `-._~` and `/` becomes `%XX`.
    public static func encodedPath(_ path: String) -> String {
        let kept = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in path.utf8 {
            if kept.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `YYYY-MM-DDThh:mm:ss` in `timeZone`, the spec's local-time `DeletionDate`.
    static func deletionDate(_ date: Date, timeZone: TimeZone) -> String {
        localTimeStamp(date, timeZone: timeZone, dateTimeSeparator: "T", timeSeparator: ":")
    }

    /// `name` for the first attempt, then `name` with `.2`, `.3`, … before its extension, so
    /// the trashed copy still opens as the same kind of file.
    static func uniqueName(_ name: String, attempt: Int) -> String {
        guard attempt > 1 else { return name }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name).\(attempt)" }
        return "\(name[..<dot]).\(attempt)\(name[dot...])"
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
