import FoundationEssentials
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// Each memo's waveform peaks, one small file per memo (`<id>.peaks`, at most 8 KiB) in
/// `peaks/` under the cache directory: kept out of the daemon's memory and out of
/// the library cache, read only when someone asks for that memo's peaks. Only a hint, like
/// the library cache: a record whose memo changed since is computed again.
///
/// Stateless: read on the daemon's queue, written on the peaks queue (a record is replaced
/// by a rename, so a reader sees the old or the new one whole).
struct PeakCache {
    let directory: String

    private func path(of id: String) -> String { directory + "/" + id + ".peaks" }

    /// The record kept for memo `id`, if there is a readable one.
    func record(for id: String) -> PeakCacheRecord? {
        let descriptor = open(path(of: id), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // One byte more than the largest record, to tell an oversized file.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 44 + 2 * PeakBins.maximumCount + 1, alignment: 8)
        defer { buffer.deallocate() }
        let count = read(descriptor, buffer.baseAddress, buffer.count)
        guard count > 0 else { return nil }
        return PeakCacheRecord(decoding: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }

    /// Keeps `record` for memo `id`, written aside and renamed into place so a reader sees
    /// a whole record. No fsync: a record lost to a crash is only decoded again, and a
    /// panel drawing a new library would otherwise wait on the disk once per memo. Failure
    /// only costs a later call a decode, so it is logged.
    func save(_ record: PeakCacheRecord, for id: String) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            Log.warning("cannot create the peaks cache \(directory): \(error)")
            return
        }
        let (path, temporary) = (path(of: id), directory + "/." + id + ".peaks.new")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            Log.warning("cannot save the peaks of \(id) in \(directory): \(String(cString: strerror(errno)))")
            return
        }
        let bytes = record.encoded
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let closed = close(descriptor)
        guard written == bytes.count, closed == 0, rename(temporary, path) == 0 else {
            Log.warning("cannot save the peaks of \(id) in \(directory): \(String(cString: strerror(errno)))")
            unlink(temporary)
            return
        }
    }

    /// Forgets memo `id` (deleted or gone).
    func remove(id: String) {
        unlink(path(of: id))
    }

    /// Removes the records of memos that are no longer in the library (deleted while the
    /// daemon was not running).
    func removeAll(except ids: Set<String>) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names {
            // A record some crash left half written goes too.
            let isStale =
                name.hasSuffix(".peaks") ? !ids.contains(String(name.dropLast(6))) : name.hasSuffix(".peaks.new")
            if isStale { unlink(directory + "/" + name) }
        }
    }
}
