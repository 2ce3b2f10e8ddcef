import Testing
import VoiceMemoCore

/// The capture policy, fed fragments by hand: no thread, no file, no clock.
@Suite("Capture policy")
struct CapturePolicyTests {
    /// 48 kHz mono 16-bit: 960 frames a fragment, five fragments a metering window.
    static let fragment = 960

    /// The sums of one fragment whose every sample is `amplitude` (of full scale): its RMS
    /// and peak are both `amplitude`.
    static func sums(amplitude: Double, frames: Int = fragment, channels: Int = 1) -> SampleSums {
        let samples = [Int16](repeating: Int16(amplitude * 32767), count: frames * channels)
        return samples.withUnsafeBytes { SampleSums(of: $0, frameCount: frames, channels: channels, type: .int16) }
    }

    static let loud = CapturedFragment(sums(amplitude: 0.5))  // −6 dBFS
    static let quiet = CapturedFragment(sums(amplitude: 0))

    static func request(_ options: [String: OptionValue] = [:]) throws -> RecordingRequest {
        try RecordingRequest(defaults: RecorderDefaults(), options: options, now: 0)
    }

    static let recording = CaptureRequests(isFileAttached: true)

    /// Reads `count` fragments of `sums` under `requests`, returning every action in order.
    static func feed(
        _ policy: inout CapturePolicy, _ count: Int, _ fragment: CapturedFragment = loud,
        _ requests: CaptureRequests = recording
    ) -> [CaptureAction] {
        (0..<count).flatMap { _ in
            policy.beforeRead(requests) + policy.fragmentRead(fragment, requests, endedStall: false)
        }
    }

    static func writtenFrames(_ actions: [CaptureAction]) -> Int {
        actions.reduce(0) { total, action in
            if case .write(let frames) = action { total + frames } else { total }
        }
    }

    static func endings(_ actions: [CaptureAction]) -> [CaptureEnding] {
        actions.compactMap { if case .end(let ending) = $0 { ending } else { nil } }
    }

    /// The actions but the level reports, for tests about writing.
    static func withoutLevels(_ actions: [CaptureAction]) -> [CaptureAction] {
        actions.filter { if case .reportLevels = $0 { false } else { true } }
    }

    static func levelReports(_ actions: [CaptureAction]) -> [(Levels, Double)] {
        actions.compactMap { if case .reportLevels(let levels, _, let time) = $0 { (levels, time) } else { nil } }
    }

    static func inputLevelReports(_ actions: [CaptureAction]) -> [[Levels]] {
        actions.compactMap { if case .reportLevels(_, let inputs, _) = $0 { inputs } else { nil } }
    }

    // MARK: Writing and metering

    @Test func eachFragmentIsHeldThenWrittenAndTheFirstSaysAudioFlows() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        #expect(policy.beforeRead(Self.recording) == [])
        #expect(
            policy.fragmentRead(Self.loud, Self.recording, endedStall: false) == [
                .reportAudioFlowing, .hold, .write(frames: 960),
            ])
        #expect(policy.fragmentRead(Self.loud, Self.recording, endedStall: false) == [.hold, .write(frames: 960)])
        #expect(policy.recordedFrames == 1920 && policy.heldCount == 0)
    }

    @Test func levelsAreReportedForEveryWindowOfFiveFragmentsWithTheMemosTime() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        let reports = Self.levelReports(Self.feed(&policy, 10, CapturedFragment(Self.sums(amplitude: 0.25))))
        #expect(reports.map(\.1) == [0.1, 0.2])
        let levels = try #require(reports.first?.0)
        #expect(abs(levels.average[0] - Levels.decibels(amplitude: 0.25)) < 0.01)
        #expect(abs(levels.peak[0] - Levels.decibels(amplitude: 0.25)) < 0.01)
    }

    @Test func theFileIsSyncedEverySecondAndWhenSomeoneAsks() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        let second = Self.feed(&policy, 50)
        #expect(second.filter { $0 == .synchronize }.count == 1)
        #expect(Self.withoutLevels(second).last == .synchronize, "after the 48,000th frame")
        var asking = Self.recording
        asking.isSynchronizationRequested = true
        #expect(
            policy.fragmentRead(Self.loud, asking, endedStall: false) == [.hold, .write(frames: 960), .synchronize])
    }

    // MARK: Endings

    @Test func aDurationEndsTheMemoAtExactlyItsFrameCount() throws {
        var policy = CapturePolicy(request: try Self.request(["duration": .double(0.05)]), waitsForSound: false)
        let actions = Self.feed(&policy, 3)
        #expect(Self.writtenFrames(actions) == 2400)
        #expect(actions.suffix(2) == [.write(frames: 480), .end(.durationReached)])
    }

    @Test func silenceEndsTheMemoAfterItsLimitCountedInWindows() throws {
        let options: [String: OptionValue] = ["stop-after-silence": .double(0.3), "silence-threshold": .double(-50)]
        var policy = CapturePolicy(request: try Self.request(options), waitsForSound: false)
        #expect(Self.endings(Self.feed(&policy, 20)).isEmpty, "sound never ends it")
        #expect(Self.endings(Self.feed(&policy, 14, Self.quiet)).isEmpty, "2.8 windows of silence")
        let last = Self.feed(&policy, 1, Self.quiet)
        #expect(Self.endings(last) == [.silenceReached])
        #expect(policy.recordedFrames == 35 * 960, "the silence is in the memo")
    }

    @Test func aStopKeepsTheFragmentInFlightAndEnds() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        _ = Self.feed(&policy, 3)
        var stopping = Self.recording
        stopping.request(.stop)
        // The read that completes after the request holds audio from before it: kept.
        #expect(policy.fragmentRead(Self.loud, stopping, endedStall: false) == [.hold, .write(frames: 960)])
        #expect(policy.beforeRead(stopping) == [.end(.stopped)])
    }

    @Test func aStopBeforeAnythingWasWrittenWaitsForOneFragment() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        var stopping = Self.recording
        stopping.request(.stop)
        #expect(policy.beforeRead(stopping) == [], "read one fragment first")
        _ = policy.fragmentRead(Self.loud, stopping, endedStall: false)
        #expect(policy.beforeRead(stopping) == [.end(.stopped)])
        // Paused, or with no file, there is nothing to wait for.
        var fresh = CapturePolicy(request: try Self.request(), waitsForSound: false)
        stopping.request(.keepingHeldAudio)
        #expect(fresh.beforeRead(stopping) == [.end(.stopped)])
    }

    @Test func aWriteOfTheHeldAudioEndsBeforeAReopenOrAGiveUp() throws {
        let request = try Self.request(["source": .string("mic")])
        for (asked, last) in [
            (CaptureRequests.Ending.reopen, CaptureAction.reopen),
            (.giveUp, .end(.captureFailed(CapturePolicy.gaveUp))),
        ] {
            var policy = CapturePolicy(request: request, waitsForSound: false)
            _ = Self.feed(&policy, 7)
            var requests = Self.recording
            requests.request(asked)
            #expect(
                Self.withoutLevels(policy.beforeRead(requests)) == Array(repeating: .write(frames: 960), count: 5) + [
                    last
                ])
        }
    }

    @Test func whenStopAndReopenArriveTogetherTheStopWins() throws {
        for order in [[CaptureRequests.Ending.stop, .reopen], [.reopen, .stop]] {
            var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
            _ = Self.feed(&policy, 1)
            var requests = Self.recording
            for ending in order { requests.request(ending) }
            #expect(policy.beforeRead(requests) == [.end(.stopped)], "asked in the order \(order)")
        }
    }

    @Test func endingsRankGiveUpBelowReopenBelowStop() {
        #expect(CaptureRequests.Ending.giveUp < .reopen && CaptureRequests.Ending.reopen < .stop)
        #expect(CaptureRequests.Ending.stop.isFinal && CaptureRequests.Ending.giveUp.isFinal)
        #expect(!CaptureRequests.Ending.reopen.isFinal)
    }

    @Test func aReopenComesBeforeAGiveUpWhichFollowsOnTheNewStream() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        _ = Self.feed(&policy, 1)
        var requests = Self.recording
        requests.request(.giveUp)
        requests.request(.reopen)
        #expect(policy.beforeRead(requests) == [.reopen])
        requests.reopened()
        #expect(requests.endings == [.giveUp] && requests.isEnding)
        #expect(policy.beforeRead(requests) == [.end(.captureFailed(CapturePolicy.gaveUp))])
    }

    @Test func aStopThatWaitsForTheFirstFragmentLetsAReopenGoFirst() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        var requests = Self.recording
        requests.request(.stop)
        requests.request(.reopen)
        #expect(policy.beforeRead(requests) == [.reopen], "no fragment yet: the stop waits, the reopen need not")
        requests.reopened()
        #expect(policy.beforeRead(requests) == [])
        _ = policy.fragmentRead(Self.loud, requests, endedStall: false)
        #expect(policy.beforeRead(requests) == [.end(.stopped)])
    }

    @Test func aReopenIsNotAnEndingOfTheRecording() {
        var requests = Self.recording
        requests.request(.reopen)
        #expect(!requests.isEnding)
        requests.reopened()
        #expect(requests.endings.isEmpty)
    }

    @Test func aFailedReadWritesWhatIsHeldThenDeclaresTheStreamLost() throws {
        var policy = CapturePolicy(request: try Self.request(["source": .string("mic")]), waitsForSound: false)
        _ = Self.feed(&policy, 2)
        let error = RecorderError.audioServer("Connection terminated")
        #expect(
            policy.readFailed(error, Self.recording) == [.write(frames: 960), .write(frames: 960), .declareLost(error)])
    }

    // MARK: Holdback

    @Test func aPinnedRecordingHoldsItsNewestTenthOfASecondBack() throws {
        var policy = CapturePolicy(request: try Self.request(["source": .string("mic")]), waitsForSound: false)
        #expect(Self.writtenFrames(Self.feed(&policy, 5)) == 0)
        #expect(policy.heldCount == 5)
        #expect(Self.feed(&policy, 1) == [.hold, .write(frames: 960)])
        #expect(policy.heldCount == 5)
    }

    @Test func aPauseWritesWhatWasHeldUnlessALostInputDropsIt() throws {
        let request = try Self.request(["source": .string("mic")])
        var pausing = Self.recording
        pausing.request(.keepingHeldAudio)
        var keeping = CapturePolicy(request: request, waitsForSound: false)
        _ = Self.feed(&keeping, 6)
        #expect(
            Self.withoutLevels(keeping.fragmentRead(Self.loud, pausing, endedStall: false))
                == Array(repeating: .write(frames: 960), count: 5) + [.synchronize])
        var dropping = CapturePolicy(request: request, waitsForSound: false)
        _ = Self.feed(&dropping, 6)
        pausing.request(.droppingHeldAudio)
        #expect(dropping.fragmentRead(Self.loud, pausing, endedStall: false) == [.drop(count: 5), .synchronize])
        #expect(dropping.recordedFrames == 960)
    }

    @Test func aDropAskedForInAPauseStaysUntilItEnds() {
        var requests = Self.recording
        requests.request(.keepingHeldAudio)
        #expect(requests.pause == .keepingHeldAudio)
        requests.request(.droppingHeldAudio)
        requests.request(.keepingHeldAudio)
        #expect(requests.pause == .droppingHeldAudio, "a later pause that keeps does not undo the drop")
        requests.pause = nil
        requests.request(.keepingHeldAudio)
        #expect(requests.pause == .keepingHeldAudio, "a new pause starts afresh")
    }

    @Test func whilePausedWhatIsReadIsDroppedAndTheFileSyncedOnce() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        _ = Self.feed(&policy, 3)
        var paused = Self.recording
        paused.request(.keepingHeldAudio)
        #expect(Self.feed(&policy, 4, Self.loud, paused) == [.synchronize])
        #expect(policy.recordedFrames == 3 * 960)
    }

    @Test func aPauseStartsANewMeteringWindow() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        _ = Self.feed(&policy, 3)
        var paused = Self.recording
        paused.request(.keepingHeldAudio)
        _ = Self.feed(&policy, 1, Self.loud, paused)
        let resumed = Self.feed(&policy, 5)
        #expect(Self.levelReports(resumed).map(\.1) == [0.16], "a full window after the pause, not 2 fragments in")
    }

    // MARK: Waiting for sound, pre-roll

    @Test func waitingForSoundKeepsOnlyTheNewestPreRoll() throws {
        let request = try Self.request(["start-on-sound": .boolean(true), "pre-roll": .double(0.1)])
        var policy = CapturePolicy(request: request, waitsForSound: true)
        let waiting = CaptureRequests(isFileAttached: false)
        let actions = Self.feed(&policy, 8, Self.quiet, waiting)
        #expect(policy.heldCount == 5, "0.1 s of pre-roll")
        #expect(actions.filter { $0 == .drop(count: 1) }.count == 3)
        #expect(Self.writtenFrames(actions) == 0)
    }

    @Test func theMemoBeginsWithThePreRollAndThePreRollIsNotSilence() throws {
        let options: [String: OptionValue] = [
            "start-on-sound": .boolean(true), "pre-roll": .double(0.5), "stop-after-silence": .double(0.2),
        ]
        var policy = CapturePolicy(request: try Self.request(options), waitsForSound: true)
        let waiting = CaptureRequests(isFileAttached: false)
        _ = Self.feed(&policy, 40, Self.quiet, waiting)
        #expect(policy.fragmentRead(Self.loud, waiting, endedStall: false) == [.hold, .reportSoundStarted])
        #expect(Self.feed(&policy, 2, Self.loud, waiting).filter { $0 == .hold }.count == 2, "kept for the file")
        // The file arrives: 25 fragments of pre-roll and 3 of sound go in, oldest first.
        let attached = Self.feed(&policy, 1)
        #expect(Self.writtenFrames(attached) == (25 + 4) * 960)
        #expect(Self.endings(attached).isEmpty, "0.5 s of quiet pre-roll is longer than the silence limit")
        // The window the sound ended in is not silent; two silent windows after it are.
        #expect(Self.endings(Self.feed(&policy, 10, Self.quiet)).isEmpty)
        #expect(Self.endings(Self.feed(&policy, 1, Self.quiet)) == [.silenceReached])
    }

    @Test func aFileLateBeyondAllReasonCostsTheOldestPreRoll() throws {
        let request = try Self.request(["start-on-sound": .boolean(true), "pre-roll": .double(0.1)])
        var policy = CapturePolicy(request: request, waitsForSound: true)
        let waiting = CaptureRequests(isFileAttached: false)
        _ = Self.feed(&policy, 1, Self.loud, waiting)
        #expect(policy.heldCapacity == 5 + 50 + 1)
        let late = Self.feed(&policy, 60, Self.loud, waiting)
        #expect(late.filter { $0 == .drop(count: 1) }.count == 6)
        #expect(policy.heldCount == policy.heldCapacity - 1, "room for the next read")
    }

    @Test func stoppingWhileWaitingDropsThePreRoll() throws {
        var policy = CapturePolicy(request: try Self.request(["start-on-sound": .boolean(true)]), waitsForSound: true)
        var waiting = CaptureRequests(isFileAttached: false)
        _ = Self.feed(&policy, 3, Self.quiet, waiting)
        waiting.request(.stop)
        #expect(policy.beforeRead(waiting) == [.drop(count: 3), .end(.stopped)])
    }

    // MARK: Stall, grace, reconnect

    @Test func aReadIsOnTimeThenLateThenStalled() {
        let timeouts = CaptureTimeouts.standard
        #expect(timeouts.judge(readWaiting: 0.02) == .onTime)
        #expect(timeouts.judge(readWaiting: 0.5) == .late)
        #expect(timeouts.judge(readWaiting: 2) == .late, "a sine source's 2 s block is late, not lost")
        #expect(timeouts.judge(readWaiting: 6.01) == .stalled)
        #expect(timeouts.stallLoss == .deviceLost("no audio has come from the input for 6.0 s"))
    }

    @Test func aReadThatEndsAStallSaysTheInputIsBack() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        _ = Self.feed(&policy, 1)
        #expect(
            policy.fragmentRead(Self.loud, Self.recording, endedStall: true) == [
                .reportInputBack, .hold, .write(frames: 960),
            ])
    }

    @Test func reconnectingWaitsLongerEachTimeUpToASecond() {
        var backoff = ReconnectBackoff()
        #expect((0..<6).map { _ in backoff.nextPause() } == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0])
    }

    // MARK: More than one input

    /// A call: the microphone and the system's audio, mixed into one memo.
    static func call(microphone: Double, system: Double) -> CapturedFragment {
        CapturedFragment(
            memo: sums(amplitude: (microphone + system) / 2),
            inputs: [sums(amplitude: microphone), sums(amplitude: system)])
    }

    @Test func soundOnEitherInputStartsTheMemo() throws {
        for fragment in [Self.call(microphone: 0.5, system: 0), Self.call(microphone: 0, system: 0.5)] {
            var policy = CapturePolicy(
                request: try Self.request(["start-on-sound": .boolean(true)]), waitsForSound: true)
            let waiting = CaptureRequests(isFileAttached: false)
            _ = Self.feed(&policy, 3, Self.call(microphone: 0, system: 0), waiting)
            #expect(policy.fragmentRead(fragment, waiting, endedStall: false) == [.hold, .reportSoundStarted])
        }
    }

    @Test func silenceEndsTheMemoOnlyWhenEveryInputIsSilent() throws {
        let options: [String: OptionValue] = ["stop-after-silence": .double(0.1), "silence-threshold": .double(-40)]
        var policy = CapturePolicy(request: try Self.request(options), waitsForSound: false)
        // The far side speaks at −34 dBFS: the mix (−40) is at the threshold, the microphone silent.
        #expect(Self.endings(Self.feed(&policy, 20, Self.call(microphone: 0, system: 0.02))).isEmpty)
        #expect(Self.endings(Self.feed(&policy, 5, Self.call(microphone: 0, system: 0))) == [.silenceReached])
    }

    @Test func theMeterShowsTheMemosMix() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        let reports = Self.levelReports(Self.feed(&policy, 5, Self.call(microphone: 0.5, system: 0)))
        let levels = try #require(reports.first?.0)
        #expect(abs(levels.peak[0] - Levels.decibels(amplitude: 0.25)) < 0.01, "the memo's own level")
    }

    @Test func eachInputsLevelsAreReportedWithTheMemos() throws {
        var policy = CapturePolicy(request: try Self.request(), waitsForSound: false)
        let reports = Self.inputLevelReports(Self.feed(&policy, 5, Self.call(microphone: 0.5, system: 0.125)))
        let inputs = try #require(reports.first)
        #expect(inputs.count == 2, "the microphone's, then the system audio's")
        #expect(abs(inputs[0].peak[0] - Levels.decibels(amplitude: 0.5)) < 0.01)
        #expect(abs(inputs[1].peak[0] - Levels.decibels(amplitude: 0.125)) < 0.01)
        #expect(abs(inputs[1].average[0] - Levels.decibels(amplitude: 0.125)) < 0.01)

        var single = CapturePolicy(request: try Self.request(), waitsForSound: false)
        let one = Self.inputLevelReports(Self.feed(&single, 5, CapturedFragment(Self.sums(amplitude: 0.5))))
        #expect(one.first?.count == 1, "a single input is the memo's one input")
    }

    @Test func aNewStreamForgetsWhatAnAbandonedOneHeld() throws {
        var policy = CapturePolicy(request: try Self.request(["source": .string("mic")]), waitsForSound: false)
        _ = Self.feed(&policy, 7)
        policy.forgetHeld()
        #expect(policy.heldCount == 0 && policy.recordedFrames == 2 * 960)
        var stopping = Self.recording
        stopping.request(.stop)
        #expect(policy.beforeRead(stopping) == [.end(.stopped)], "nothing held is written")
    }
}
