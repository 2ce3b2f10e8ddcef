import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// The audio server going away mid-recording, staying away, or not running at all.
final class ServerLossTests: RecorderTestCase {
    /// The seconds of `file` that carry the tone, from its first to its last loud sample.
    private func tonalRange(_ file: SoundFileReader) -> ClosedRange<Double>? {
        let samples = file.readFloats()
        let loud = samples.indices.filter { abs(samples[$0]) > 0.1 }
        guard let first = loud.first, let last = loud.last else { return nil }
        return Double(first) / Double(file.sampleRate)...Double(last) / Double(file.sampleRate)
    }

    // 3a. Killed mid-recording and back 3 s later: interrupted, then the same memo goes on.
    func testAServerRestartInterruptsAndTheSameMemoContinues() throws {
        // The restart's commands and the stimulus's start lie partly inside the recording.
        var beforeOutage = RecordingSpan()
        var afterOutage = RecordingSpan()
        let memo = try beforeOutage.start { try recorder.recordWithOptions(["format": .string("wav")]) }
        try recorder.waitUntilRecorded(1)
        let beforeKill = try recorder.markSignals()
        beforeOutage.stop { fixture.audioServer.kill() }
        let began = try recorder.waitForSignal(RecorderMember.interruption, timeout: .seconds(2), after: beforeKill) {
            $0.arguments.first?.string == "began"
        }
        XCTAssertEqual(began.arguments.compactMap(\.string), ["began", "server-lost"])
        XCTAssertEqual(began.arguments.last?.boolean, true)
        XCTAssertEqual(try recorder.state, "interrupted")
        let url = try recorder.file(of: memo)
        XCTAssertEqual(
            try SoundFileReader(path: url.path).duration, 1, accuracy: 0.15, "the file is valid during the outage")

        // The outage is the scenario: a server gone for 3 s, the reconnect's backoff beyond its
        // first tries. The daemon reports nothing while it waits, so no condition marks the end.
        Thread.sleep(forTimeInterval: 3)
        let beforeRestart = try recorder.markSignals()
        let ended = try afterOutage.start {
            try fixture.audioServer.restart()
            try fixture.stimulus.start()
            return try recorder.waitForSignal(RecorderMember.interruption, timeout: .seconds(5), after: beforeRestart) {
                $0.arguments.first?.string == "ended"
            }
        }
        XCTAssertEqual(ended.arguments.compactMap(\.string), ["ended", "server-lost"])
        let route = try recorder.waitForSignal(RecorderMember.routeChanged, timeout: .seconds(2), after: beforeRestart)
        {
            $0.arguments.first?.string == "server-restarted"
        }
        XCTAssertEqual(route.arguments[1].string, AudioDevices.microphone, "the source before the outage")
        // The stream reconnects to whatever is the default at that moment; once the restarted
        // server has its devices back, the recording follows the microphone again.
        try waitUntil("the recording is fed by the microphone again", timeout: .seconds(3)) {
            try self.recorder.property(RecorderMember.activeSource).string == AudioDevices.microphone
        }
        XCTAssertEqual(try recorder.state, "recording")

        try recorder.waitUntilRecorded(further: 1)
        XCTAssertEqual(try afterOutage.stop { try recorder.call(RecorderMember.stop) }.first?.objectPath, memo)
        XCTAssertEqual(recorder.memoFiles.count, 1, "one memo across the outage")
        let file = try SoundFileReader(path: url.path)
        let recorded = RecordingSpan.seconds(of: beforeOutage, afterOutage)
        XCTAssertTrue(
            (recorded.lowerBound - 0.15...recorded.upperBound + 0.15).contains(file.duration),
            "a second before and a second after; the outage is not recorded: \(file.duration) s, recorded \(beforeOutage) and \(afterOutage)"
        )
        let tone = try XCTUnwrap(tonalRange(file))
        XCTAssertLessThan(tone.lowerBound, 0.2, "audio from before the outage")
        XCTAssertGreaterThan(tone.upperBound, file.duration - 0.3, "and from after it")
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
    }

    // 3b. A server that stays away past the limit: the memo is finished unsuccessfully, intact.
    func testAServerThatStaysAwayFinishesTheMemoWithItsAudioIntact() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        try fixture.session.writeSettings(#"{"reconnectTimeout": 2}"#)
        let patient = try fixture.launchDaemon()
        defer { _ = patient.stop() }

        let memo = try recorder.recordWithOptions(["format": .string("flac")])
        try recorder.waitUntilRecorded(1)
        let beforeKill = try recorder.markSignals()
        fixture.audioServer.kill()
        try recorder.waitForSignal(RecorderMember.interruption, timeout: .seconds(2), after: beforeKill) {
            $0.arguments.first?.string == "began"
        }
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, false)
        XCTAssertEqual(try recorder.state, "idle")
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, 1, accuracy: 0.15)
        XCTAssertEqual(file.readFloats().count, file.frameCount, "finalized: the length is exact")
        XCTAssertTrue(patient.isRunning, "the daemon never exits because the server went away")
    }

    // 7. No server at start: the daemon serves, Record explains, and works once a server is up.
    func testTheDaemonStartsWithoutAServerAndRecordsOnceOneAppears() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        fixture.audioServer.kill()
        let early = try fixture.launchDaemon()
        defer { _ = early.stop() }
        XCTAssertEqual(try recorder.state, "idle")
        let refused = try XCTUnwrap(recorder.callFailing(RecorderMember.record))
        XCTAssertEqual(refused.name.rawValue, ContractError.audioServer.name.rawValue)
        XCTAssertTrue(refused.message.contains("Is PulseAudio or pipewire-pulse running?"), refused.message)
        XCTAssertEqual(recorder.memoFiles, [])

        try fixture.audioServer.restart()
        try fixture.stimulus.start()
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(0.5)])
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        XCTAssertEqual(try SoundFileReader(path: recorder.file(of: memo).path).duration, 0.5, accuracy: 0.01)
    }
}
