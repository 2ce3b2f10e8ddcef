import Bus
import Testing
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoService

/// The MPRIS player object's view of a state: status, metadata and the transport's Can*
/// properties, for three memos, newest first: `new`, `middle`, `old`.
@Suite("MPRIS view: the player and the library as MPRIS properties")
struct MediaPlayerViewTests {
    private static let memos = [
        memo("new.opus", title: "Shopping list", duration: 1.5),
        memo("middle.opus", title: "", duration: 2),
        memo("old.opus", title: "Idea", duration: 3),
    ]

    private static func memo(_ fileName: String, title: String, duration: Double) -> MemoInfo {
        MemoInfo(
            fileName: fileName, title: title, format: .opus, created: 0, duration: duration, sampleRate: 48_000,
            channels: 1, size: 1_000, modified: 0)
    }

    private static let ids = memos.map(\.id)

    private func view(_ playback: MediaPlayerView.Playback, selected: String? = nil, ids: [String] = Self.ids)
        -> MediaPlayerView
    {
        MediaPlayerView(
            playback: playback, selected: selected, idsNewestFirst: ids,
            info: { id in Self.memos.first { $0.id == id && ids.contains(id) } },
            path: { id in Self.memos.first { $0.id == id }.map { "/memos/\($0.fileName)" } })
    }

    @Test func stoppedWithNothingPlayedYetThereIsNoTrackAndPlayStartsTheNewest() {
        let view = view(.stopped)
        #expect(view.playbackStatus == "Stopped")
        #expect(view.currentTrack == nil)
        #expect(view.trackToPlay == Self.ids[0])
        #expect(view.canPlay)
        #expect(!view.canPause)
        #expect(!view.canSeek)
        #expect(!view.canGoNext)
        #expect(!view.canGoPrevious)
        // The track id MPRIS reserves for "no current track".
        let noTrack = ObjectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")
        #expect(view.metadata == .stringDictionary(["mpris:trackid": .objectPath(noTrack)]))
    }

    @Test func anEmptyLibraryCannotPlay() {
        let view = view(.stopped, ids: [])
        #expect(view.trackToPlay == nil)
        #expect(!view.canPlay)
    }

    @Test func playingTheNewestMemoGoesOnlyToOlderOnes() {
        let view = view(.playing(id: Self.ids[0]))
        #expect(view.playbackStatus == "Playing")
        #expect(view.currentTrack?.id == Self.ids[0])
        #expect(view.neighbour(forward: true) == Self.ids[1])
        #expect(view.canGoNext)
        #expect(!view.canGoPrevious)
        #expect(view.canPause)
        #expect(view.canSeek)
    }

    @Test func pausedOnTheOldestMemoGoesOnlyBack() {
        let view = view(.paused(id: Self.ids[2]))
        #expect(view.playbackStatus == "Paused")
        #expect(!view.canGoNext)
        #expect(view.neighbour(forward: false) == Self.ids[1])
    }

    @Test func aStoppedPlayerKeepsTheSelectedTrack() {
        let view = view(.stopped, selected: Self.ids[1])
        #expect(view.playbackStatus == "Stopped")
        #expect(view.currentTrack?.id == Self.ids[1])
        #expect(view.trackToPlay == Self.ids[1])
        #expect(view.canGoNext)
        #expect(view.canGoPrevious)
    }

    @Test func aSelectedMemoThatWasDeletedIsNoTrack() {
        let view = view(.stopped, selected: Self.ids[1], ids: [Self.ids[0], Self.ids[2]])
        #expect(view.currentTrack == nil)
        #expect(view.trackToPlay == Self.ids[0])
    }

    @Test func theMetadataNamesTheMemoByItsObjectPathTitleLengthAndFile() {
        let view = view(.playing(id: Self.ids[0]))
        #expect(
            view.metadata
                == .stringDictionary([
                    "mpris:trackid": .objectPath(Contract.memoPath(id: Self.ids[0])),
                    "mpris:length": .int64(1_500_000),
                    "xesam:title": .string("Shopping list"),
                    "xesam:url": .string("file:///memos/new.opus"),
                ]))
    }

    @Test func anUntitledMemoIsShownByItsFileNameWithoutTheExtension() {
        let view = view(.playing(id: Self.ids[1]))
        #expect(view.metadata.stringDictionary?["xesam:title"] == .string("middle"))
    }
}
