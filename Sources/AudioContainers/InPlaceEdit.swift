/// A change to a file made by overwriting a few of its bytes (and perhaps appending), so a
/// tag is rewritten without moving the audio: what `WaveTags` and `FlacTags` plan and
/// `TagJournal` carries out.
struct InPlaceEdit: Equatable {
    /// One run of new bytes and where it goes; a run may reach past the file's end, or start there.
    struct Write: Equatable {
        var offset: Int64
        var bytes: [UInt8]
    }

    /// The runs, in the order they are written.
    var writes: [Write] = []
    /// The file's new length, when it shrinks (a run past the end grows it by itself).
    var length: Int64?

    /// Adds a run of `bytes` at `offset`.
    mutating func write(_ bytes: [UInt8], at offset: Int64) {
        writes.append(Write(offset: offset, bytes: bytes))
    }
}
