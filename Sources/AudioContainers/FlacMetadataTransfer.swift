extension FlacTags {
    /// Writes `target` to `output` with the metadata blocks of `source` in place of its own:
    /// `target`'s STREAMINFO and SEEKTABLE (they describe its frames), then every other block
    /// of `source` in its order, byte for byte, then one PADDING block as large as all of
    /// `source`'s padding together (or `target`'s, if `source` had none), then `target`'s frames.
    static func write(
        _ target: InputFile, withMetadataOf source: InputFile, to output: AtomicFileReplacement
    ) throws(TagEditError) {
        let ownLayout = try Layout(of: target)
        let originalLayout = try Layout(of: source)
        let described: Set<UInt8> = [streamInfoType, seekTableType]
        var blocks = ownLayout.blocks.filter { described.contains($0.type) }.map { (file: target, block: $0) }
        blocks += originalLayout.blocks.filter { !described.contains($0.type) && $0.type != paddingType }.map {
            (file: source, block: $0)
        }
        let originalPadding = originalLayout.blocks.filter { $0.type == paddingType }
        let padding = (originalPadding.isEmpty ? ownLayout.blocks.filter { $0.type == paddingType } : originalPadding)
            .reduce(Int64(0)) { $0 + Int64($1.range.count) }
        // One block holds it all; a FLAC block cannot pass 16 MiB.
        let paddingLength = min(padding, Int64(1 << 24) - 1)

        try output.write(Array("fLaC".utf8))
        for (index, entry) in blocks.enumerated() {
            let isLast = index == blocks.count - 1 && padding == 0
            try output.write(header(type: entry.block.type, length: Int64(entry.block.range.count), isLast: isLast))
            try entry.file.copy(entry.block.range, to: output)
        }
        if padding > 0 {
            try output.write(header(type: paddingType, length: paddingLength, isLast: true))
            try output.write([UInt8](repeating: 0, count: Int(paddingLength)))
        }
        try target.copy(ownLayout.audioStart..<target.size, to: output)
    }

    /// A metadata block header: the last-block flag, the type and a 24-bit length.
    private static func header(type: UInt8, length: Int64, isLast: Bool) -> [UInt8] {
        var header = [(isLast ? 0x80 : 0) | type]
        header.appendUIntBE(UInt32(length), count: 3)
        return header
    }

    private static let streamInfoType: UInt8 = 0
    private static let seekTableType: UInt8 = 3
}
