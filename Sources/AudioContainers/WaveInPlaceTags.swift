/// A WAVE file's title or transcript rewritten where its `LIST`/`INFO` chunk lies, without
/// moving the audio.
///
/// The new list takes the old one's place when it fits there together with the `JUNK` or
/// `PAD ` chunks right after it (the daemon records a `JUNK` chunk after the list for this,
/// as broadcast tools leave room), the rest becoming one `JUNK` chunk. A list that is the
/// file's last chunk (with its padding) simply grows or shrinks there. Otherwise the new
/// list is appended at the end of the file and the old one renamed `JUNK` in place; the
/// RIFF size (an RF64 file's `ds64` one) follows the file's length.
extension WaveTags {
    /// The writes that set `field` to `text` (removed when nil) in `file`, or nil when only a
    /// whole rewrite can: several `INFO` lists, bytes after the RIFF data, or a plain WAV
    /// that the append would take past 4 GiB.
    static func inPlaceEdit(
        _ file: InputFile, setting field: TagField, to text: String?
    ) throws(TagEditError) -> InPlaceEdit? {
        let layout = try chunks(of: file)
        var found: (index: Int, info: InfoList)?
        for (index, chunk) in layout.chunks.enumerated() where chunk.id == Self.list {
            guard let info = try InfoList(chunk, of: file) else { continue }
            guard found == nil else { return nil }
            found = (index, info)
        }
        var entries = found?.info.entries ?? []
        let id = field.infoID
        let position = entries.firstIndex { $0.id == id } ?? 0
        entries.removeAll { $0.id == id }
        if let text { entries.insert((id, Array(text.utf8) + [0]), at: min(position, entries.count)) }
        var chunk: [UInt8] = []
        if !entries.isEmpty {
            let body = InfoList(entries: entries).bytes
            chunk = Self.list
            chunk.appendUInt32LE(UInt32(body.count))
            chunk += body
        }
        guard let found else { return chunk.isEmpty ? InPlaceEdit() : append(chunk, to: file, layout: layout) }

        // The old list and the padding chunks right after it, as one run of bytes.
        let start = layout.chunks[found.index].range.lowerBound - 8
        func paddedEnd(_ chunk: Chunk) -> Int64 {
            min(chunk.range.upperBound + Int64(chunk.range.count % 2), layout.end)
        }
        var end = paddedEnd(layout.chunks[found.index])
        for next in layout.chunks[(found.index + 1)...] {
            guard next.range.lowerBound == end + 8, Self.padding.contains(next.id) else { break }
            end = paddedEnd(next)
        }
        let room = end - start
        let spare = room - Int64(chunk.count)
        var edit = InPlaceEdit()
        if end == layout.end, layout.end == file.size {
            // The list is the last chunk: it grows (or shrinks) where it is.
            edit.write(chunk, at: start)
            if spare > 0 { edit.length = start + Int64(chunk.count) }
            return resized(edit, to: start + Int64(chunk.count), layout: layout)
        }
        if spare == 0 || spare >= 8 {
            var bytes = chunk
            if spare >= 8 {
                bytes += Self.junk
                bytes.appendUInt32LE(UInt32(spare - 8))
            }
            edit.write(bytes, at: start)
            return edit
        }
        guard var appended = append(chunk, to: file, layout: layout) else { return nil }
        // Renamed, the old list is padding every reader skips; its bytes stay as they were.
        appended.write(Self.junk, at: start)
        return appended
    }

    /// `chunk` added after the RIFF data's last chunk, with the sizes that follow.
    private static func append(_ chunk: [UInt8], to file: InputFile, layout: Layout) -> InPlaceEdit? {
        guard layout.end == file.size else { return nil }
        var edit = InPlaceEdit()
        var start = layout.end
        // The pad byte after an odd-sized last chunk may be missing; it goes in first.
        if start % 2 == 1 {
            edit.write([0] + chunk, at: start)
            start += 1
        } else {
            edit.write(chunk, at: start)
        }
        return resized(edit, to: start + Int64(chunk.count), layout: layout)
    }

    /// `edit` with the RIFF size (or the `ds64` chunk's) set for a file `length` bytes long;
    /// nil when a plain WAV would pass 4 GiB (the whole rewrite makes it RF64).
    private static func resized(_ edit: InPlaceEdit, to length: Int64, layout: Layout) -> InPlaceEdit? {
        var edit = edit
        var size: [UInt8] = []
        if layout.sizes != nil {
            size.appendUInt64LE(UInt64(length - 8))
            // The ds64 chunk is the first after the 12-byte header; riffSize opens its body.
            edit.write(size, at: 20)
        } else {
            guard length - 8 <= Int64(UInt32.max) else { return nil }
            size.appendUInt32LE(UInt32(length - 8))
            edit.write(size, at: 4)
        }
        return edit
    }

    /// Chunks that hold nothing and may be overwritten: libsndfile writes `JUNK` and `PAD `.
    private static let padding = [Array("JUNK".utf8), Array("PAD ".utf8)]
}
