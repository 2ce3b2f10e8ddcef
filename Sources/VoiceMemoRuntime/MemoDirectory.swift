import FoundationEssentials
import VoiceMemoCore

/// The folder memos live in: created user-only on demand, and the authority on which
/// names are taken.
public struct MemoDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Creates the folder (and parents) with mode 0700 if it is missing.
    public func prepare() throws(RecorderError) {
        // Not attributesOfItem: it also looks up the owner's user and group names (NSS reads
        // /etc/passwd and /etc/group), 2 ms of every Record.
        var isDirectory = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory else {
                throw .storage("the memo directory \(path) exists but is not a directory; move it out of the way")
            }
        } else {
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .storage("cannot create the memo directory \(path): \(FileSystemFailure.reason(error))")
            }
        }
        guard FileManager.default.isWritableFile(atPath: path) else {
            throw .storage("the memo directory \(path) is not writable; check its permissions")
        }
    }

    /// A memo for a recording starting at `date` whose file and id are both unused, also
    /// avoiding `reserved` ids (memos scheduled or still being finalized).
    public func newMemo(date: Date, title: String?, format: AudioFormat, reserved: Set<String>) -> MemoReference {
        var sequence = 1
        while true {
            let name = MemoNaming.fileName(date: date, title: title, format: format, sequence: sequence)
            let id = MemoNaming.memoID(forFileName: name)
            let path = path + "/" + name
            if !reserved.contains(id), !containsMemo(id: id), !FileManager.default.fileExists(atPath: path) {
                return MemoReference(id: id, path: path)
            }
            sequence += 1
        }
    }

    /// Whether any file in the folder already has memo id `id`.
    func containsMemo(id: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.contains { MemoNaming.memoID(forFileName: $0) == id }
    }

    /// Removes a memo's file; a file already gone is not an error.
    public func remove(_ memo: MemoReference) throws(RecorderError) {
        guard FileManager.default.fileExists(atPath: memo.path) else { return }
        do {
            try FileManager.default.removeItem(atPath: memo.path)
        } catch {
            throw .storage("cannot delete \(memo.path): \(FileSystemFailure.reason(error))")
        }
    }
}
