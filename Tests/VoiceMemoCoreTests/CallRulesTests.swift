import Testing
import VoiceMemoCore

/// A call's system side in the rules: `ActiveOutput` and `RouteChanged` follow the output it
/// records, and a call is asked to follow the default output when the server's view says so.
@Suite("Call rules: the system side's output")
struct CallRulesTests {
    private func startCall(_ driver: inout MachineDriver) -> RecordingNumber {
        let number = driver.startRecording(["system-audio": .boolean(true)])
        driver.send(.systemAudioChanged(number, output: "speaker", isStart: true))
        return number
    }

    @Test func theStartNamesTheOutputWithoutARouteChange() {
        var driver = MachineDriver()
        let number = driver.startRecording(["system-audio": .boolean(true)])
        let effects = driver.send(.systemAudioChanged(number, output: "speaker", isStart: true))
        #expect(effects.notifications == [.changed([.activeOutput])])
        #expect(driver.machine.open?.activeOutput == "speaker")
    }

    @Test func aNewOutputALostOneAndOneThatReturnsAreRouteChangesAndALossAnInterruption() {
        var driver = MachineDriver()
        let number = startCall(&driver)
        let moved = driver.send(.systemAudioChanged(number, output: "headphones", isStart: false))
        #expect(
            moved.notifications == [
                .changed([.activeOutput]), .routeChanged(.defaultChanged, from: "speaker", to: "headphones"),
            ])
        let lost = driver.send(.systemAudioChanged(number, output: nil, isStart: false))
        #expect(
            lost.notifications == [
                .changed([.activeOutput]), .routeChanged(.oldDeviceUnavailable, from: "headphones", to: ""),
                .interruption(.outputLost, began: true, shouldResume: true),
            ])
        #expect(driver.machine.state == .recording, "the microphone goes on: the recorder is not interrupted")
        let back = driver.send(.systemAudioChanged(number, output: "speaker", isStart: false))
        #expect(
            back.notifications == [
                .changed([.activeOutput]), .routeChanged(.newDeviceAvailable, from: "", to: "speaker"),
                .interruption(.outputLost, began: false, shouldResume: true),
            ])
        #expect(
            driver.send(.systemAudioChanged(number, output: "speaker", isStart: false)).isEmpty, "no change, no news")
    }

    @Test func anOutputChangeReopensOnlyACallsSystemSide() {
        var driver = MachineDriver()
        #expect(driver.send(.outputChanged).isEmpty, "nothing open")
        let number = startCall(&driver)
        #expect(driver.send(.outputChanged) == [.reopenSystemAudio(number)])
        driver.send(.stop(2))
        var single = MachineDriver()
        single.startRecording()
        #expect(single.send(.outputChanged).isEmpty, "a memo of one input has no system side")
    }

    @Test func newsOfAnotherRecordingIsIgnored() {
        var driver = MachineDriver()
        let number = startCall(&driver)
        #expect(driver.send(.systemAudioChanged(number + 1, output: "headphones", isStart: false)).isEmpty)
        #expect(driver.machine.open?.activeOutput == "speaker")
    }
}

@Suite("Following the default output")
struct OutputFollowingTests {
    private let monitors = ["speaker": "speaker.monitor", "headphones": "headphones.monitor"]

    private func needsReopen(active: String?, default output: String, stream: String?) -> Bool {
        OutputFollowing.needsReopen(
            activeOutput: active, defaultOutput: output, streamSource: stream, monitor: { monitors[$0] })
    }

    @Test func aCallOnTheDefaultOutputStays() {
        #expect(!needsReopen(active: "speaker", default: "speaker", stream: "speaker.monitor"))
        #expect(!needsReopen(active: "speaker", default: "speaker", stream: nil), "the stream is not listed yet")
    }

    @Test func aNewDefaultOutputIsFollowed() {
        #expect(needsReopen(active: "speaker", default: "headphones", stream: "speaker.monitor"))
    }

    @Test func aStreamMovedOffItsMonitorIsOpenedAgain() {
        #expect(needsReopen(active: "speaker", default: "speaker", stream: "microphone"))
        #expect(
            needsReopen(active: "gone", default: "", stream: "microphone"), "its output is gone, the stream rescued")
    }

    @Test func nothingToFollowToStaysPut() {
        #expect(!needsReopen(active: nil, default: "headphones", stream: nil), "a lost side opens again by itself")
        #expect(!needsReopen(active: "speaker", default: "", stream: "speaker.monitor"), "no default output")
        #expect(
            !needsReopen(active: "speaker", default: "hdmi", stream: "speaker.monitor"), "a default with no monitor")
    }
}
