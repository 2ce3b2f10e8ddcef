import AudioContainers
import FoundationEssentials
import SoundFile
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the memo directory: which files are there (one `stat` each) and, for new or
/// changed ones, what libsndfile says they hold.
struct MemoFiles {
    let directory: String

    /// Where the memo file `name` is.
    func path(of name: String) -> String { directory + "/" + name }

    /// Every regular file in the directory with its size and modification time.
    func listing() -> [MemoFileStatus] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.compactMap(status(of:))
    }

    /// One file's status, or nil if it is gone or not a regular file.
    func status(of name: String) -> MemoFileStatus? {
        var info = stat()
        guard stat(path(of: name), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000 + Int64(info.st_mtim.tv_nsec) / 1000
        return MemoFileStatus(fileName: name, size: UInt64(info.st_size), modified: modified)
    }

    /// What a file holds, or nil when libsndfile cannot read it (then it is not a memo).
    func inspect(_ status: MemoFileStatus) -> MemoInfo? {
        let path = path(of: status.fileName)
        guard let reader = try? SoundFileReader(path: path),
            let format = reader.format ?? Self.format(of: status.fileName)
        else { return nil }
        // libsndfile knows no transcript tag, and no title in every container; the editor
        // reads both from the tag block in one opening of the file.
        let tags = (try? TagEditor.texts(ofFileAt: path, container: format.tagContainer)) ?? [:]
        let tagged = reader.title ?? tags[.title]
        let transcript = tags[.transcript]
        let created =
            MemoNaming.creationDate(forFileName: status.fileName).map { Int64($0.timeIntervalSince1970 * 1_000_000) }
            ?? status.modified
        return MemoInfo(
            fileName: status.fileName, title: tagged ?? MemoNaming.title(forFileName: status.fileName) ?? "",
            format: format, created: created, duration: reader.duration, sampleRate: UInt32(reader.sampleRate),
            channels: UInt32(reader.channelCount), size: status.size, modified: status.modified,
            transcript: transcript)
    }

    private static func format(of name: String) -> AudioFormat? {
        name.lastIndex(of: ".").flatMap { AudioFormat(fileExtension: String(name[name.index(after: $0)...])) }
    }
}

extension AudioFormat {
    /// The container whose tags hold this format's title.
    var tagContainer: TagContainer {
        switch self {
        case .wav: .wav
        case .flac: .flac
        case .opus, .vorbis: .ogg
        case .mp3: .mp3
        }
    }
}
