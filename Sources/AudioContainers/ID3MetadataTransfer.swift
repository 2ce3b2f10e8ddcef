extension ID3Tags {
    /// Writes `target` to `output` with the tags of `source` in place of its own: `source`'s
    /// ID3v2 tag with every frame byte for byte but `TLEN` (the old length) and its padding,
    /// `target`'s MPEG frames (LAME's Info frame with the new length among them), and
    /// `source`'s ID3v1 tag; a tag `source` lacks, the new file lacks too.
    static func write(
        _ target: InputFile, withMetadataOf source: InputFile, to output: AtomicFileReplacement
    ) throws(TagEditError) {
        let own = try Tags(of: target)
        let original = try Tags(of: source)
        let audio = try audioRange(of: target, between: own.audioStart, and: own.audioEnd)
        if var v2 = original.v2 {
            v2.frames.removeAll { $0.id == lengthID }
            try output.write(try v2.bytes(in: source))
        }
        try target.copy(audio, to: output)
        if let v1 = original.v1 { try output.write(v1) }
    }

    /// The frame that holds the audio's length in milliseconds, which a trim changes.
    private static let lengthID = Array("TLEN".utf8)
}
