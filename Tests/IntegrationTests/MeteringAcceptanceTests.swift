import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// Metering, the live views and silence detection against the real daemon and the known tone.
final class MeteringAcceptanceTests: RecorderTestCase {
    /// The stimulus's peak: a 0.5 full-scale sine.
    private let tonePeak = 20 * log10(0.5 * 32767 / 32768)

    private func levels() throws -> (average: [Double], peak: [Double]) {
        let reply = try recorder.call(RecorderMember.getLevels)
        return (reply[0].array?.compactMap(\.double) ?? [], reply[1].array?.compactMap(\.double) ?? [])
    }

    private func levelSignals() -> [BusSignal] { recorder.received.filter { $0.member == RecorderMember.levels.name } }

    // 1. Known amplitude in, known levels out, per channel; silence reads −160.
    func testGetLevelsReadsTheTonesPeakAndAverageOnBothChannels() throws {
        XCTAssertEqual(try levels().peak, [-160], "idle reads silence")
        _ = try recorder.recordWithOptions(["format": .string("wav"), "channels": .uint32(2)])
        try waitUntil("a metering window has passed", timeout: .seconds(2)) {
            try self.levels().peak.first ?? -160 > -160
        }
        let (average, peak) = try levels()
        XCTAssertEqual(peak.count, 2)
        XCTAssertEqual(average.count, 2)
        for channel in 0..<2 {
            XCTAssertEqual(peak[channel], tonePeak, accuracy: 0.2, "peak, channel \(channel)")
            XCTAssertEqual(average[channel], tonePeak - 3.01, accuracy: 0.2, "average, channel \(channel)")
        }
        fixture.stimulus.stop()
        try waitUntil("levels read digital silence", timeout: .seconds(2)) { try self.levels().peak == [-160, -160] }
        XCTAssertEqual(try levels().average, [-160, -160])
        try recorder.call(RecorderMember.stop)
    }

    // 2. About ten Levels a second while recording with metering on; none otherwise.
    func testLevelsSignalsFollowMeteringAndState() throws {
        _ = try recorder.recordWithOptions(["format": .string("wav")])
        try recorder.waitUntilRecorded(1)
        try recorder.call(RecorderMember.stop)
        try recorder.drainSignals()
        XCTAssertEqual(levelSignals().count, 0, "no Levels with metering off")

        try recorder.setProperty(RecorderMember.meteringEnabled, .boolean(true))
        try recorder.drainSignals()
        XCTAssertEqual(levelSignals().count, 0, "no Levels while idle")
        _ = try recorder.recordWithOptions(["format": .string("wav")])
        try recorder.waitUntilRecorded(3)
        try recorder.call(RecorderMember.pause)
        try recorder.drainSignals(timeout: .milliseconds(100))
        let beforePause = levelSignals().count
        try recorder.collectSignals(for: .seconds(1))  // a second of the pause, watched
        try recorder.drainSignals()
        XCTAssertEqual(levelSignals().count, beforePause, "no Levels while paused")
        try recorder.call(RecorderMember.stop)

        XCTAssertEqual(Double(beforePause), 30, accuracy: 4, "Levels over 3 s")
        let times = levelSignals().compactMap { $0.arguments[2].double }
        XCTAssertEqual(times.count, beforePause)
        XCTAssertTrue(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "current_time increases: \(times)")
        XCTAssertEqual(times.last ?? 0, 3, accuracy: 0.2)
        let peaks = levelSignals().compactMap { $0.arguments[1].array?.first?.double }
        XCTAssertTrue(peaks.dropFirst().allSatisfy { abs($0 - tonePeak) < 0.2 }, "every window saw the tone: \(peaks)")
    }

    // 4a. watch --json prints waybar's keys on Record, Pause and Stop.
    func testWatchPrintsWaybarJSONOnEveryStateChange() throws {
        let watch = try fixture.session.launch(BuildProducts.voicememo().path, ["watch", "--json"], logName: "watch")
        defer { _ = watch.terminate() }
        let log = fixture.session.logFile("watch")
        func lines() -> [[String: Any]] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        try waitUntil("watch prints the idle state", timeout: .seconds(5)) { lines().count >= 1 }
        _ = try recorder.recordWithOptions(["format": .string("wav")])
        try waitUntil("watch prints recording", timeout: .seconds(5)) {
            lines().contains { $0["class"] as? String == "recording" }
        }
        try recorder.waitUntilRecorded(1.2)
        try recorder.call(RecorderMember.pause)
        try waitUntil("watch prints paused", timeout: .seconds(5)) {
            lines().contains { $0["class"] as? String == "paused" }
        }
        try recorder.call(RecorderMember.stop)
        try waitUntil("watch prints idle again", timeout: .seconds(5)) {
            lines().last?["class"] as? String == "idle" && lines().count > 2
        }

        let all = lines()
        let raw = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(all.count, raw.count, "every line is JSON: \(raw)")
        for line in all {
            XCTAssertEqual(Set(line.keys), ["text", "tooltip", "class", "percentage", "alt"])
            XCTAssertNotNil(line["percentage"] as? Int)
        }
        var classes: [String] = []
        for line in all.compactMap({ $0["class"] as? String }) where classes.last != line { classes.append(line) }
        XCTAssertEqual(classes, ["idle", "recording", "paused", "idle"])
        let recordingTexts = all.filter { $0["class"] as? String == "recording" }.compactMap { $0["text"] as? String }
        XCTAssertTrue(recordingTexts.contains("● 00:00:01"), "the clock advances while recording: \(recordingTexts)")
        let recordingLines = all.filter { $0["class"] as? String == "recording" }.count
        XCTAssertLessThanOrEqual(recordingLines, 5, "at most two lines a second while recording")
    }

    // 4b. meter in a pseudo-terminal draws the bar and exits 0 on Ctrl-C.
    func testMeterDrawsInATerminalAndExitsCleanlyOnControlC() throws {
        _ = try recorder.recordWithOptions(["format": .string("wav"), "channels": .uint32(2)])
        // exec: Ctrl-C must reach the meter itself, not a shell that waits for it.
        let meterCommand = "exec \(try BuildProducts.voicememo().path) meter"
        let terminal = try fixture.session.launch(
            "script", ["--quiet", "--flush", "--return", "--command", meterCommand, "/dev/null"], logName: "meter",
            environment: ["TERM": "xterm-256color", "COLUMNS": "100"], standardInput: .pipe)
        let log = fixture.session.logFile("meter")
        func screen() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        try waitUntil("the meter draws lit segments", timeout: .seconds(5)) {
            screen().contains("\u{1B}[32m█") && screen().contains("R ")
        }
        XCTAssertEqual(
            try recorder.property(RecorderMember.meteringEnabled).boolean, false,
            "the meter watches; the setting stays off")
        let controlC: [UInt8] = [3]
        _ = controlC.withUnsafeBytes { write(try! XCTUnwrap(terminal.standardInput), $0.baseAddress, 1) }
        XCTAssertEqual(try terminal.waitForExit(timeout: .seconds(5)), .exited(0), screen())
        XCTAssertTrue(screen().contains("\u{1B}[?25h"), "the cursor is restored")
        XCTAssertEqual(try recorder.property(RecorderMember.meteringEnabled).boolean, false, "and after it quits")
        XCTAssertEqual(try recorder.state, "recording", "quitting the meter does not stop the recording")
        try recorder.call(RecorderMember.stop)
    }

    // 5. stop-after-silence finishes the memo after that much continuous silence.
    func testStopAfterSilenceFinishesTheMemo() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "stop-after-silence": .double(1)])
        try recorder.waitUntilRecorded(2)  // two seconds of tone, then the source turns silent
        fixture.stimulus.stop()
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        XCTAssertEqual(try recorder.state, "idle")
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, 3.0, accuracy: 0.2)
    }

    func testStatusFormatFillsTheTemplate() throws {
        _ = try recorder.recordWithOptions(["format": .string("wav")])
        let output = try fixture.voicememo(["status", "--format", "{state} {time} {input}"])
        XCTAssertEqual(output.stdout, "recording 00:00:00 \(AudioDevices.microphone)\n", "\(output)")
        try recorder.call(RecorderMember.stop)
    }
}
