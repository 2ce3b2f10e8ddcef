/// The rules behind the MPRIS media-player object, kept apart from the bus: which memo
/// Next and Previous go to (the library newest first, as `voicememo list` shows it), and
/// the position arithmetic of Seek and SetPosition in microseconds.
public enum MediaTransport {
    /// What `Play` or `PlayPause` starts when nothing is selected: the newest memo.
    public static func defaultTrack(newestFirst ids: [String]) -> String? {
        ids.first
    }

    /// The memo after `current` in the newest-first list (an older one), or nil at the end
    /// or when `current` is not in the list.
    public static func next(after current: String, newestFirst ids: [String]) -> String? {
        guard let index = ids.firstIndex(of: current), index + 1 < ids.count else { return nil }
        return ids[index + 1]
    }

    /// The memo before `current` in the newest-first list (a newer one), or nil at the top
    /// or when `current` is not in the list.
    public static func previous(before current: String, newestFirst ids: [String]) -> String? {
        guard let index = ids.firstIndex(of: current), index > 0 else { return nil }
        return ids[index - 1]
    }

    /// Seconds as the microseconds MPRIS counts in (`x`), rounded to the nearest.
    public static func microseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return Int64((seconds * 1_000_000).rounded())
    }

    /// Where `Seek(offset)` leads, per MPRIS: before the start clamps to 0, past the end
    /// means "go to the next track".
    public enum SeekOutcome: Equatable, Sendable {
        /// Move to this position, microseconds from the start.
        case position(Int64)
        /// The offset runs past the end: act like `Next`.
        case next
    }

    /// The outcome of seeking by `offset` µs from `position` in a track `length` µs long.
    public static func seek(from position: Int64, by offset: Int64, length: Int64) -> SeekOutcome {
        let (target, overflow) = position.addingReportingOverflow(offset)
        if overflow { return offset < 0 ? .position(0) : .next }
        if target < 0 { return .position(0) }
        if target > length { return .next }
        return .position(target)
    }

    /// The position `SetPosition` moves to, or nil when MPRIS says to ignore the call: a
    /// stale track id, a negative position, or one past the end.
    public static func setPosition(
        _ position: Int64, trackID: String, currentTrackID: String?, length: Int64
    ) -> Int64? {
        guard trackID == currentTrackID, position >= 0, position <= length else { return nil }
        return position
    }

    /// A `file://` URL for an absolute path (`xesam:url`), percent-encoding every byte but
    /// RFC 3986's unreserved characters and `/`.
    public static func fileURL(path: String) -> String {
        var url = "file://"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                url.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                url.unicodeScalars.append("%")
                url.unicodeScalars.append(hex[Int(byte >> 4)])
                url.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return url
    }
}
