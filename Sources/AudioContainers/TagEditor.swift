/// The container a memo file uses, which decides where its title tag lives.
public enum TagContainer: Sendable {
    /// RIFF WAVE: the title is the `INAM` entry of a `LIST`/`INFO` chunk.
    case wav
    /// Native FLAC: the title is a `TITLE` field of the VORBIS_COMMENT metadata block.
    case flac
    /// Ogg Opus or Ogg Vorbis: the title is a `TITLE` field of the comment header packet.
    case ogg
    /// MPEG layer III: the title is the ID3v2 `TIT2` frame (and the ID3v1 title, if present).
    case mp3
}

/// Why a tag could not be read or written, and which file it concerns.
///
/// When `setTitle` throws, the file at `path` is unchanged and no temporary file is left behind.
public struct TagEditError: Error, CustomStringConvertible {
    /// The file that could not be read or rewritten.
    public let path: String
    /// What went wrong, in words meant for the person who has to act on it.
    public let message: String

    /// Creates an error about `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// Reads and replaces the title tag of finished memo files without re-encoding their audio.
///
/// libsndfile can only write tags while it creates a file, so renaming a memo rewrites the
/// file's tag structures here: every audio byte is copied unchanged into a new file beside the
/// original, which then atomically replaces it (see `AtomicFileReplacement`).
public enum TagEditor {
    /// Replaces the file's title tag (empty title: remove it), keeping every other tag and every audio byte.
    ///
    /// The file is parsed completely before it is replaced; a malformed or truncated file throws
    /// and is left as it was. The new file keeps the original's permission bits.
    public static func setTitle(_ title: String, ofFileAt path: String, container: TagContainer) throws(TagEditError) {
        guard !title.utf8.contains(0) else {
            throw TagEditError(path: path, message: "the title contains a NUL character, which no tag format can store")
        }
        let newTitle = title.isEmpty ? nil : title
        let input = try InputFile(path: path)
        let output = try AtomicFileReplacement(replacing: input)
        do {
            switch container {
            case .wav: try WaveTags.write(input, replacingTitleWith: newTitle, to: output)
            case .flac: try FlacTags.write(input, replacingTitleWith: newTitle, to: output)
            case .ogg: try OggTags.write(input, replacingTitleWith: newTitle, to: output)
            case .mp3: try ID3Tags.write(input, replacingTitleWith: newTitle, to: output)
            }
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// Reads the title tag, if any (used by tests and by the daemon for hand-copied files).
    ///
    /// Returns nil when the file has no title tag; throws when the file is not a well-formed
    /// file of `container`.
    public static func title(ofFileAt path: String, container: TagContainer) throws(TagEditError) -> String? {
        let input = try InputFile(path: path)
        switch container {
        case .wav: return try WaveTags.title(of: input)
        case .flac: return try FlacTags.title(of: input)
        case .ogg: return try OggTags.title(of: input)
        case .mp3: return try ID3Tags.title(of: input)
        }
    }
}
