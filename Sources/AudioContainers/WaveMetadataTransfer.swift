extension WaveTags {
    /// Writes `target` to `output` with the chunks of `source` that are not audio in place of
    /// its own: `target`'s format, audio and the chunks that describe that audio (`fact`'s
    /// length, `PEAK`'s peaks, the `JUNK` that RF64 sizes take the place of), and every other
    /// chunk of `source` (`LIST`s of any type, `bext`, `cue `, unknown ones) byte for byte, on
    /// the same side of the audio as in `source`, in its order.
    static func write(
        _ target: InputFile, withMetadataOf source: InputFile, to output: AtomicFileReplacement
    ) throws(TagEditError) {
        let own = try chunks(of: target)
        let original = try chunks(of: source)
        // Both have a data chunk: `chunks(of:)` refuses a file without one.
        let audio = own.chunks.firstIndex { $0.id == dataID }!
        let originalAudio = original.chunks.firstIndex { $0.id == dataID }!
        func copies(_ chunks: ArraySlice<Chunk>) -> [Part] {
            chunks.filter { describesAudio($0) }.map { ($0.id, $0, []) }
        }
        func metadata(_ chunks: ArraySlice<Chunk>) throws(TagEditError) -> [Part] {
            var parts: [Part] = []
            for chunk in chunks where !describesAudio(chunk) {
                parts.append(
                    (chunk.id, nil, try source.read(at: chunk.range.lowerBound, count: Int(chunk.range.count))))
            }
            return parts
        }
        var parts = copies(own.chunks[..<audio])
        parts += try metadata(original.chunks[..<originalAudio])
        parts.append((dataID, own.chunks[audio], []))
        parts += try metadata(original.chunks[(originalAudio + 1)...])
        parts += copies(own.chunks[(audio + 1)...])
        try write(parts, of: target, layout: own, to: output)
    }

    /// Whether `chunk` is the audio or says something about it that a new encoding changes.
    private static func describesAudio(_ chunk: Chunk) -> Bool {
        audioDescriptions.contains(chunk.id)
    }

    private static let dataID = Array("data".utf8)
    private static let audioDescriptions: Set<[UInt8]> = Set(
        ["fmt ", "data", "fact", "PEAK", "JUNK"].map { Array($0.utf8) })
}
