import Testing
import VoiceMemoCore

/// Recorded server views replayed through the route rules (live tests cannot change ports:
/// virtual sources have none).
@Suite("Route tracker")
struct RouteTrackerTests {
    typealias Input = InputRoutes.Input

    func routes(_ defaultSource: String, _ inputs: [String: Input], capturing: String? = nil) -> InputRoutes {
        InputRoutes(defaultSource: defaultSource, inputs: inputs, capturing: capturing)
    }

    func following(_ active: String) -> RecordingRoute { RecordingRoute(active: active) }
    func pinned(_ source: String) -> RecordingRoute { RecordingRoute(active: source, pinnedSource: source) }

    let mic = Input(isMuted: false, activePort: "analog-input-mic")
    let headset = Input(isMuted: false, activePort: "analog-input-headset-mic")
    let usb = Input(isMuted: false, activePort: "")
    let monitor = Input(isMuted: false, activePort: "", isMonitor: true)

    @Test func aNewDefaultIsFollowedUnlessPinned() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("builtin", ["builtin": mic]), recording: following("builtin"))
        let events = tracker.update(routes("usb", ["builtin": mic, "usb": usb]), recording: following("builtin"))
        #expect(events == [.routeChanged(.defaultChanged, from: "builtin", to: "usb")])

        var pinnedTracker = RouteTracker()
        _ = pinnedTracker.update(routes("builtin", ["builtin": mic]), recording: pinned("builtin"))
        let kept = pinnedTracker.update(routes("usb", ["builtin": mic, "usb": usb]), recording: pinned("builtin"))
        #expect(kept == [.routeChanged(.newDeviceAvailable, from: "builtin", to: "builtin")])
    }

    @Test func aStreamTheServerDidNotMoveIsReopened() {
        var tracker = RouteTracker()
        _ = tracker.update(
            routes("builtin", ["builtin": mic, "usb": usb], capturing: "builtin"), recording: following("builtin"))
        // The default changed; the stream is still on the old source.
        _ = tracker.update(
            routes("usb", ["builtin": mic, "usb": usb], capturing: "builtin"), recording: following("builtin"))
        #expect(tracker.needsReopen(following("usb")))
        #expect(!tracker.needsReopen(pinned("builtin")))
        // Moved: nothing to do, and the move itself is no second route change.
        let moved = tracker.update(
            routes("usb", ["builtin": mic, "usb": usb], capturing: "usb"), recording: following("usb"))
        #expect(moved == [])
        #expect(!tracker.needsReopen(following("usb")))
    }

    @Test func aMoveByAMixerIsFollowedWithoutARouteChange() {
        var tracker = RouteTracker()
        _ = tracker.update(
            routes("builtin", ["builtin": mic, "usb": usb], capturing: "builtin"), recording: following("builtin"))
        let events = tracker.update(
            routes("builtin", ["builtin": mic, "usb": usb], capturing: "usb"), recording: following("builtin"))
        #expect(events == [.moved(to: "usb")])
    }

    @Test func aFirstViewShowsWhereTheStreamReallyIs() {
        // Reconnected to a restarted server before its devices were back, then moved.
        var tracker = RouteTracker()
        let events = tracker.update(
            routes("builtin", ["builtin": mic, "auto_null.monitor": monitor], capturing: "builtin"),
            recording: following("auto_null.monitor"))
        #expect(events == [.moved(to: "builtin")])
    }

    @Test func anUnpluggedSourceMovesToTheFallback() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("usb", ["builtin": mic, "usb": usb], capturing: "usb"), recording: following("usb"))
        let events = tracker.update(
            routes("builtin", ["builtin": mic], capturing: "builtin"), recording: following("usb"))
        #expect(events == [.routeChanged(.oldDeviceUnavailable, from: "usb", to: "builtin")])
    }

    @Test func theFallbackIsAwaitedWhileTheServerHasNotSettled() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("usb", ["builtin": mic, "usb": usb], capturing: "usb"), recording: following("usb"))
        // PipeWire: the source is gone, the default still names it, the stream is nowhere yet.
        #expect(tracker.update(routes("usb", ["builtin": mic]), recording: following("usb")) == [])
        #expect(tracker.isWaitingForFallback)
        let settled = tracker.update(
            routes("builtin", ["builtin": mic], capturing: "builtin"), recording: following("usb"))
        #expect(settled == [.routeChanged(.oldDeviceUnavailable, from: "usb", to: "builtin")])
        #expect(!tracker.isWaitingForFallback)

        var neverSettles = RouteTracker()
        _ = neverSettles.update(routes("usb", ["builtin": mic, "usb": usb]), recording: following("usb"))
        _ = neverSettles.update(routes("", ["builtin": mic]), recording: following("usb"))
        #expect(neverSettles.stopWaitingForFallback() == [.inputLost])
        #expect(neverSettles.stopWaitingForFallback() == [])
    }

    @Test func aMonitorIsNoStandInForALostMicrophone() {
        var tracker = RouteTracker()
        _ = tracker.update(
            routes("usb", ["usb": usb, "speaker.monitor": monitor], capturing: "usb"), recording: following("usb"))
        let events = tracker.update(
            routes("speaker.monitor", ["speaker.monitor": monitor], capturing: "speaker.monitor"),
            recording: following("usb"))
        #expect(events == [.inputLost])
        // Nothing at all left is lost too.
        var empty = RouteTracker()
        _ = empty.update(routes("usb", ["usb": usb]), recording: following("usb"))
        #expect(empty.update(routes("", [:]), recording: following("usb")) == [.inputLost])
    }

    @Test func aPinnedSourceThatGoesAwayIsWaitedFor() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("builtin", ["builtin": mic, "usb": usb], capturing: "usb"), recording: pinned("usb"))
        #expect(
            tracker.update(routes("builtin", ["builtin": mic], capturing: "builtin"), recording: pinned("usb")) == [
                .inputLost
            ])
        var waiting = pinned("usb")
        waiting.isWaitingForInput = true
        // Other inputs coming and going do not bring it back; its own return does, once.
        #expect(tracker.update(routes("builtin", ["builtin": mic, "hdmi": usb]), recording: waiting) == [])
        #expect(
            tracker.update(routes("builtin", ["builtin": mic, "usb": usb]), recording: waiting) == [.inputReturned])
        #expect(tracker.update(routes("builtin", ["builtin": mic, "usb": usb]), recording: waiting) == [])
    }

    @Test func aRecordingWaitingForAnyInputTakesTheNextRealOne() {
        var tracker = RouteTracker()
        let waiting = RecordingRoute(active: "usb", isWaitingForInput: true)
        _ = tracker.update(routes("usb", ["usb": usb]), recording: following("usb"))
        #expect(tracker.update(routes("auto_null.monitor", ["auto_null.monitor": monitor]), recording: waiting) == [])
        #expect(
            tracker.update(routes("builtin", ["builtin": mic, "auto_null.monitor": monitor]), recording: waiting) == [
                .inputReturned
            ])
    }

    @Test func aPortChangeIsAnnounced() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("builtin", ["builtin": mic]), recording: following("builtin"))
        let events = tracker.update(routes("builtin", ["builtin": headset]), recording: following("builtin"))
        #expect(events == [.routeChanged(.portChanged, from: "builtin", to: "builtin")])
    }

    @Test func muteAndUnmuteOfTheActiveInputOnly() {
        var tracker = RouteTracker()
        let muted = Input(isMuted: true, activePort: mic.activePort)
        let recording = following("builtin")
        _ = tracker.update(routes("builtin", ["builtin": mic, "usb": usb]), recording: recording)
        #expect(
            tracker.update(
                routes("builtin", ["builtin": mic, "usb": Input(isMuted: true, activePort: "")]), recording: recording)
                == [])
        #expect(
            tracker.update(routes("builtin", ["builtin": muted, "usb": usb]), recording: recording) == [
                .inputMuted(true)
            ])
        #expect(tracker.update(routes("builtin", ["builtin": muted, "usb": usb]), recording: recording) == [])
        #expect(
            tracker.update(routes("builtin", ["builtin": mic, "usb": usb]), recording: recording) == [
                .inputMuted(false)
            ])
    }

    @Test func nothingHappensWithoutARecording() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("builtin", ["builtin": mic]), recording: nil)
        #expect(tracker.update(routes("usb", ["usb": Input(isMuted: true, activePort: "")]), recording: nil) == [])
    }

    @Test func aRecordingThatStartsMutedIsInterruptedAtOnce() {
        var tracker = RouteTracker()
        let muted = routes("builtin", ["builtin": Input(isMuted: true, activePort: "")])
        _ = tracker.update(muted, recording: nil)
        #expect(tracker.update(muted, recording: following("builtin")) == [.inputMuted(true)])
    }
}
