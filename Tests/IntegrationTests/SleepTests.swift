import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// System sleep and session switches, with logind played by dbusmock on a private system
/// bus (issue 6, acceptance 4).
final class SleepTests: RecorderTestCase {
    override class var launchesDaemon: Bool { false }

    private static let ourLock = LogindMock.Inhibitor(
        what: "sleep", who: "voicememo", why: "Finishing the open voice memo before sleep", mode: "delay")
    private static let sessionID = "c1"

    private var logind: LogindMock!
    private var sessionPath: ObjectPath!
    private var sleepDaemon: Daemon?

    override func setUpWithError() throws {
        try super.setUpWithError()
        logind = try LogindMock(session: fixture.session)
        sessionPath = try logind.addSession(id: Self.sessionID, isActive: true)
        sleepDaemon = try launchDaemon(environment: logind.environment)
    }

    override func tearDownWithError() throws {
        if let sleepDaemon {
            sleepDaemon.stop()
            if (testRun?.totalFailureCount ?? 0) > 0 { print("voicememod log for \(name):\n\(sleepDaemon.log)") }
        }
        sleepDaemon = nil
        logind?.stop()
        logind = nil
        try super.tearDownWithError()
    }

    /// Starts voicememod in our logind session, with `environment` on top.
    private func launchDaemon(environment: [String: String]) throws -> Daemon {
        try fixture.launchDaemon(environment: ["XDG_SESSION_ID": Self.sessionID].merging(environment) { $1 })
    }

    private func waitForLock(_ held: Bool, timeout: Duration = .seconds(5)) throws {
        try waitUntil(held ? "voicememod holds its sleep delay lock" : "no lock is held", timeout: timeout) {
            let locks = try logind.inhibitors()
            return held ? locks == [Self.ourLock] : locks.isEmpty
        }
    }

    private func waitForState(_ state: String) throws {
        try waitUntil("State is \(state)", timeout: .seconds(5)) { try recorder.state == state }
    }

    // 4. Recording holds the lock; sleep pauses, flushes and releases it; wake-up resumes and takes it back.
    func testSleepFlushesTheMemoReleasesTheLockAndWakeUpResumes() throws {
        // Idle, a lock could only be asked for once logind answers the daemon's Ping, just
        // before it looks up its session on the same connection: logind, handling calls in
        // order, has handled any such request once it has the lookup.
        try waitUntil("voicememod looks up its logind session", timeout: .seconds(5)) {
            try logind.callCount(of: "GetSession") > 0
        }
        XCTAssertEqual(try logind.inhibitors(), [], "no lock while idle")
        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        try waitForLock(true)
        try recorder.waitUntilRecorded(1.3)  // some audio, not a whole sync interval's multiple

        let beforeSleep = try recorder.markSignals()
        try logind.prepareForSleep(true)
        let began = try recorder.waitForSignal(RecorderMember.interruption, after: beforeSleep) {
            $0.arguments.first?.string == "began"
        }
        XCTAssertEqual(began.arguments.compactMap(\.string), ["began", "system-sleep"])
        XCTAssertEqual(began.arguments.last?.boolean, true)
        XCTAssertEqual(try recorder.state, "interrupted")
        try waitForLock(false)
        let recorded = try XCTUnwrap(recorder.property(RecorderMember.currentTime).double)
        let url = try recorder.file(of: memo)
        XCTAssertEqual(
            try SoundFileReader(path: url.path).duration, recorded, accuracy: 0.001, "flushed before the lock went")
        XCTAssertGreaterThan(recorded, 1.2)
        // Asleep: of the half second the microphone delivers meanwhile, nothing is written.
        let microphone = try SourceRecording(in: fixture.session)
        defer { microphone.stop() }
        try microphone.waitUntilDelivered(0.5)
        XCTAssertEqual(try XCTUnwrap(recorder.property(RecorderMember.currentTime).double), recorded, accuracy: 0.001)

        // The waits for the daemon's answers (and the mock logind's) lie inside the recording.
        var afterWake = RecordingSpan()
        let beforeWake = try recorder.markSignals()
        let ended = try afterWake.start {
            try logind.prepareForSleep(false)
            return try recorder.waitForSignal(RecorderMember.interruption, after: beforeWake) {
                $0.arguments.first?.string == "ended"
            }
        }
        XCTAssertEqual(ended.arguments.compactMap(\.string), ["ended", "system-sleep"])
        XCTAssertEqual(ended.arguments.last?.boolean, true)
        try waitForState("recording")
        try waitForLock(true)
        try recorder.waitUntilRecorded(recorded + 0.5)

        XCTAssertEqual(try afterWake.stop { try recorder.call(RecorderMember.stop) }.first?.objectPath, memo)
        try waitForLock(false)
        let file = try SoundFileReader(path: url.path)
        XCTAssertTrue(
            afterWake.admits(file.duration - recorded, tolerance: 0.1),
            "the memo goes on after wake-up, the sleep not recorded: \(recorded) s before, \(file.duration) s in all, after it \(afterWake)"
        )
        XCTAssertEqual(recorder.memoFiles.count, 1)
    }

    // With resumeAfterSleep off, the memo waits paused after wake-up.
    func testWithResumeAfterSleepOffTheMemoStaysPausedAfterWakeUp() throws {
        sleepDaemon?.stop()
        try fixture.session.writeSettings(#"{"resumeAfterSleep": false}"#)
        sleepDaemon = try launchDaemon(environment: logind.environment)

        _ = try recorder.recordWithOptions(["format": .string("wav")])
        try waitForLock(true)
        let beforeSleep = try recorder.markSignals()
        try logind.prepareForSleep(true)
        let began = try recorder.waitForSignal(RecorderMember.interruption, after: beforeSleep) {
            $0.arguments.first?.string == "began"
        }
        XCTAssertEqual(began.arguments.last?.boolean, false, "it will not resume by itself")
        try waitForLock(false)
        let beforeWake = try recorder.markSignals()
        try logind.prepareForSleep(false)
        let ended = try recorder.waitForSignal(RecorderMember.interruption, after: beforeWake) {
            $0.arguments.first?.string == "ended"
        }
        XCTAssertEqual(ended.arguments.compactMap(\.string), ["ended", "system-sleep"])
        try waitForState("paused")
        try waitForLock(true)  // the memo is still open
        try recorder.call(RecorderMember.resume)
        XCTAssertEqual(try recorder.state, "recording")
    }

    // Another session taking the seat pauses the memo; getting it back resumes it.
    func testAnInactiveSessionInterruptsTheRecordingUntilItIsActiveAgain() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        try waitForLock(true)
        try recorder.waitUntilRecorded(0.5)
        let beforeSwitch = try recorder.markSignals()
        try logind.setSession(sessionPath, isActive: false)
        let began = try recorder.waitForSignal(RecorderMember.interruption, after: beforeSwitch) {
            $0.arguments.first?.string == "began"
        }
        XCTAssertEqual(began.arguments.compactMap(\.string), ["began", "session-inactive"])
        XCTAssertEqual(began.arguments.last?.boolean, true)
        XCTAssertEqual(try recorder.state, "interrupted")
        let paused = try XCTUnwrap(recorder.property(RecorderMember.currentTime).double)
        // Of the half second the microphone delivers meanwhile, nothing is written.
        let microphone = try SourceRecording(in: fixture.session)
        defer { microphone.stop() }
        try microphone.waitUntilDelivered(0.5)
        XCTAssertEqual(
            try XCTUnwrap(recorder.property(RecorderMember.currentTime).double), paused, accuracy: 0.05,
            "nothing written")

        let beforeReturn = try recorder.markSignals()
        try logind.setSession(sessionPath, isActive: true)
        let ended = try recorder.waitForSignal(RecorderMember.interruption, after: beforeReturn) {
            $0.arguments.first?.string == "ended"
        }
        XCTAssertEqual(ended.arguments.compactMap(\.string), ["ended", "session-inactive"])
        try waitForState("recording")
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
    }

    // No system bus at all: one log line, and recording works as ever.
    func testWithoutASystemBusTheDaemonSaysSoOnceAndRecords() throws {
        sleepDaemon?.stop()
        let missing = fixture.session.runtimeDirectory.appendingPathComponent("no-such-bus").path
        sleepDaemon = try launchDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(missing)"])
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(0.5)])
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        let log = try XCTUnwrap(sleepDaemon).log
        XCTAssertEqual(log.components(separatedBy: "sleep and session handling is off").count - 1, 1, log)
        XCTAssertTrue(log.contains("no system bus"), log)
    }

    // A system bus without logind: the same, once logind fails to answer.
    func testWithoutLogindTheDaemonSaysSoOnceAndRecords() throws {
        sleepDaemon?.stop()
        logind.stopLogindOnly()
        sleepDaemon = try launchDaemon(environment: logind.environment)
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(0.5)])
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        let daemon = try XCTUnwrap(sleepDaemon)
        try waitUntil("the daemon reports logind missing", timeout: .seconds(6)) {
            daemon.log.contains("sleep and session handling is off")
        }
        XCTAssertEqual(daemon.log.components(separatedBy: "sleep and session handling is off").count - 1, 1, daemon.log)
    }
}
