import Dispatch
import FoundationEssentials
import IntegrationSupport
import Synchronization
import Testing
import VoiceMemoCore
import VoiceMemoRuntime

/// Drives a `Recorder` on its own queue with fake audio and a real temporary directory.
final class RecorderHarness: Sendable {
    let queue = DispatchQueue(label: "recorder-test")
    let directory = TemporaryDirectory()
    let backend: FakeBackend
    let observer = RecordingObserver()
    let recorder: Recorder

    /// Timeouts that declare a hung read stalled quickly, for the tests of what follows a stall.
    static let quickStall = CaptureTimeouts(stall: 0.5, readGrace: 0.1)
    /// The standard grace with a stall an hour away, for the tests of a read that is late but
    /// not lost. A test's task can wait a minute for a thread while the suites beside it
    /// block theirs (the 4.3 GB WAV test keeps the disk busy; it ran beside these and
    /// starved them past a 60 s stall), so "never" is an hour, not a minute.
    static let lateNeverStalled = CaptureTimeouts(stall: 3600, readGrace: CaptureTimeouts.standard.readGrace)

    init(backend: FakeBackend = FakeBackend(), timeouts: CaptureTimeouts = .standard) {
        self.backend = backend
        recorder = Recorder(
            directory: MemoDirectory(path: directory.path + "/memos"), defaults: RecorderDefaults(),
            settings: SettingsStore(directory: directory.path + "/config"), backend: backend, queue: queue,
            captureTimeouts: timeouts)
        observer.listen(to: recorder)
    }

    /// Runs `body` on the recorder's queue and waits for the completion it calls.
    func call<Value: Sendable>(
        _ body: @escaping @Sendable (Recorder, @escaping (Result<Value, RecorderError>) -> Void) -> Void
    ) async -> Result<Value, RecorderError> {
        await withCheckedContinuation { continuation in
            queue.async { body(self.recorder) { continuation.resume(returning: $0) } }
        }
    }

    /// Runs `body` on the recorder's queue and returns its value.
    func sync<Value>(_ body: (Recorder) throws(RecorderError) -> Value) throws(RecorderError) -> Value {
        let result = queue.sync { Result { () throws(RecorderError) -> Value in try body(recorder) } }
        return try result.get()
    }

    func record(_ options: [String: OptionValue]? = nil) async -> Result<MemoReference, RecorderError> {
        await call { recorder, done in
            if let options {
                recorder.record(options: options, completion: done)
            } else {
                recorder.record(completion: done)
            }
        }
    }

    func stop() async -> Result<MemoReference, RecorderError> { await call { $0.stop(completion: $1) } }

    /// Waits until the fake input has delivered `count` more fragments than now, then until
    /// the recorder's queue has run everything they sent it. The capture thread judges a
    /// fragment and carries the answer out before it begins the next read, so whatever
    /// should (or should not) have happened to the fragments before has happened: a test
    /// that something stays as it is waits on the input, not on the clock.
    func waitForReads(_ count: Int, timeout: Duration = .seconds(2)) throws {
        let perRead = CapturePipeline.framesPerRead(sampleRate: RecorderDefaults().sampleRate)
        let target = backend.framesRead.withLock { $0 } + (count + 1) * perRead
        try waitUntil(timeout: timeout) { self.backend.framesRead.withLock { $0 } >= target }
        queue.sync {}
    }

    /// The memo files, without the recorder's hidden journal.
    var memoFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/memos")) ?? []).filter {
            !$0.hasPrefix(".")
        }
    }
}

@Suite("Recorder state machine")
struct RecorderTests {
    @Test func recordStopProducesOneFinishedMemo() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record().get()
        #expect(try harness.sync { $0.state } == .recording)
        #expect(try harness.sync { $0.currentMemo } == memo)
        #expect(try harness.sync { $0.activeSource } == "fake_mic")
        try waitUntil { (harness.backend.sink(for: memo)?.frames ?? 0) > 0 }
        let stopped = try await harness.stop().get()
        #expect(stopped == memo)
        #expect(harness.backend.sink(for: memo)?.isClosed == true)
        #expect((harness.backend.sink(for: memo)?.frames ?? 0) > 0)
        try harness.sync { recorder throws(RecorderError) in
            #expect(recorder.state == .idle)
            #expect(recorder.currentMemo == nil)
        }
        #expect(harness.observer.states == [.recording, .idle])
        #expect(harness.observer.finished.map(\.1) == [true])
        #expect(harness.memoFiles.count == 1)
    }

    @Test func pauseStopsWritingAndResumeAppends() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record().get()
        try waitUntil { harness.backend.sink(for: memo)!.frames > 0 }
        try harness.sync { recorder throws(RecorderError) in try recorder.pause() }
        try harness.waitForReads(1)  // the read in flight as the pause came
        let pausedFrames = harness.backend.sink(for: memo)!.frames
        try harness.waitForReads(3)
        #expect(harness.backend.sink(for: memo)!.frames == pausedFrames)
        // Record while paused resumes, as AVAudioRecorder.record() does.
        #expect(try await harness.record().get() == memo)
        try waitUntil { harness.backend.sink(for: memo)!.frames > pausedFrames }
        _ = try await harness.stop().get()
        #expect(harness.observer.states == [.recording, .paused, .recording, .idle])
    }

    /// The answers to each command in each state are the machine's (RecorderCommandTableTests);
    /// here, that the throwing `pause()` and `resume()` hand them back at once.
    @Test func pauseAndResumeThrowTheRulesRefusalAtOnce() async throws {
        let harness = RecorderHarness()
        #expect(throws: RecorderError.notRecording("nothing is being recorded; call Record first")) {
            try harness.sync { recorder throws(RecorderError) in try recorder.pause() }
        }
        #expect(throws: RecorderError.notRecording("nothing is paused; call Record to start a memo")) {
            try harness.sync { recorder throws(RecorderError) in try recorder.resume() }
        }
        _ = try await harness.record().get()
        try harness.sync { recorder throws(RecorderError) in
            try recorder.pause()
            #expect(recorder.state == .paused)
            try recorder.resume()
            #expect(recorder.state == .recording)
        }
        _ = try await harness.stop().get()
    }

    @Test func durationStopsAtExactlyTheFrameCount() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record(["duration": .double(0.05), "sample-rate": .uint32(8000)]).get()
        try waitUntil { harness.observer.finished.count == 1 }
        #expect(harness.backend.sink(for: memo)!.frames == 400)
        #expect(harness.observer.finished.first?.1 == true)
        #expect(try harness.sync { $0.state } == .idle)
    }

    @Test func cancelLeavesNothingOnDisk() async throws {
        let harness = RecorderHarness()
        _ = try await harness.record().get()
        #expect(harness.memoFiles.count == 1)
        _ = try await harness.call { $0.cancel(completion: $1) }.get()
        #expect(harness.memoFiles.isEmpty)
        #expect(harness.observer.finished.isEmpty)
    }

    @Test func scheduledRecordingWaitsForItsTime() async throws {
        // Asserted through what the recorder did and when, not through polls that a busy
        // test runner may deliver late.
        let harness = RecorderHarness()
        let startAt = Int64(Date().timeIntervalSince1970.rounded(.up)) + 2
        let memo = try await harness.record(["start-at": .int64(startAt)]).get()
        try waitUntil(timeout: .seconds(6)) { (try? harness.sync { $0.state }) == .recording }
        #expect(harness.observer.states.prefix(2) == [.scheduled, .recording])
        let started = try #require(harness.observer.stateTimes.last)
        #expect(started >= Double(startAt) - 0.05, "recording starts at start-at, not before")
        let created = try #require(harness.backend.creationTimes.withLock { $0[memo.path] })
        #expect(created >= Double(startAt) - 0.05, "the file is created when recording starts")
        #expect(try harness.sync { $0.currentMemo } == memo)
        _ = try await harness.stop().get()
        #expect(harness.memoFiles.count == 1)
    }

    /// What the speech worker is suspended by while a recording starts: a start call until it
    /// is answered, and every capture, a call's or a start time's, from its opening to its
    /// first audio; one that cannot open ends too.
    @Test func eachStartIsUnderwayUntilItIsAnsweredAndHasItsFirstAudio() async throws {
        let harness = RecorderHarness()
        let starts = Mutex<[Bool]>([])
        harness.queue.sync {
            harness.recorder.startsUnderway.observe { isStarting in starts.withLock { $0.append(isStarting) } }
        }
        _ = try await harness.record().get()
        #expect(starts.withLock { $0 } == [true, false], "over when Record is answered, on its first audio")
        _ = try await harness.stop().get()
        #expect(starts.withLock { $0 } == [true, false], "a stop is no start")
        let startAt = Int64(Date().timeIntervalSince1970.rounded(.up)) + 1
        _ = try await harness.record(["start-at": .int64(startAt)]).get()
        #expect(starts.withLock { $0 } == [true, false, true, false], "the call, answered before its start time")
        try waitUntil(timeout: .seconds(5)) { starts.withLock { $0 }.count == 6 }
        #expect(starts.withLock { $0 } == [true, false, true, false, true, false], "the capture at its time")
        _ = try await harness.stop().get()

        let refused = RecorderHarness(backend: FakeBackend(refuseCapture: true))
        let refusedStarts = Mutex<[Bool]>([])
        refused.queue.sync {
            refused.recorder.startsUnderway.observe { isStarting in refusedStarts.withLock { $0.append(isStarting) } }
        }
        guard case .failure = await refused.record() else {
            Issue.record("Record succeeded without an audio server")
            return
        }
        #expect(refusedStarts.withLock { $0 } == [true, false])
    }

    @Test func stoppingAScheduledRecordingLeavesNoFile() async throws {
        let harness = RecorderHarness()
        // An hour away: the stop must come before the start however long the test waits.
        _ = try await harness.record(["start-at": .int64(Int64(Date().timeIntervalSince1970) + 3600)]).get()
        _ = try await harness.stop().get()
        #expect(try harness.sync { $0.state } == .idle)
        #expect(harness.memoFiles.isEmpty)
    }

    @Test func aRefusingAudioServerFailsRecordAndLeavesNoFile() async throws {
        let harness = RecorderHarness(backend: FakeBackend(refuseCapture: true))
        guard case .failure(.audioServer(let message)) = await harness.record() else {
            Issue.record("Record succeeded without an audio server")
            return
        }
        #expect(message.contains("Connection refused"))
        try waitUntil { (try? harness.sync { $0.state }) == .idle && harness.memoFiles.isEmpty }
        #expect(harness.observer.finished.isEmpty)
    }

    @Test func aWriteFailureReportsAndKeepsServing() async throws {
        let harness = RecorderHarness(backend: FakeBackend(failAfterFrames: 2000))
        _ = try await harness.record().get()
        try waitUntil { harness.observer.finished.count == 1 }
        #expect(harness.observer.finished.first?.1 == false)
        #expect(harness.observer.encodeErrors == ["No space left on device"])
        #expect(try harness.sync { $0.state } == .idle)
        #expect(harness.memoFiles.count == 1)
    }

    @Test func toggleAlternatesAndEveryMemoIsClosed() async throws {
        let harness = RecorderHarness()
        var states: [RecorderState] = []
        for _ in 0..<10 { states.append(try await harness.call { $0.toggle(completion: $1) }.get()) }
        #expect(states == Array(repeating: [RecorderState.recording, .idle], count: 5).flatMap { $0 })
        #expect(harness.memoFiles.count == 5)
        #expect(harness.backend.sinks.withLock { $0.values.allSatisfy(\.isClosed) })
    }

    @Test func aStopRightAfterTheStartStillKeepsAFragment() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.call { recorder, done in
            recorder.record { _ in }
            recorder.stop(completion: done)
        }.get()
        // At least the one fragment a stop waits for (more if the capture thread was quicker
        // than the queue), and whole fragments only.
        let fragment = CapturePipeline.framesPerRead(sampleRate: 48000)
        let frames = harness.backend.sink(for: memo)!.frames
        #expect(frames >= fragment && frames % fragment == 0)
        #expect(harness.observer.finished.map(\.1) == [true])
    }

    @Test func pauseAnswersOnceTheFileOnDiskHoldsEveryFrame() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record().get()
        let sink = harness.backend.sink(for: memo)!
        try waitUntil { sink.frames > 0 }
        try await harness.call { recorder, done in recorder.pause(completion: done) }.get()
        #expect(sink.syncedFrames == sink.frames, "synced after the last frame written")
        try harness.waitForReads(2)
        #expect(sink.syncedFrames == sink.frames, "and nothing written since")
        #expect(try harness.sync { $0.state } == .paused)
        let refused = await harness.call { recorder, done in
            recorder.cancel { _ in recorder.pause(completion: done) }
        }
        #expect(throws: RecorderError.self) { try refused.get() }
    }

    @Test func aMemoPausedBeforeItsFirstFragmentLeavesNoFile() async throws {
        // The first fragment takes 0.2 s to arrive, so the pause surely comes before it.
        let harness = RecorderHarness(backend: FakeBackend(hangAfterReads: 0, hangSeconds: 0.2))
        let memo = try await harness.call { recorder, done in
            recorder.record { _ in }
            try? recorder.pause()
            recorder.stop(completion: done)
        }.get()
        #expect(harness.memoFiles.isEmpty)
        #expect(harness.observer.finished.map(\.0) == [memo])
        #expect(harness.observer.finished.map(\.1) == [false])
    }

    @Test func levelsAreReportedOnlyWithMeteringEnabled() async throws {
        let harness = RecorderHarness()
        _ = try await harness.record().get()
        try harness.waitForReads(15)  // three metering windows
        #expect(harness.observer.measured.isEmpty)
        try harness.sync { recorder throws(RecorderError) in try recorder.updateDefaults { $0.isMeteringEnabled = true }
        }
        try waitUntil { harness.observer.measured.count >= 3 }
        let times = harness.observer.measured.map(\.1)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(try harness.sync { $0.levels }.peak[0] > -160)
        try harness.sync { recorder throws(RecorderError) in try recorder.pause() }
        #expect(try harness.sync { $0.levels } == .silence(channels: 1))
        _ = try await harness.stop().get()
    }

    @Test func watchedLevelsAreReportedWithoutTouchingTheSetting() async throws {
        let harness = RecorderHarness()
        // Watched before the recording opens: its pipeline meters from the start.
        try harness.sync { $0.setLevelsWatched(true) }
        _ = try await harness.record().get()
        try waitUntil { harness.observer.measured.count >= 3 }
        #expect(try harness.sync { $0.defaults.isMeteringEnabled } == false)

        try harness.sync { $0.setLevelsWatched(false) }
        try harness.waitForReads(1)  // a window measured before the change may still be on its way
        let afterUnwatching = try harness.sync { _ in harness.observer.measured.count }
        try harness.waitForReads(15)
        #expect(try harness.sync { _ in harness.observer.measured.count } == afterUnwatching)

        // Watching again mid-recording turns the reports back on.
        try harness.sync { $0.setLevelsWatched(true) }
        try waitUntil { harness.observer.measured.count >= afterUnwatching + 3 }
        _ = try await harness.stop().get()
    }

    @Test func silenceStopsTheRecordingAfterItsLimit() async throws {
        let harness = RecorderHarness(backend: FakeBackend(silentAfterReads: 10))
        let memo = try await harness.record(["stop-after-silence": .double(0.3), "sample-rate": .uint32(8000)]).get()
        try waitUntil(timeout: .seconds(3)) { harness.observer.finished.count == 1 }
        #expect(harness.observer.finished.first?.1 == true)
        let frames = harness.backend.sink(for: memo)!.frames
        // 10 reads of 160 frames of sound, then 0.3 s (2400 frames) of silence, to the window.
        #expect(frames >= 1600 + 2400 && frames <= 1600 + 2400 + 800)
    }

    @Test func aLostServerInterruptsAndTheSameMemoGoesOnWhenItReturns() async throws {
        let harness = RecorderHarness(backend: FakeBackend(loseServerAfterReads: 10, refusedReconnects: 2))
        let memo = try await harness.record().get()
        try waitUntil(timeout: .seconds(3)) { harness.observer.routes.count == 1 }
        #expect(harness.observer.interruptions.map(\.0) == [.serverLost, .serverLost])
        #expect(harness.observer.interruptions.map(\.1) == [true, false])
        #expect(harness.observer.routes.first?.0 == .serverRestarted)
        #expect(harness.observer.states == [.recording, .interrupted, .recording])
        let before = harness.backend.sink(for: memo)!.frames
        try waitUntil { harness.backend.sink(for: memo)!.frames > before }
        _ = try await harness.stop().get()
        #expect(harness.observer.finished.map(\.1) == [true])
        #expect(harness.memoFiles.count == 1, "one memo, before and after the outage")
    }

    @Test func aServerThatStaysAwayFinishesTheMemoUnsuccessfully() async throws {
        let harness = RecorderHarness(backend: FakeBackend(loseServerAfterReads: 10, refusedReconnects: .max))
        try harness.sync { recorder throws(RecorderError) in try recorder.updateDefaults { $0.reconnectTimeout = 0.3 } }
        let memo = try await harness.record().get()
        try waitUntil(timeout: .seconds(3)) { harness.observer.finished.count == 1 }
        #expect(harness.observer.finished.first?.1 == false)
        #expect(harness.backend.sink(for: memo)!.frames == 10 * CapturePipeline.framesPerRead(sampleRate: 48000))
        #expect(harness.backend.sink(for: memo)!.isClosed, "what was captured is kept, finalized")
        #expect(try harness.sync { $0.state } == .idle)
    }

    @Test func aReadThatHangsIsADeviceLossAndStopStillFinishesTheMemo() async throws {
        let harness = RecorderHarness(backend: FakeBackend(hangAfterReads: 5), timeouts: RecorderHarness.quickStall)
        let memo = try await harness.record().get()
        try waitUntil(timeout: .seconds(3)) { harness.observer.interruptions.count == 1 }
        #expect(harness.observer.interruptions.first! == (.deviceLost, true))
        #expect(try harness.sync { $0.state } == .interrupted)
        // A system going to sleep must not wait for the read either.
        let synced = Mutex(false)
        harness.queue.sync { harness.recorder.synchronizeOpenMemo { synced.withLock { $0 = true } } }
        try waitUntil(timeout: .seconds(1)) { synced.withLock { $0 } }
        // The read never returns; Stop must not wait for it.
        _ = try await harness.stop().get()
        #expect(harness.observer.finished.map(\.1) == [true])
        #expect(harness.backend.sink(for: memo)!.isClosed)
        #expect(harness.backend.sink(for: memo)!.frames == 5 * CapturePipeline.framesPerRead(sampleRate: 48000))
    }

    @Test func aHungReadThatReturnsEndsTheLoss() async throws {
        let harness = RecorderHarness(
            backend: FakeBackend(hangAfterReads: 5, hangSeconds: 1), timeouts: RecorderHarness.quickStall)
        let memo = try await harness.record().get()
        try waitUntil(timeout: .seconds(3)) { harness.observer.interruptions.count == 2 }
        #expect(harness.observer.interruptions.map(\.0) == [.deviceLost, .deviceLost])
        #expect(harness.observer.interruptions.map(\.1) == [true, false])
        #expect(harness.observer.routes.first?.0 == .newDeviceAvailable)
        #expect(try harness.sync { $0.state } == .recording)
        let frames = harness.backend.sink(for: memo)!.frames
        try waitUntil { harness.backend.sink(for: memo)!.frames > frames }
        _ = try await harness.stop().get()
    }

    @Test func aLateReadIsNotALossAndItsAudioFollowsInOrder() async throws {
        // A burst input: the sixth read waits 1.5 s, as module-sine-source's 2 s blocks do.
        let harness = RecorderHarness(backend: FakeBackend(hangAfterReads: 5, hangSeconds: 1.5))
        let memo = try await harness.record().get()
        let sink = harness.backend.sink(for: memo)!
        let perRead = CapturePipeline.framesPerRead(sampleRate: 48000)
        // Once the late read has returned, nothing it kept waiting was taken for a loss.
        try waitUntil(timeout: .seconds(5)) { sink.frames > 6 * perRead }
        #expect(try harness.sync { $0.state } == .recording, "late is not lost")
        _ = try await harness.stop().get()
        #expect(harness.observer.interruptions.isEmpty)
        #expect(harness.observer.routes.isEmpty, "the same stream throughout: no route change")
        #expect(harness.backend.opens.withLock { $0 } == 1, "never reopened")
        #expect(sink.frames == harness.backend.framesRead.withLock { $0 }, "every frame read is in the file")
        #expect(harness.observer.finished.map(\.1) == [true])
    }

    @Test func stopDuringALateReadIsAnsweredWithinTheGrace() async throws {
        let harness = RecorderHarness(
            backend: FakeBackend(hangAfterReads: 5), timeouts: RecorderHarness.lateNeverStalled)
        let memo = try await harness.record().get()
        let sink = harness.backend.sink(for: memo)!
        let perRead = CapturePipeline.framesPerRead(sampleRate: 48000)
        try waitUntil { harness.backend.isHanging.withLock { $0 } }  // the sixth read
        // Timed on the recorder's queue, where the call arrives and its answer leaves: a test
        // task may resume late on a loaded machine.
        let times = Mutex<(asked: ContinuousClock.Instant?, answered: ContinuousClock.Instant?)>((nil, nil))
        _ = try await harness.call { recorder, done in
            times.withLock { $0.asked = .now }
            recorder.stop { result in
                times.withLock { $0.answered = .now }
                done(result)
            }
        }.get()
        let (asked, answeredAt) = times.withLock { $0 }
        let answered = try #require(answeredAt) - #require(asked)
        #expect(answered < .seconds(1), "answered in \(answered)")
        #expect(
            answered >= .milliseconds(Int(CaptureTimeouts.standard.readGrace * 1000) - 20),
            "the late read had its grace")
        #expect(harness.observer.interruptions.isEmpty)
        #expect(harness.observer.finished.map(\.1) == [true])
        #expect(sink.isClosed)
        #expect(sink.frames == 5 * perRead, "everything delivered before the stop")
    }

    @Test func aSyncDuringALateReadDoesNotWaitForIt() async throws {
        let harness = RecorderHarness(
            backend: FakeBackend(hangAfterReads: 5), timeouts: RecorderHarness.lateNeverStalled)
        let memo = try await harness.record().get()
        let sink = harness.backend.sink(for: memo)!
        try waitUntil { harness.backend.isHanging.withLock { $0 } }  // the sixth read
        #expect(sink.frames == 5 * CapturePipeline.framesPerRead(sampleRate: 48000))
        let synced = Mutex(false)
        harness.queue.sync { harness.recorder.synchronizeOpenMemo { synced.withLock { $0 = true } } }
        try waitUntil(timeout: .seconds(1)) { synced.withLock { $0 } }
        #expect(sink.syncedFrames == sink.frames, "the file on disk holds every frame written")
        #expect(try harness.sync { $0.state } == .recording)
        _ = try await harness.stop().get()
    }

    /// A listener that answers a notification with a command (as the route monitor does
    /// for a muted input) acts only once every listener has heard that notification, so
    /// no listener hears of a change after the change that follows it.
    @Test func aCommandFromAListenerWaitsUntilEveryListenerHasHeard() async throws {
        let harness = RecorderHarness()
        let heard = Mutex<[String]>([])
        harness.queue.sync {
            let recorder = harness.recorder
            recorder.notifications.observe { [unowned recorder] notification in
                if case .changed(let properties) = notification, properties.contains(.state),
                    recorder.state == .recording
                {
                    recorder.beginInterruption(.inputMuted, pausesCapture: false)
                }
            }
            recorder.notifications.observe { [unowned recorder] notification in
                guard case .changed(let properties) = notification, properties.contains(.state) else { return }
                heard.withLock { $0.append(recorder.state.rawValue) }
            }
        }
        _ = try await harness.record().get()
        #expect(heard.withLock { $0 } == ["recording", "interrupted"])
        _ = try await harness.stop().get()
    }

    @Test func aLostInputStopsWritingUntilItReturnsOnANewStream() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record().get()
        let sink = harness.backend.sink(for: memo)!
        harness.queue.sync { harness.recorder.inputLost() }
        #expect(try harness.sync { $0.state } == .interrupted)
        try harness.waitForReads(1)
        let frames = sink.frames
        try harness.waitForReads(3)
        #expect(sink.frames == frames, "nothing stands in for the lost input")
        harness.queue.sync { harness.recorder.inputReturned() }
        try waitUntil(timeout: .seconds(3)) { harness.observer.interruptions.count == 2 }
        #expect(harness.backend.opens.withLock { $0 } == 2, "the stream was opened again")
        #expect(harness.observer.interruptions.map(\.1) == [true, false])
        #expect(try harness.sync { $0.state } == .recording)
        try waitUntil { sink.frames > frames }
        _ = try await harness.stop().get()
    }

    @Test func aPinnedRecordingHoldsItsNewestTenthOfASecondBackUntilStop() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record(["source": .string("fake_mic")]).get()
        let sink = harness.backend.sink(for: memo)!
        try waitUntil { sink.frames > 0 }
        let written = sink.frames  // before the reads are counted: they only grow
        #expect(written <= harness.backend.framesRead.withLock { $0 } - 4_800)
        _ = try await harness.stop().get()
        #expect(
            sink.frames == harness.backend.framesRead.withLock { $0 }, "stop writes everything read, held audio too")
    }

    @Test func aLostPinnedInputDropsTheAudioHeldBack() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record(["source": .string("fake_mic")]).get()
        let sink = harness.backend.sink(for: memo)!
        try waitUntil { sink.frames > 0 }
        let readBeforeLoss = harness.queue.sync {
            let frames = harness.backend.framesRead.withLock { $0 }
            harness.recorder.inputLost()
            return frames
        }
        try harness.waitForReads(1)
        let fragment = 960
        // The held tenth (five fragments) goes; a read in flight as the loss came may have
        // been held in time to go with it.
        #expect(sink.frames <= readBeforeLoss - 4_800 + fragment)
        #expect(sink.frames >= readBeforeLoss - 4_800 - fragment, "only what was held back is dropped")
        _ = try await harness.stop().get()
        #expect(sink.frames <= readBeforeLoss - 4_800 + fragment, "nothing is written while the input is lost")
    }

    @Test func aPausedPinnedRecordingKeepsWhatItHeld() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record(["source": .string("fake_mic")]).get()
        let sink = harness.backend.sink(for: memo)!
        try waitUntil { sink.frames > 0 }
        let readBeforePause = try harness.sync { recorder throws(RecorderError) in
            let frames = harness.backend.framesRead.withLock { $0 }
            try recorder.pause()
            return frames
        }
        try harness.waitForReads(1)
        // Only a read that completed as the pause came is dropped, as for any recording.
        #expect(sink.frames >= readBeforePause - 960, "the held audio predates the pause and is written")
        _ = try await harness.stop().get()
    }

    @Test func anInputThatReturnsWhileAReadHangsGetsAFreshStream() async throws {
        let harness = RecorderHarness(backend: FakeBackend(hangAfterReads: 5), timeouts: RecorderHarness.quickStall)
        let memo = try await harness.record().get()
        try waitUntil(timeout: .seconds(3)) { harness.observer.interruptions.count == 1 }
        harness.queue.sync { harness.recorder.inputReturned() }
        try waitUntil(timeout: .seconds(3)) { harness.observer.interruptions.count == 2 }
        let frames = harness.backend.sink(for: memo)!.frames
        try waitUntil { harness.backend.sink(for: memo)!.frames > frames }
        _ = try await harness.stop().get()
        #expect(harness.observer.finished.map(\.1) == [true])
    }

    @Test func overlappingInterruptionsPauseOnlyWhileOneThatPausesLasts() async throws {
        let harness = RecorderHarness()
        let memo = try await harness.record().get()
        let sink = harness.backend.sink(for: memo)!
        harness.queue.sync { harness.recorder.beginInterruption(.inputMuted, pausesCapture: false) }
        var frames = sink.frames
        try waitUntil { sink.frames > frames }  // a muted input is still recorded
        harness.queue.sync { harness.recorder.beginInterruption(.systemSleep, pausesCapture: true) }
        try harness.waitForReads(1)
        frames = sink.frames
        try harness.waitForReads(3)
        #expect(sink.frames == frames, "sleep stops writing")
        harness.queue.sync { harness.recorder.endInterruption(.systemSleep) }
        #expect(try harness.sync { $0.state } == .interrupted, "still muted")
        try waitUntil { sink.frames > frames }
        harness.queue.sync { harness.recorder.endInterruption(.inputMuted) }
        #expect(try harness.sync { $0.state } == .recording)
        #expect(harness.observer.interruptions.map(\.1) == [true, true, false, false])
        #expect(harness.observer.states == [.recording, .interrupted, .recording])
        _ = try await harness.stop().get()
    }

    @Test func defaultsPersistAndAnnounceOnlyRealChanges() throws {
        let harness = RecorderHarness()
        try harness.sync { recorder throws(RecorderError) in
            try recorder.updateDefaults { $0.format = .flac }
            try recorder.updateDefaults { $0.format = .flac }
        }
        let reloaded = SettingsStore(directory: harness.directory.path + "/config").load()
        #expect(reloaded.format == .flac)
        #expect(reloaded.sampleRate == 48000)
    }
}
