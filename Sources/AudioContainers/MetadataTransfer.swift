extension TagEditor {
    /// Gives the file at `target` the metadata of the file at `source`, both of `container`,
    /// keeping `target`'s audio and what describes that audio (its lengths, its encoder's
    /// headers): every Vorbis comment (names, order, repeated keys, vendor), every FLAC
    /// metadata block but STREAMINFO and SEEKTABLE, every ID3v2 frame but `TLEN` (a length)
    /// and the ID3v1 tag, every WAV chunk but the format, the audio and their companions.
    ///
    /// A trim writes the kept audio through libsndfile, which knows ten text tags and spells
    /// some its own way; this puts the original's tags back, key for key. `target` is replaced
    /// atomically (see `AtomicFileReplacement`) and keeps its permission bits; on a throw it
    /// is unchanged. Two Ogg streams must be of the same codec.
    public static func copyMetadata(from source: String, to target: String, container: TagContainer)
        throws(TagEditError)
    {
        let original = try InputFile(path: source)
        let input = try InputFile(path: target)
        let output = try AtomicFileReplacement(replacing: input)
        do {
            switch container {
            case .wav: try WaveTags.write(input, withMetadataOf: original, to: output)
            case .flac: try FlacTags.write(input, withMetadataOf: original, to: output)
            case .ogg: try OggTags.write(input, withMetadataOf: original, to: output)
            case .mp3: try ID3Tags.write(input, withMetadataOf: original, to: output)
            }
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }
}
