/// A FLAC file's comments rewritten into the room of the old VORBIS_COMMENT block and the
/// PADDING block right after it, without moving the frames: the padding shrinks or grows by
/// what the comments gain or lose.
extension FlacTags {
    /// The write that sets `field` to `text` (removed when nil) in `file`, or nil when the new
    /// comment block does not fit (or the file has no comment block followed by padding).
    static func inPlaceEdit(
        _ file: InputFile, setting field: TagField, to text: String?
    ) throws(TagEditError) -> InPlaceEdit? {
        let layout = try Layout(of: file)
        guard let index = layout.blocks.firstIndex(where: { $0.type == commentType }),
            index + 1 < layout.blocks.count, layout.blocks[index + 1].type == paddingType
        else { return nil }
        var comment = try comment(in: layout.blocks[index], of: file)
        comment.setValue(text, of: field)
        let body = comment.bytes
        guard body.count < 1 << 24 else { return nil }
        let padding = layout.blocks[index + 1]
        let start = layout.blocks[index].range.lowerBound - 4
        let spare = padding.range.upperBound - start - 4 - Int64(body.count)
        // What is left must hold a padding block's header, and fit its 24-bit length.
        guard spare == 0 || (spare >= 4 && spare - 4 < 1 << 24) else { return nil }
        let isLast = try file.read(at: padding.range.lowerBound - 4, count: 1)[0] & 0x80
        var bytes = [spare == 0 ? isLast | commentType : commentType]
        bytes.appendUIntBE(UInt32(body.count), count: 3)
        bytes += body
        if spare > 0 {
            bytes.append(isLast | paddingType)
            bytes.appendUIntBE(UInt32(spare - 4), count: 3)
            // Padding is zeros; the old padding's body already is, up to where this reaches.
            let zeros = padding.range.lowerBound - start - Int64(bytes.count)
            if zeros > 0 { bytes += [UInt8](repeating: 0, count: Int(zeros)) }
        }
        var edit = InPlaceEdit()
        edit.write(bytes, at: start)
        return edit
    }

    /// The PADDING block's type.
    static let paddingType: UInt8 = 1
}
