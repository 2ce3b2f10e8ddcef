import Glibc

/// Makes an in-place tag edit all-or-nothing across a crash: an overwrite of several bytes is
/// not atomic, so the bytes it replaces are saved first and put back if it was cut short.
///
/// Before the memo is touched, `.<memo file name>.tagjournal` is written beside it (mode
/// 0600): the memo's size and inode, each overwritten run's offset and old bytes, and a
/// checksum over all of it; it is synced, and so is the directory. Then the memo is
/// overwritten (and perhaps appended to) and synced, and the journal removed. A journal
/// found later (`recover(memoAt:)`, at the daemon's start for every memo) means the edit may
/// be half done: a whole one puts the old bytes back and cuts the memo to its old size, so
/// it reads as before the edit; a torn one (bad checksum) was cut short while being
/// written, before the memo was touched, and is deleted.
package enum TagJournal {
    /// The points of `apply` after which a test may stop it, as a SIGKILL there would.
    package enum Step: CaseIterable, Sendable {
        /// The journal's bytes are written, not yet synced.
        case journalWritten
        /// The journal and its directory are synced; the memo is untouched.
        case journalSynced
        /// The first run of new bytes is in the memo.
        case firstRunWritten
        /// Every run is in the memo, not yet synced.
        case allRunsWritten
        /// The memo is synced; the journal is still there.
        case memoSynced
    }

    /// What `recover(memoAt:)` found.
    package enum Recovery: Equatable, Sendable {
        /// No journal: the memo's last edit (if any) finished.
        case nothing
        /// A whole journal: its old bytes were put back, so the memo reads as before that edit.
        case restored
        /// A torn journal (or one about another file of that name): deleted, the memo untouched.
        case dropped
    }

    /// The journal of the memo at `path`: `.<name>.tagjournal` in the same directory.
    package static func path(forMemoAt path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return "\(directory).\(name)\(suffix)"
    }

    /// Carries out `edit` on `file` under a journal; on an error the memo is put back as it was.
    /// `step` stops it there without cleaning up, for tests of what a crash leaves.
    static func apply(_ edit: InPlaceEdit, to file: InputFile, stoppingAfter step: Step? = nil) throws(TagEditError) {
        let journalPath = path(forMemoAt: file.path)
        let memo = open(file.path, O_RDWR | O_CLOEXEC)
        guard memo >= 0 else {
            throw TagEditError(path: file.path, message: "cannot open the file for writing: \(systemError())")
        }
        defer { close(memo) }
        var journal = Journal(originalSize: file.size, inode: file.inode, runs: [])
        for write in edit.writes where write.offset < file.size {
            let end = min(write.offset + Int64(write.bytes.count), file.size)
            journal.runs.append((write.offset, try file.read(at: write.offset, count: Int(end - write.offset))))
        }
        if let length = edit.length, length < file.size {
            // What a shrink cuts off is old bytes too.
            journal.runs.append((length, try file.read(at: length, count: Int(file.size - length))))
        }
        try writeDurably(journal.bytes, to: journalPath, memoPath: file.path, stoppingEarly: step == .journalWritten)
        if step == .journalWritten { return }
        if step == .journalSynced { return }
        do throws(TagEditError) {
            for (index, write) in edit.writes.enumerated() {
                try writeAll(write.bytes, at: write.offset, to: memo, path: file.path)
                if index == 0, step == .firstRunWritten { return }
            }
            if let length = edit.length, ftruncate(memo, off_t(length)) != 0 {
                throw TagEditError(path: file.path, message: "cannot cut the file to \(length) bytes: \(systemError())")
            }
            if step == .allRunsWritten { return }
            guard fsync(memo) == 0 else {
                throw TagEditError(path: file.path, message: "cannot flush the file to disk: \(systemError())")
            }
        } catch {
            // Nothing may be left half written: the old bytes go back before the error is told.
            _ = try? restore(journal, into: file.path, descriptor: memo)
            unlink(journalPath)
            DurableRename.syncDirectory(of: journalPath)
            throw TagEditError(path: file.path, message: "\(error.message); the file was put back as it was")
        }
        if step == .memoSynced { return }
        unlink(journalPath)
        DurableRename.syncDirectory(of: journalPath)
    }

    /// Finishes what a crash during an in-place edit of the memo at `path` left: see `Recovery`.
    @discardableResult
    package static func recover(memoAt path: String) throws(TagEditError) -> Recovery {
        let journalPath = Self.path(forMemoAt: path)
        let descriptor = open(journalPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return .nothing }
            throw TagEditError(path: journalPath, message: "cannot open the tag journal: \(systemError())")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            bytes += chunk[..<got]
        }
        close(descriptor)
        var outcome = Recovery.dropped
        if let journal = Journal(parsing: bytes) {
            let memo = open(path, O_RDWR | O_CLOEXEC)
            if memo >= 0 {
                defer { close(memo) }
                var status = stat()
                if fstat(memo, &status) == 0, UInt64(status.st_ino) == journal.inode {
                    try restore(journal, into: path, descriptor: memo)
                    outcome = .restored
                }
            }
        }
        unlink(journalPath)
        DurableRename.syncDirectory(of: journalPath)
        return outcome
    }

    /// Recovers every memo in `directory` that has a journal; returns what was done to each, in words.
    package static func recoverAll(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("."), name.hasSuffix(suffix), name.count > suffix.count + 1 { names.append(name) }
        }
        closedir(stream)
        return names.sorted().map { name in
            let memo = "\(directory)/\(name.dropFirst().dropLast(suffix.count))"
            do throws(TagEditError) {
                switch try recover(memoAt: memo) {
                case .nothing: return "\(memo): its tag journal went meanwhile"
                case .restored: return "\(memo): a title change cut short by a crash was undone"
                case .dropped: return "\(memo): a torn tag journal was deleted (the file was never touched)"
                }
            } catch {
                return "\(memo): cannot undo a title change cut short by a crash: \(error.message)"
            }
        }
    }

    private static let suffix = ".tagjournal"

    /// Puts `journal`'s old bytes back into the memo and cuts it to its old size, synced.
    private static func restore(_ journal: Journal, into path: String, descriptor: Int32) throws(TagEditError) {
        for (offset, bytes) in journal.runs { try writeAll(bytes, at: offset, to: descriptor, path: path) }
        guard ftruncate(descriptor, off_t(journal.originalSize)) == 0, fsync(descriptor) == 0 else {
            throw TagEditError(path: path, message: "cannot restore the file's old size: \(systemError())")
        }
    }

    /// Writes `bytes` as the new file `path` (user-only), synced with its directory.
    private static func writeDurably(
        _ bytes: [UInt8], to path: String, memoPath: String, stoppingEarly: Bool
    ) throws(TagEditError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw TagEditError(path: memoPath, message: "cannot create the tag journal \(path): \(systemError())")
        }
        defer { close(descriptor) }
        do throws(TagEditError) {
            guard fchmod(descriptor, 0o600) == 0 else {
                throw TagEditError(path: memoPath, message: "cannot make \(path) user-only: \(systemError())")
            }
            try writeAll(bytes, at: 0, to: descriptor, path: path)
            if stoppingEarly { return }
            guard fsync(descriptor) == 0 else {
                throw TagEditError(path: memoPath, message: "cannot flush \(path) to disk: \(systemError())")
            }
        } catch {
            unlink(path)
            throw TagEditError(path: memoPath, message: "\(error.message); the file is unchanged")
        }
        DurableRename.syncDirectory(of: path)
    }

    private static func writeAll(
        _ bytes: [UInt8], at offset: Int64, to descriptor: Int32, path: String
    ) throws(TagEditError) {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done))
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw TagEditError(path: path, message: "cannot write: \(systemError())") }
            done += written
        }
    }

    /// The journal's contents: magic, the memo's size and inode, the runs (offset, length,
    /// old bytes), then an FNV-1a 64-bit checksum of all that, little-endian throughout.
    private struct Journal {
        var originalSize: Int64
        var inode: UInt64
        var runs: [(offset: Int64, bytes: [UInt8])]

        static let magic = Array("VMTAGJ01".utf8)

        var bytes: [UInt8] {
            var out = Self.magic
            out.appendUInt64LE(UInt64(originalSize))
            out.appendUInt64LE(inode)
            out.appendUInt32LE(UInt32(runs.count))
            for (offset, bytes) in runs {
                out.appendUInt64LE(UInt64(offset))
                out.appendUInt32LE(UInt32(bytes.count))
                out += bytes
            }
            out.appendUInt64LE(Self.checksum(out[...]))
            return out
        }

        init(originalSize: Int64, inode: UInt64, runs: [(offset: Int64, bytes: [UInt8])]) {
            self.originalSize = originalSize
            self.inode = inode
            self.runs = runs
        }

        /// Parses a journal; nil when it is torn or not one.
        init?(parsing bytes: [UInt8]) {
            guard bytes.count >= Self.magic.count + 28, bytes.starts(with: Self.magic) else { return nil }
            let body = bytes[..<(bytes.count - 8)]
            guard Self.checksum(body) == Self.uint64(bytes, at: bytes.count - 8) else { return nil }
            var offset = Self.magic.count
            originalSize = Int64(bitPattern: Self.uint64(bytes, at: offset))
            inode = Self.uint64(bytes, at: offset + 8)
            let count = Self.uint32(bytes, at: offset + 16)
            offset += 20
            runs = []
            for _ in 0..<count {
                guard body.count - offset >= 12 else { return nil }
                let start = Int64(bitPattern: Self.uint64(bytes, at: offset))
                let length = Self.uint32(bytes, at: offset + 8)
                offset += 12
                guard body.count - offset >= length, start >= 0 else { return nil }
                runs.append((start, Array(bytes[offset..<offset + length])))
                offset += length
            }
            guard offset == body.count, originalSize >= 0 else { return nil }
        }

        private static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
        }

        private static func uint32(_ bytes: [UInt8], at offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }

        private static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
            bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
    }
}
