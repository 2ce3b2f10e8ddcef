import FoundationEssentials
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// What was read from each memo file, kept in the runtime directory so a start-up with
/// years of memos opens none of them. Only a hint: entries whose file changed since are
/// read again. The format is `LibraryCacheFormat`'s.
struct LibraryCache {
    let path: String

    func load() -> [MemoInfo] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return LibraryCacheFormat.decode(data)
    }

    /// Saves the catalog; failure only costs the next start-up some time, so it is logged.
    func save(_ memos: some Sequence<MemoInfo>) {
        let directory = String(path[..<path.lastIndex(of: "/")!])
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(LibraryCacheFormat.encode(memos)).write(to: URL(filePath: path), options: .atomic)
        } catch {
            Log.warning("cannot save the library cache \(path): \(error)")
        }
    }
}
