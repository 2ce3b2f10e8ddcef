import Testing
import VoiceMemoCore

/// Recorded server views replayed through the route rules (live tests cannot change ports:
/// virtual sources have none).
@Suite("Route tracker")
struct RouteTrackerTests {
    typealias Input = InputRoutes.Input

    func routes(_ defaultSource: String, _ inputs: [String: Input]) -> InputRoutes {
        InputRoutes(defaultSource: defaultSource, inputs: inputs)
    }

    let mic = Input(isMuted: false, activePort: "analog-input-mic")
    let headset = Input(isMuted: false, activePort: "analog-input-headset-mic")
    let usb = Input(isMuted: false, activePort: "")

    @Test func aNewDefaultIsFollowedUnlessPinned() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("builtin", ["builtin": mic]), active: "builtin", isPinned: false)
        let result = tracker.update(routes("usb", ["builtin": mic, "usb": usb]), active: "builtin", isPinned: false)
        #expect(result.events == [.routeChanged(.defaultChanged, from: "builtin", to: "usb")])
        #expect(result.active == "usb")

        var pinned = RouteTracker()
        _ = pinned.update(routes("builtin", ["builtin": mic]), active: "builtin", isPinned: true)
        let kept = pinned.update(routes("usb", ["builtin": mic, "usb": usb]), active: "builtin", isPinned: true)
        #expect(kept.events == [.routeChanged(.newDeviceAvailable, from: "builtin", to: "builtin")])
        #expect(kept.active == "builtin")
    }

    @Test func anUnpluggedSourceMovesToTheFallback() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("usb", ["builtin": mic, "usb": usb]), active: "usb", isPinned: true)
        let result = tracker.update(routes("builtin", ["builtin": mic]), active: "usb", isPinned: true)
        #expect(result.events == [.routeChanged(.oldDeviceUnavailable, from: "usb", to: "builtin")])
        #expect(result.active == "builtin")
    }

    @Test func aPortChangeIsAnnounced() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("builtin", ["builtin": mic]), active: "builtin", isPinned: false)
        let result = tracker.update(routes("builtin", ["builtin": headset]), active: "builtin", isPinned: false)
        #expect(result.events == [.routeChanged(.portChanged, from: "builtin", to: "builtin")])
    }

    @Test func muteAndUnmuteOfTheActiveInputOnly() {
        var tracker = RouteTracker()
        let muted = Input(isMuted: true, activePort: mic.activePort)
        _ = tracker.update(routes("builtin", ["builtin": mic, "usb": usb]), active: "builtin", isPinned: false)
        #expect(tracker.update(routes("builtin", ["builtin": mic, "usb": Input(isMuted: true, activePort: "")]), active: "builtin", isPinned: false).events == [])
        #expect(tracker.update(routes("builtin", ["builtin": muted, "usb": usb]), active: "builtin", isPinned: false).events == [.inputMuted(true)])
        #expect(tracker.update(routes("builtin", ["builtin": muted, "usb": usb]), active: "builtin", isPinned: false).events == [])
        #expect(tracker.update(routes("builtin", ["builtin": mic, "usb": usb]), active: "builtin", isPinned: false).events == [.inputMuted(false)])
    }

    @Test func nothingHappensWithoutARecording() {
        var tracker = RouteTracker()
        _ = tracker.update(routes("builtin", ["builtin": mic]), active: "", isPinned: false)
        let result = tracker.update(routes("usb", ["usb": Input(isMuted: true, activePort: "")]), active: "", isPinned: false)
        #expect(result.events == [])
    }

    @Test func aRecordingThatStartsMutedIsInterruptedAtOnce() {
        var tracker = RouteTracker()
        let muted = routes("builtin", ["builtin": Input(isMuted: true, activePort: "")])
        _ = tracker.update(muted, active: "", isPinned: false)
        #expect(tracker.update(muted, active: "builtin", isPinned: false).events == [.inputMuted(true)])
    }
}
