import Glibc

/// The container a memo file uses, which decides where its tags live.
public enum TagContainer: Sendable {
    /// RIFF WAVE (and RF64): entries of a `LIST`/`INFO` chunk.
    case wav
    /// Native FLAC: fields of the VORBIS_COMMENT metadata block.
    case flac
    /// Ogg Opus or Ogg Vorbis: fields of the comment header packet.
    case ogg
    /// MPEG layer III: ID3v2 frames (and the ID3v1 title, if the file has an ID3v1 tag).
    case mp3
}

/// A tag voicememo reads and writes in memo files.
public enum TagField: CaseIterable, Sendable {
    /// The memo's title: Vorbis comment `TITLE`, ID3v2 `TIT2` (and the ID3v1 title), WAV `INAM`.
    case title
    /// The memo's transcript as WebVTT (`Transcript.webVTT`), multi-line and up to a few
    /// hundred KB: Vorbis comment `TRANSCRIPT`, ID3v2 `TXXX` frame described `TRANSCRIPT`,
    /// WAV `INFO` entry `ITRS` (no INFO id is registered for a transcript; ffprobe lists
    /// unknown ones under their own name).
    case transcript

    /// The Vorbis comment field name.
    var vorbisName: String {
        switch self {
        case .title: "TITLE"
        case .transcript: "TRANSCRIPT"
        }
    }

    /// The RIFF `INFO` entry id.
    var infoID: [UInt8] {
        switch self {
        case .title: Array("INAM".utf8)
        case .transcript: Array("ITRS".utf8)
        }
    }
}

/// Why a tag could not be read or written, and which file it concerns.
///
/// When `setText` or `setTitle` throws, the file at `path` is unchanged and no temporary file is left behind.
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

/// Reads and replaces the title and transcript tags of finished memo files without
/// re-encoding their audio.
///
/// libsndfile can only write tags while it creates a file, so the tag structures are edited
/// here. A WAV (or RF64) file's `LIST` chunk, a FLAC file's comments and an MP3 file's
/// ID3v2 tag are rewritten in place where there is room (`WaveTags.inPlaceEdit`,
/// `FlacTags.inPlaceEdit`, `ID3Tags.inPlaceEdit`) under a `TagJournal`, so a crash leaves
/// the old tags or the new ones; otherwise (Ogg, a FLAC file without padding, an MP3 file
/// without an ID3v2 tag or with one too small) every audio byte is copied unchanged into a
/// new file beside the original, which then atomically replaces it (see
/// `AtomicFileReplacement`); the copy is given room, so the next edit is made in place.
public enum TagEditor {
    /// Replaces the file's `field` tag with `text` (nil or empty: removes it), keeping every
    /// other tag and every audio byte.
    ///
    /// The file is parsed completely before it is changed; a malformed or truncated file throws
    /// and is left as it was. A rewritten file keeps the original's permission bits.
    public static func setText(
        _ text: String?, for field: TagField, ofFileAt path: String, container: TagContainer
    ) throws(TagEditError) {
        try setText(text, for: field, ofFileAt: path, container: container, stoppingAfter: nil)
    }

    /// `setText(_:for:ofFileAt:container:)`, stopped after `step` of an in-place edit as a
    /// crash there would stop it (for tests); returns whether the edit was made in place.
    @discardableResult
    package static func setText(
        _ text: String?, for field: TagField, ofFileAt path: String, container: TagContainer,
        stoppingAfter step: TagJournal.Step?
    ) throws(TagEditError) -> Bool {
        guard !(text?.utf8.contains(0) ?? false) else {
            throw TagEditError(
                path: path, message: "the \(field) contains a NUL character, which no tag format can store")
        }
        let newText = text?.isEmpty ?? true ? nil : text
        // The real file behind a link is edited, and its journal lies beside it.
        let path = DurableRename.resolvingLinks(path)
        // A journal left by a crash is about these very bytes: the old ones go back first.
        try TagJournal.recover(memoAt: path)
        let input = try InputFile(path: path)
        let edit: InPlaceEdit?
        switch container {
        // A read-only file can still be replaced by a new one, as its directory allows.
        case _ where access(path, W_OK) != 0: edit = nil
        case .wav: edit = try WaveTags.inPlaceEdit(input, setting: field, to: newText)
        case .flac: edit = try FlacTags.inPlaceEdit(input, setting: field, to: newText)
        case .mp3: edit = try ID3Tags.inPlaceEdit(input, setting: field, to: newText)
        case .ogg: edit = nil
        }
        if let edit {
            try TagJournal.apply(edit, to: input, stoppingAfter: step)
            return true
        }
        let output = try AtomicFileReplacement(replacing: input)
        do {
            switch container {
            case .wav: try WaveTags.write(input, setting: field, to: newText, into: output)
            case .flac: try FlacTags.write(input, setting: field, to: newText, into: output)
            case .ogg: try OggTags.write(input, setting: field, to: newText, into: output)
            case .mp3: try ID3Tags.write(input, setting: field, to: newText, into: output)
            }
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
        return false
    }

    /// Undoes the in-place edits a crash cut short in `directory` (see `TagJournal`), so each
    /// memo reads as before its edit; at the daemon's start, before the memos are read.
    /// Returns a line about each memo that needed it, for the log.
    public static func recoverInterruptedEdits(in directory: String) -> [String] {
        TagJournal.recoverAll(in: directory)
    }

    /// Reads the file's tags in one pass (the daemon reads every memo's title and transcript
    /// at start-up): each field the file has; throws when the file is not a well-formed file
    /// of `container`.
    public static func texts(
        ofFileAt path: String, container: TagContainer
    ) throws(TagEditError) -> [TagField: String] {
        let input = try InputFile(path: path)
        switch container {
        case .wav: return try WaveTags.texts(in: input)
        case .flac: return try FlacTags.texts(in: input)
        case .ogg: return try OggTags.texts(in: input)
        case .mp3: return try ID3Tags.texts(in: input)
        }
    }

    /// Reads the file's `field` tag: nil when the file has none; throws when the file is not a
    /// well-formed file of `container`.
    public static func text(
        of field: TagField, ofFileAt path: String, container: TagContainer
    ) throws(TagEditError) -> String? {
        try texts(ofFileAt: path, container: container)[field]
    }

    /// Replaces the file's title tag (empty title: removes it); see `setText(_:for:ofFileAt:container:)`.
    public static func setTitle(_ title: String, ofFileAt path: String, container: TagContainer) throws(TagEditError) {
        try setText(title, for: .title, ofFileAt: path, container: container)
    }

    /// Reads the title tag, if any (used by tests and by the daemon for hand-copied files).
    public static func title(ofFileAt path: String, container: TagContainer) throws(TagEditError) -> String? {
        try text(of: .title, ofFileAt: path, container: container)
    }
}
