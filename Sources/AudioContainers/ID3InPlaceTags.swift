/// An MP3 file's ID3v2 tag rewritten where it lies, without moving the MPEG frames: the new
/// frames take the old tag's room and the padding after them shrinks or grows to fill it, so
/// the tag keeps its size. The daemon's MP3 memos start with such a tag (`newTag`), with
/// `room` bytes of padding, as taggers leave.
extension ID3Tags {
    /// The writes that set `field` to `text` (removed when nil) in `file`, or nil when only a
    /// whole rewrite can: no ID3v2 tag, a tag with a footer (which may not have padding), or
    /// frames that outgrow the tag.
    static func inPlaceEdit(
        _ file: InputFile, setting field: TagField, to text: String?
    ) throws(TagEditError) -> InPlaceEdit? {
        let tags = try Tags(of: file)
        guard var v2 = tags.v2, !v2.hasFooter else { return nil }
        // A stream that is not whole is refused here as a rewrite refuses it.
        _ = try audioRange(of: file, between: tags.audioStart, and: tags.audioEnd)
        v2.setValue(text, of: field)
        guard v2.frameBytes.count <= v2.size else { return nil }
        var edit = InPlaceEdit()
        edit.write(try v2.bytes(in: file), at: 0)
        if var v1 = tags.v1, field == .title {
            setTitle(text, in: &v1)
            edit.write(v1, at: tags.audioEnd)
        }
        return edit
    }

    /// A new ID3v2.4 tag holding `frames` (id and UTF-8 text) and `room` bytes of padding.
    static func newTag(_ frames: [(id: String, text: String)]) -> [UInt8] {
        let tag = Version2Tag(
            version: 4, flags: 0,
            frames: frames.map { Frame(id: Array($0.id.utf8), flags: [0, 0], body: [3] + Array($0.text.utf8)) },
            hasFooter: false, size: 0)
        let body = tag.frameBytes + [UInt8](repeating: 0, count: room)
        return Array("ID3".utf8) + [4, 0, 0] + Version2Tag.syncsafeBytes(body.count) + body
    }
}

extension TagEditor {
    /// The ID3v2.4 tag an MP3 memo starts with: its title (if any), recording date and
    /// encoder, then padding so that a rename or a transcript is written in place.
    ///
    /// libsndfile (through LAME) stores short tags only as an ID3v1 tag at the end, written
    /// when the file is closed, and puts an ID3v2.3 tag without padding first only for values
    /// that do not fit there; so the recorder writes this tag first and gives libsndfile none.
    public static func mp3LeadingTag(title: String?, date: String, software: String) -> [UInt8] {
        var frames: [(id: String, text: String)] = []
        if let title, !title.isEmpty { frames.append(("TIT2", title)) }
        // ID3v2.4 time stamps are UTC without a zone designator.
        frames.append(("TDRC", date.hasSuffix("Z") ? String(date.dropLast()) : date))
        frames.append(("TSSE", software))
        return ID3Tags.newTag(frames)
    }
}
