import Bus
import Dispatch
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoRuntime

/// The names MPRIS 2.2 fixes for voicememo's media-player object.
package enum MediaPlayerNames {
    /// Owned beside `org.example.VoiceMemo`; `playerctl -p voicememo` finds it by this suffix.
    package static let busName = BusName("org.mpris.MediaPlayer2.voicememo")
    static let path = ObjectPath("/org/mpris/MediaPlayer2")
    static let rootInterface = InterfaceName("org.mpris.MediaPlayer2")
    static let playerInterface = InterfaceName("org.mpris.MediaPlayer2.Player")
    /// The track id MPRIS reserves for "no current track".
    static let noTrack = ObjectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")
    /// The application entry desktops match the player with (`data/<application id>.desktop`).
    static let desktopEntry = Contract.applicationID
}

/// `/org/mpris/MediaPlayer2`: memo playback for media keys, `playerctl`, waybar's mpris
/// module and GNOME Shell's media widget, as two declarative tables over `MemoPlayer`.
///
/// The current track is the memo last played (by MPRIS or by a memo's own `Play`); until
/// one has played there is none (`NoTrack`) and `Play` starts the newest memo. Next and
/// Previous walk the library newest first. A track id is the memo's own object path
/// (`/org/example/VoiceMemo/Memo/<id>`), since MPRIS forbids players paths under
/// `/org/mpris`. Stopping keeps the current track; the end of a memo stops. `Rate` is the
/// recorder's saved `PlaybackRate`: 0.5 to 2, pitch kept.
///
/// Lives on the daemon's queue with the player, the library and the bus connection.
package final class MediaPlayerService {
    private let player: MemoPlayer
    /// Keeps the playback rate with its other saved settings.
    private let recorder: Recorder
    private let library: MemoLibraryService
    private let server: BusObjectServer
    /// The memo the transport acts on, kept after playback stops.
    private var selected: String?
    /// The values last announced, so PropertiesChanged carries only real changes.
    private var announced: PropertySnapshot!
    /// The library newest first, rebuilt only after it changes.
    private var cachedIDs: [String]?
    /// Set while one track replaces another, so clients never see a passing "Stopped".
    private var isSwitchingTrack = false

    package init(player: MemoPlayer, recorder: Recorder, library: MemoLibraryService, server: BusObjectServer) {
        self.player = player
        self.recorder = recorder
        self.library = library
        self.server = server
        server.export(MediaPlayerNames.path, interfaces: [rootInterface, playerInterface])
        player.statusChanged.observe { [weak self] in self?.playerChanged() }
        library.changed.observe { [weak self] in self?.libraryChanged() }
        recorder.notifications.observe { [weak self] notification in
            if case .changed(let properties) = notification, properties.contains(.playbackRate) {
                self?.announceChanges()
            }
        }
        announced = server.snapshot(
            of: Self.announcedNames, on: MediaPlayerNames.path, interface: MediaPlayerNames.playerInterface)
    }

    // MARK: The tables

    private var rootInterface: BusInterface {
        BusInterface(
            name: MediaPlayerNames.rootInterface,
            methods: [
                // Nothing to raise (no window) and quitting is the session's business.
                BusMethod("Raise") { call in call.reply() },
                BusMethod("Quit") { call in call.reply() },
            ],
            properties: [
                BusProperty("CanQuit", "b", changeSignal: .constant) { .boolean(false) },
                BusProperty("CanRaise", "b", changeSignal: .constant) { .boolean(false) },
                BusProperty("HasTrackList", "b", changeSignal: .constant) { .boolean(false) },
                BusProperty("Identity", "s", changeSignal: .constant) { .string("Voice Memos") },
                BusProperty("DesktopEntry", "s", changeSignal: .constant) { .string(MediaPlayerNames.desktopEntry) },
                BusProperty("SupportedUriSchemes", "as", changeSignal: .constant) { .stringArray([]) },
                BusProperty("SupportedMimeTypes", "as", changeSignal: .constant) { .stringArray([]) },
            ])
    }

    private var playerInterface: BusInterface {
        BusInterface(
            name: MediaPlayerNames.playerInterface,
            methods: [
                BusMethod("Next") { [weak self] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            try self?.step(forward: true)
                            return []
                        })
                },
                BusMethod("Previous") { [weak self] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            try self?.step(forward: false)
                            return []
                        })
                },
                BusMethod("Pause") { [player] call in
                    player.pause()
                    call.reply()
                },
                BusMethod("PlayPause") { [weak self] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            if self?.player.playing != nil, self?.player.isPaused == false {
                                self?.player.pause()
                            } else {
                                try self?.play()
                            }
                            return []
                        })
                },
                BusMethod("Stop") { [player] call in
                    player.stop()
                    call.reply()
                },
                BusMethod("Play") { [weak self] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            try self?.play()
                            return []
                        })
                },
                BusMethod("Seek", in: [BusArgument("Offset", "x")]) { [weak self] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            try self?.seek(by: call.arguments[0].int64 ?? 0)
                            return []
                        })
                },
                BusMethod("SetPosition", in: [BusArgument("TrackId", "o"), BusArgument("Position", "x")]) {
                    [weak self] call in
                    self?.setPosition(call.arguments[1].int64 ?? -1, track: call.arguments[0].objectPath ?? .root)
                    call.reply()
                },
                BusMethod("OpenUri", in: [BusArgument("Uri", "s")]) { call in
                    call.fail(
                        BusError(
                            ErrorName("org.freedesktop.DBus.Error.NotSupported"),
                            "voicememo plays only its own memos; SupportedUriSchemes is empty"))
                },
            ],
            properties: [
                BusProperty("PlaybackStatus", "s") { [weak self] in .string(self?.view.playbackStatus ?? "Stopped") },
                // The recorder's PlaybackRate; 0 means pause, per MPRIS, and leaves it as it is.
                BusProperty(
                    "Rate", "d", access: .readWrite, get: { [recorder] in .double(recorder.defaults.playbackRate) },
                    set: { [weak self] value throws(BusError) in try self?.setRate(value.double ?? .nan) }),
                BusProperty("Metadata", "a{sv}") { [weak self] in self?.view.metadata ?? .stringDictionary([:]) },
                // Playback goes out at full scale; the desktop's mixer sets the level.
                BusProperty("Volume", "d", access: .readWrite, get: { .double(1) }, set: { _ throws(BusError) in }),
                BusProperty("Position", "x", changeSignal: .none) { [player] in
                    .int64(MediaTransport.microseconds(player.position))
                },
                BusProperty("MinimumRate", "d", changeSignal: .constant) {
                    .double(Validation.playbackRates.lowerBound)
                },
                BusProperty("MaximumRate", "d", changeSignal: .constant) {
                    .double(Validation.playbackRates.upperBound)
                },
                BusProperty("CanGoNext", "b") { [weak self] in .boolean(self?.view.canGoNext ?? false) },
                BusProperty("CanGoPrevious", "b") { [weak self] in .boolean(self?.view.canGoPrevious ?? false) },
                BusProperty("CanPlay", "b") { [weak self] in .boolean(self?.view.canPlay ?? false) },
                BusProperty("CanPause", "b") { [weak self] in .boolean(self?.view.canPause ?? false) },
                BusProperty("CanSeek", "b") { [weak self] in .boolean(self?.view.canSeek ?? false) },
                BusProperty("CanControl", "b", changeSignal: .none) { .boolean(true) },
            ],
            signals: [BusSignalSpec("Seeked", [BusArgument("Position", "x")])])
    }

    // MARK: State

    private var ids: [String] {
        if let cachedIDs { return cachedIDs }
        let ids = library.idsNewestFirst
        cachedIDs = ids
        return ids
    }

    /// What the object shows now (`MediaPlayerView`).
    private var view: MediaPlayerView {
        let playback: MediaPlayerView.Playback =
            player.playing.map { player.isPaused ? .paused(id: $0.id) : .playing(id: $0.id) } ?? .stopped
        return MediaPlayerView(
            playback: playback, selected: selected, idsNewestFirst: ids, info: library.info(id:),
            path: { [library] in library.reference(id: $0)?.path })
    }

    private var currentTrack: MemoInfo? { view.currentTrack }

    private var trackToPlay: String? { view.trackToPlay }

    private func neighbour(forward: Bool) -> String? { view.neighbour(forward: forward) }

    // MARK: Transport

    /// Play: resume when paused, nothing when playing, else start the current track or the newest memo.
    private func play() throws(RecorderError) {
        if player.playing != nil {
            player.resume()
            return
        }
        guard let id = trackToPlay else { return }
        try start(id, paused: false)
    }

    private func start(_ id: String, paused: Bool) throws(RecorderError) {
        isSwitchingTrack = true
        defer {
            isSwitchingTrack = false
            announceChanges()
        }
        try library.play(id: id, paused: paused)
    }

    /// Next/Previous: playing or paused goes on in the same state on the neighbour; stopped
    /// only selects it. With no neighbour CanGoNext/CanGoPrevious are false, so the methods
    /// do nothing; a Seek past the end of the oldest memo stops (`stopsAtEnd`), per MPRIS.
    private func step(forward: Bool, stopsAtEnd: Bool = false) throws(RecorderError) {
        guard currentTrack != nil else { return }
        guard let target = neighbour(forward: forward) else {
            if stopsAtEnd { player.stop() }
            return
        }
        if player.playing != nil {
            try start(target, paused: player.isPaused)
        } else {
            selected = target
            announceChanges()
        }
    }

    private func seek(by offset: Int64) throws(RecorderError) {
        guard player.playing != nil, let memo = currentTrack else { return }
        let position = MediaTransport.microseconds(player.position)
        switch MediaTransport.seek(from: position, by: offset, length: MediaTransport.microseconds(memo.duration)) {
        case .position(let target): move(to: target)
        case .next: try step(forward: true, stopsAtEnd: true)
        }
    }

    private func setPosition(_ position: Int64, track: ObjectPath) {
        guard player.playing != nil, let memo = currentTrack,
            let target = MediaTransport.setPosition(
                position, trackID: track.rawValue, currentTrackID: Contract.memoPath(id: memo.id).rawValue,
                length: MediaTransport.microseconds(memo.duration))
        else { return }
        move(to: target)
    }

    /// A `Rate` write: 0 pauses; a rate in `Validation.playbackRates` is saved as the
    /// recorder's `PlaybackRate` (whose change is announced on both objects); any other is refused.
    private func setRate(_ rate: Double) throws(BusError) {
        if rate == 0 {
            player.pause()
            return
        }
        do throws(RecorderError) {
            let checked: Double
            do {
                checked = try Validation.playbackRate(rate, key: "Rate")
            } catch {
                throw .invalidArgument(error.message + ", or 0 to pause")
            }
            try recorder.updateDefaults { $0.playbackRate = checked }
        } catch {
            throw BusError(error)
        }
    }

    private func move(to microseconds: Int64) {
        player.seek(to: Double(microseconds) / 1_000_000)
        server.emit(
            MemberName("Seeked"), on: MediaPlayerNames.path, interface: MediaPlayerNames.playerInterface,
            arguments: [.int64(microseconds)])
    }

    // MARK: Announcements

    private func playerChanged() {
        if let playing = player.playing { selected = playing.id }
        if !isSwitchingTrack { announceChanges() }
    }

    private func libraryChanged() {
        cachedIDs = nil
        if let id = selected, library.info(id: id) == nil, player.playing?.id != id { selected = nil }
        announceChanges()
    }

    /// The properties PropertiesChanged reports, by name.
    private static let announcedNames = [
        "PlaybackStatus", "Rate", "Metadata", "CanPlay", "CanPause", "CanSeek", "CanGoNext", "CanGoPrevious",
    ]

    /// Emits PropertiesChanged with whatever changed since the last announcement.
    private func announceChanges() {
        announced = server.announceChanges(since: announced)
    }
}
