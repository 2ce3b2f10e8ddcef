import Bus
import Foundation
import IntegrationSupport
import SoundFile
import XCTest

/// The server's inputs changing under a recording: a muted input and a new default.
final class RouteTests: RecorderTestCase {
    // 5. A muted input interrupts (visibly) without stopping the memo; unmuted, it goes on.
    func testMutingTheInputInterruptsAndUnmutingResumes() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        Thread.sleep(forTimeInterval: 0.5)
        _ = try fixture.audioServer.pactl(["set-source-mute", AudioDevices.microphone, "1"])
        let began = try recorder.waitForSignal("Interruption", timeout: .seconds(2)) { $0.arguments.first?.string == "began" }
        XCTAssertEqual(began.arguments.compactMap(\.string), ["began", "input-muted"])
        XCTAssertEqual(began.arguments.last?.boolean, true)
        XCTAssertEqual(try recorder.state, "interrupted")
        Thread.sleep(forTimeInterval: 0.5)
        _ = try fixture.audioServer.pactl(["set-source-mute", AudioDevices.microphone, "0"])
        let ended = try recorder.waitForSignal("Interruption", timeout: .seconds(2)) { $0.arguments.first?.string == "ended" }
        XCTAssertEqual(ended.arguments.compactMap(\.string), ["ended", "input-muted"])
        XCTAssertEqual(try recorder.state, "recording")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try recorder.call("Stop").first?.objectPath, memo)
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, 1.5, accuracy: 0.2, "the muted half second is recorded too (as silence)")
    }

    // 1 (in part). A new default input: the route change is announced and ActiveSource follows.
    func testANewDefaultInputIsFollowed() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        XCTAssertEqual(try recorder.property("ActiveSource").string, AudioDevices.microphone)
        let second = "voicememo_second_mic"
        let module = try fixture.audioServer.pactl([
            "load-module", "module-remap-source", "master=\(AudioDevices.stimulusSink).monitor", "source_name=\(second)",
            "channels=1", "channel_map=mono",
        ])
        // The fixture's devices outlive the test: put the default back and drop the new source.
        defer {
            _ = try? fixture.audioServer.pactl(["set-default-source", AudioDevices.microphone])
            _ = try? fixture.audioServer.pactl(["unload-module", module])
        }
        _ = try fixture.audioServer.pactl(["set-default-source", second])
        let route = try recorder.waitForSignal("RouteChanged", timeout: .seconds(3)) { $0.arguments.first?.string == "default-changed" }
        XCTAssertEqual(route.arguments.compactMap(\.string), ["default-changed", AudioDevices.microphone, second])
        XCTAssertEqual(try recorder.property("ActiveSource").string, second)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try recorder.call("Stop").first?.objectPath, memo)
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertGreaterThan(file.duration, 0.4)
        let samples = file.readFloats()
        let lastQuarter = samples.suffix(samples.count / 4)
        XCTAssertGreaterThan(lastQuarter.map { abs($0) }.max() ?? 0, 0.4, "the tone goes on from the new input")
    }
}
