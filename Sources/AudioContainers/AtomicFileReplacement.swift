import Glibc

/// A new version of a file, written beside it and moved over it only once complete.
///
/// The replacement is a hidden temporary file in the same directory (so `rename(2)` is atomic
/// and never crosses file systems) with the original's permission bits. `commit()` flushes it
/// to disk, renames it over the original and syncs the directory; `discard()` deletes it. At
/// every instant the path names either the complete old file or the complete new one.
final class AtomicFileReplacement {
    private let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var isFinished = false
    private static let bufferLimit = 1 << 20

    /// Creates the temporary file that will replace `original`.
    ///
    /// A symbolic link is followed, so the file it points to is replaced and the link stays.
    init(replacing original: InputFile) throws(TagEditError) {
        let path = DurableRename.resolvingLinks(original.path)
        self.path = path
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory).\(name).tagedit-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw TagEditError(
                path: path, message: "cannot create a temporary file in the file's directory: \(systemError())")
        }
        temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        self.descriptor = descriptor
        // Owner and group can only be kept when running as root or when they are already ours.
        _ = fchown(descriptor, original.owner, original.group)
        guard fchmod(descriptor, original.mode) == 0 else {
            let reason = systemError()
            discard()
            throw TagEditError(path: path, message: "cannot set the permissions of the new file: \(reason)")
        }
    }

    deinit {
        discard()
    }

    /// Appends `bytes` to the new file.
    func write(_ bytes: [UInt8]) throws(TagEditError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferLimit { try flush() }
    }

    /// Makes the new file durable and moves it over the original.
    func commit() throws(TagEditError) {
        try flush()
        guard fsync(descriptor) == 0 else { throw failure("cannot flush the new file to disk") }
        let status = close(descriptor)
        descriptor = -1
        guard status == 0 else { throw failure("cannot close the new file") }
        guard rename(temporaryPath, path) == 0 else { throw failure("cannot move the new file over the original") }
        isFinished = true
        // Makes the rename itself durable; a failure here leaves a complete file either way.
        DurableRename.syncDirectory(of: path)
    }

    /// Deletes the new file, leaving the original as it was; does nothing after `commit()`.
    func discard() {
        guard !isFinished else { return }
        isFinished = true
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(temporaryPath)
    }

    private func flush() throws(TagEditError) {
        var done = 0
        while done < buffer.count {
            let written = buffer.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw failure("cannot write the new file") }
            done += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func failure(_ what: String) -> TagEditError {
        TagEditError(
            path: path, message: "\(what) (\(temporaryPath)): \(systemError()); the original was left unchanged")
    }
}
