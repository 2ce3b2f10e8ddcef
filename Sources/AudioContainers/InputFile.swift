import Glibc

/// The memo file being edited, read at explicit offsets so that large audio sections are
/// streamed into the replacement instead of being loaded into memory.
///
/// Every read is checked against the file's size, so a corrupt length field can never make
/// this allocate more than the file holds.
final class InputFile {
    /// The path the file was opened at, for error messages and for the replacement.
    let path: String
    /// The file's size in bytes when it was opened.
    let size: Int64
    /// The file's permission bits, owner and group, which the replacement keeps.
    let mode: mode_t, owner: uid_t, group: gid_t
    /// The file's inode number, which names it in a `TagJournal`.
    let inode: UInt64
    private let descriptor: Int32

    /// Opens the regular file at `path` for reading.
    init(path: String) throws(TagEditError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TagEditError(path: path, message: "cannot open the file: \(systemError())")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = systemError()
            close(descriptor)
            throw TagEditError(path: path, message: "cannot inspect the file: \(reason)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw TagEditError(path: path, message: "not a regular file")
        }
        self.path = path
        self.descriptor = descriptor
        size = Int64(status.st_size)
        mode = status.st_mode & 0o7777
        owner = status.st_uid
        group = status.st_gid
        inode = UInt64(status.st_ino)
    }

    deinit {
        close(descriptor)
    }

    /// Exactly `count` bytes starting at `offset`; throws if the file ends before them.
    func read(at offset: Int64, count: Int) throws(TagEditError) -> [UInt8] {
        guard offset >= 0, count >= 0, Int64(count) <= size - offset else {
            throw malformed("the file ends at byte \(size), before the \(count) bytes expected at byte \(offset)")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw TagEditError(
                    path: path, message: got == 0 ? "the file shrank while being read" : "cannot read: \(systemError())"
                )
            }
            done += got
        }
        return bytes
    }

    /// The bytes from `offset` to the end of the file, at most `limit` of them.
    func read(at offset: Int64, upTo limit: Int) throws(TagEditError) -> [UInt8] {
        try read(at: offset, count: Int(min(Int64(limit), max(0, size - offset))))
    }

    /// An error saying the file is not what its container should look like.
    func malformed(_ detail: String) -> TagEditError {
        TagEditError(path: path, message: "the file is malformed or truncated: \(detail); it was left unchanged")
    }

    /// Copies `range` of this file into `output` in bounded chunks.
    func copy(_ range: Range<Int64>, to output: AtomicFileReplacement) throws(TagEditError) {
        let chunk = 1 << 20
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = Int(min(Int64(chunk), range.upperBound - offset))
            try output.write(read(at: offset, count: count))
            offset += Int64(count)
        }
    }
}

/// The text for the current `errno`.
func systemError() -> String {
    String(cString: strerror(errno))
}
