import Bus
import VoiceMemoContract
import VoiceMemoCore

/// What the MPRIS player object shows for a state of the player and the library: its
/// status, the current track's metadata, and which transport controls apply. A value, so
/// each mapping is tested without a bus; `MediaPlayerService` serves it.
package struct MediaPlayerView {
    /// What the player does.
    package enum Playback: Equatable, Sendable {
        case stopped
        case playing(id: String)
        case paused(id: String)
    }

    package var playback: Playback
    /// The memo last played or selected by Next/Previous while stopped.
    package var selected: String?
    /// The library's memo ids, newest first.
    package var idsNewestFirst: [String]
    /// What the library knows of a memo.
    package var info: (String) -> MemoInfo?
    /// A memo's file.
    package var path: (String) -> String?

    package init(
        playback: Playback, selected: String?, idsNewestFirst: [String], info: @escaping (String) -> MemoInfo?,
        path: @escaping (String) -> String?
    ) {
        self.playback = playback
        self.selected = selected
        self.idsNewestFirst = idsNewestFirst
        self.info = info
        self.path = path
    }

    /// The memo the player has, else the one last selected if it still exists.
    package var currentTrack: MemoInfo? {
        (playingID ?? selected).flatMap(info)
    }

    /// What Play starts when stopped: the current track, else the newest memo.
    package var trackToPlay: String? {
        currentTrack?.id ?? MediaTransport.defaultTrack(newestFirst: idsNewestFirst)
    }

    /// `PlaybackStatus`.
    package var playbackStatus: String {
        switch playback {
        case .stopped: "Stopped"
        case .playing: "Playing"
        case .paused: "Paused"
        }
    }

    /// The memo Next (forward) or Previous goes to, if any.
    package func neighbour(forward: Bool) -> String? {
        guard let current = currentTrack?.id else { return nil }
        return forward
            ? MediaTransport.next(after: current, newestFirst: idsNewestFirst)
            : MediaTransport.previous(before: current, newestFirst: idsNewestFirst)
    }

    /// `CanGoNext`, `CanGoPrevious`, `CanPlay`, `CanPause`, `CanSeek`.
    package var canGoNext: Bool { neighbour(forward: true) != nil }
    package var canGoPrevious: Bool { neighbour(forward: false) != nil }
    package var canPlay: Bool { trackToPlay != nil }
    package var canPause: Bool { currentTrack != nil }
    package var canSeek: Bool { currentTrack != nil }

    /// `Metadata`: the current track, or MPRIS's `NoTrack`.
    package var metadata: BusValue {
        guard let memo = currentTrack, let file = path(memo.id) else {
            return .stringDictionary(["mpris:trackid": .objectPath(MediaPlayerNames.noTrack)])
        }
        return .stringDictionary([
            "mpris:trackid": .objectPath(Contract.memoPath(id: memo.id)),
            "mpris:length": .int64(MediaTransport.microseconds(memo.duration)),
            "xesam:title": .string(memo.title.isEmpty ? Self.untitledName(memo.fileName) : memo.title),
            "xesam:url": .string(MediaTransport.fileURL(path: file)),
        ])
    }

    private var playingID: String? {
        switch playback {
        case .stopped: nil
        case .playing(let id), .paused(let id): id
        }
    }

    /// A memo without a title is shown by its file name, without the extension.
    private static func untitledName(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fileName }
        return String(fileName[..<dot])
    }
}
