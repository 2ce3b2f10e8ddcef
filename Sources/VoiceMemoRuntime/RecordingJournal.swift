import FoundationEssentials
import VoiceMemoCore

/// Which memo files are being recorded, kept in a hidden file beside them so that after a
/// crash or power loss the next start knows which memos to repair and report.
public struct RecordingJournal: Sendable {
    public let path: String

    /// The journal of the memo directory at `directory`.
    public init(directory: String) {
        path = directory + "/.voicememo-recording"
    }

    /// The file names listed as open.
    public func entries() -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Lists `fileName` as open (before its first audio is written).
    public func add(_ fileName: String) throws(RecorderError) {
        try write(entries().filter { $0 != fileName } + [fileName])
    }

    /// Drops `fileName` (once its file is finalized, removed or repaired).
    public func remove(_ fileName: String) {
        try? write(entries().filter { $0 != fileName })
    }

    private func write(_ names: [String]) throws(RecorderError) {
        do {
            if names.isEmpty {
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            } else {
                try Data((names.joined(separator: "\n") + "\n").utf8).write(to: URL(filePath: path), options: .atomic)
            }
        } catch {
            throw .storage("cannot update \(path): \(FileSystemFailure.reason(error))")
        }
    }
}
