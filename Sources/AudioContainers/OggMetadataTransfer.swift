extension OggTags {
    /// Writes `target` to `output` with the comment header packet of `source` in place of its
    /// own, whole (vendor, every field, the bytes after them); the identification and setup
    /// headers, which describe `target`'s audio, and its audio pages are kept.
    static func write(
        _ target: InputFile, withMetadataOf source: InputFile, to output: AtomicFileReplacement
    ) throws(TagEditError) {
        let headers = try Headers(of: target)
        let original = try Headers(of: source)
        guard original.isOpus == headers.isOpus else {
            throw TagEditError(
                path: target.path,
                message: "its codec is not that of \(source.path), whose comment header it cannot take")
        }
        var packets = headers.packets
        packets[1] = original.packets[1]
        try write(target, headers: headers, packets: packets, to: output)
    }
}
