import FoundationEssentials
import Testing
import VoiceMemoCore

/// Drives the rules as the runtime does: an effect with an outcome (naming a memo, creating
/// or removing a file) is answered with an event, applied after the effects of the event
/// that asked for it, with the outcome the test chose.
struct MachineDriver {
    var machine = RecorderMachine(defaults: RecorderDefaults())
    /// What naming a memo and creating a file give.
    var directory: Result<Void, RecorderError> = .success(())
    var fileCreation: Result<Void, RecorderError> = .success(())
    var fileRemoval: Result<Void, RecorderError> = .success(())
    private var memosNamed = 0

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Sends `event` and returns every effect it led to, outcomes fed back included.
    @discardableResult
    mutating func send(_ event: RecorderEvent) -> [RecorderEffect] {
        var events = [event]
        var done: [RecorderEffect] = []
        while !events.isEmpty {
            let effects = machine.handle(events.removeFirst())
            done += effects
            events.insert(contentsOf: effects.compactMap { outcome(of: $0) }, at: 0)
        }
        return done
    }

    private mutating func outcome(of effect: RecorderEffect) -> RecorderEvent? {
        switch effect {
        case .prepareMemo(let start, _, _):
            memosNamed += 1
            let memo = MemoReference(id: "memo\(memosNamed)", path: "/memos/memo\(memosNamed).wav")
            return .memoPrepared(start, directory.map { memo })
        case .createFile(let number, _, _, let purpose): return .fileCreated(number, purpose, fileCreation)
        case .removeFile(_, let number?): return .fileRemoved(number, fileRemoval)
        default: return nil
        }
    }

    var state: RecorderState { machine.state }
    var number: RecordingNumber { machine.open?.number ?? 0 }

    /// Starts a recording with `options` and lets audio flow from "mic"; returns its number.
    @discardableResult
    mutating func startRecording(_ options: [String: OptionValue] = [:], reply: ReplyID = 1) -> RecordingNumber {
        send(.recordWithOptions(reply, options, now: Self.now))
        let number = number
        send(.captureStarted(number, source: "mic"))
        send(.audioFlowing(number))
        return number
    }
}

extension [RecorderEffect] {
    /// The notifications among the effects.
    var notifications: [RecorderNotification] {
        compactMap { if case .notify(let notification) = $0 { notification } else { nil } }
    }

    /// The answers among the effects, by reply.
    var answers: [ReplyID: Result<RecorderReply, RecorderError>] {
        var answers: [ReplyID: Result<RecorderReply, RecorderError>] = [:]
        for case .answer(let id, let result) in self { answers[id] = result }
        return answers
    }

}

@Suite("Recorder rules: events in, effects out")
struct RecorderMachineTests {
    static let memo1 = MemoReference(id: "memo1", path: "/memos/memo1.wav")

    @Test func recordNamesAMemoCreatesItsFileThenStartsCapturing() {
        var driver = MachineDriver()
        let effects = driver.send(.record(7, now: MachineDriver.now))
        #expect(effects.count == 5)
        guard case .prepareMemo(let start, let date, let reserved) = effects[0] else {
            Issue.record("first effect: \(effects[0])")
            return
        }
        #expect(date == MachineDriver.now && reserved.isEmpty && start.reply == PendingReply(7, .memo))
        guard case .createFile(let number, Self.memo1, _, .start) = effects[1] else {
            Issue.record("second effect: \(effects[1])")
            return
        }
        #expect(effects[2] == .startCapture(number, RecordingRequest(defaults: RecorderDefaults()), isMetering: false))
        #expect(effects[3] == .stopPlayback, "recording over playback would capture it")
        #expect(effects[4] == .notify(.changed([.state, .currentMemo])))
        #expect(driver.state == .recording)
        #expect(effects.answers.isEmpty, "Record is answered once audio flows")

        let opened = driver.send(.captureStarted(number, source: "mic"))
        #expect(opened == [.notify(.changed([.activeSource]))], "the stream is open, but no audio has come yet")
        #expect(driver.machine.open?.activeSource == "mic")
        #expect(driver.send(.audioFlowing(number)) == [.answer(7, .success(.memo(Self.memo1)))])
        #expect(driver.send(.audioFlowing(number)).isEmpty, "answered once")
    }

    @Test func aStreamLostBeforeAudioFlowsAnswersRecordWithItsMemo() {
        var driver = MachineDriver()
        driver.send(.record(1, now: MachineDriver.now))
        let number = driver.number
        driver.send(.captureStarted(number, source: "mic"))
        let lost = driver.send(.captureLost(number, .deviceLost("the microphone is gone")))
        #expect(lost.answers[1] == .success(.memo(Self.memo1)), "not kept waiting through the reconnection")
        #expect(lost.notifications.contains(.interruption(.deviceLost, began: true, shouldResume: true)))
        #expect(driver.send(.audioFlowing(number)).answers.isEmpty)
    }

    @Test func aStopBeforeAudioFlowsAnswersBothCallersOnceTheFileIsClosed() {
        var driver = MachineDriver()
        driver.send(.record(1, now: MachineDriver.now))
        let number = driver.number
        driver.send(.captureStarted(number, source: "mic"))
        #expect(driver.send(.stop(2)).answers.isEmpty)
        let ended = driver.send(
            .captureEnded(number, .stopped, closeError: nil, recordedFrames: 960, now: MachineDriver.now))
        #expect(ended.answers[1] == .success(.memo(Self.memo1)))
        #expect(ended.answers[2] == .success(.memo(Self.memo1)))
    }

    @Test func aRefusedDirectoryAnswersTheCallerAndChangesNothing() {
        var driver = MachineDriver()
        driver.directory = .failure(.storage("the memo directory is not writable"))
        let effects = driver.send(.record(1, now: MachineDriver.now))
        #expect(effects.notifications.isEmpty)
        #expect(effects.answers[1] == .failure(.storage("the memo directory is not writable")))
        #expect(driver.state == .idle && driver.machine.open == nil)
    }

    @Test func aFileThatCannotBeCreatedAnswersTheCallerWithoutAStateChange() {
        var driver = MachineDriver()
        driver.fileCreation = .failure(.storage("disk full"))
        let effects = driver.send(.record(1, now: MachineDriver.now))
        #expect(!effects.contains { if case .startCapture = $0 { true } else { false } })
        #expect(effects.notifications.isEmpty)
        #expect(effects.answers[1] == .failure(.storage("disk full")))
        #expect(driver.state == .idle && driver.machine.filesInProgress.isEmpty)
    }

    @Test func recordWithOptionsIsBusyWhileAMemoIsOpenAndValidatesFirst() {
        var driver = MachineDriver()
        driver.startRecording()
        let busy = driver.send(.recordWithOptions(2, [:], now: MachineDriver.now))
        #expect(busy == [.answer(2, .failure(.busy("a recording is already open (memo1); Stop or Cancel it first")))])
        let invalid = driver.send(.recordWithOptions(3, ["channels": .uint32(0)], now: MachineDriver.now))
        guard case .failure(.invalidArgument)? = invalid.answers[3] else {
            Issue.record("bad options are invalid before busy: \(invalid)")
            return
        }
        #expect(driver.state == .recording)
    }

    @Test func recordWhilePausedResumesAndAnswersTheOpenMemo() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        driver.send(.pause(2))
        let effects = driver.send(.record(3, now: MachineDriver.now))
        #expect(effects.first == .resumeCapture(number))
        #expect(effects.answers[3] == .success(.memo(Self.memo1)))
        #expect(driver.state == .recording)
    }

    @Test func pauseIsAnsweredOnlyOnceTheFileIsSynchronized() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        let effects = driver.send(.pause(2))
        #expect(
            effects == [
                .pauseCapture(number, droppingHeldAudio: false), .notify(.changed([.state])),
                .synchronize(number, then: 2),
            ])
        #expect(driver.state == .paused)
        #expect(driver.send(.pause(3)) == [.synchronize(number, then: 3)], "pausing again syncs again")
        let resumed = driver.send(.resume(4))
        #expect(resumed.first == .resumeCapture(number) && resumed.answers[4] == .success(.done))
    }

    @Test func pauseAndResumeSayWhatIsMissing() {
        var driver = MachineDriver()
        #expect(
            driver.send(.pause(1)) == [
                .answer(1, .failure(.notRecording("nothing is being recorded; call Record first")))
            ])
        #expect(
            driver.send(.resume(2)) == [
                .answer(2, .failure(.notRecording("nothing is paused; call Record to start a memo")))
            ])
        let later = Int64(MachineDriver.now.timeIntervalSince1970) + 60
        driver.send(.recordWithOptions(3, ["start-at": .int64(later)], now: MachineDriver.now))
        guard case .failure(.notRecording(let message))? = driver.send(.pause(4)).answers[4] else {
            Issue.record("a scheduled memo cannot be paused")
            return
        }
        #expect(message.contains("has not started yet"))
    }

    @Test func stopIsAnsweredOnceTheFileIsClosed() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        let stopping = driver.send(.stop(2))
        #expect(stopping == [.notify(.changed([.state, .currentMemo, .activeSource])), .stopCapture(number)])
        #expect(driver.state == .idle && driver.machine.filesInProgress == ["memo1.wav"], "still being finalized")

        let ended = driver.send(
            .captureEnded(number, .stopped, closeError: nil, recordedFrames: 48_000, now: MachineDriver.now))
        #expect(
            ended == [
                .cancelReconnectTimeout(number), .notify(.finished(Self.memo1, successfully: true)),
                .answer(2, .success(.memo(Self.memo1))),
            ])
        #expect(driver.machine.filesInProgress.isEmpty)
    }

    @Test func aMemoThatCapturedNothingIsRemovedAndFinishesUnsuccessfully() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        driver.send(.stop(2))
        let ended = driver.send(
            .captureEnded(number, .stopped, closeError: nil, recordedFrames: 0, now: MachineDriver.now))
        #expect(ended.contains(.removeFile(Self.memo1, reportsTo: nil)))
        #expect(ended.notifications == [.finished(Self.memo1, successfully: false)])
        #expect(ended.answers[2] == .success(.memo(Self.memo1)))
    }

    @Test func cancelIsAnsweredOnceTheFileIsGone() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        driver.send(.cancel(2))
        driver.fileRemoval = .failure(.storage("cannot delete /memos/memo1.wav: Permission denied"))
        let ended = driver.send(
            .captureEnded(number, .stopped, closeError: nil, recordedFrames: 4800, now: MachineDriver.now))
        #expect(ended.contains(.removeFile(Self.memo1, reportsTo: number)))
        #expect(ended.notifications.isEmpty, "a cancelled memo is not announced as finished")
        #expect(ended.answers[2] == .failure(.storage("cannot delete /memos/memo1.wav: Permission denied")))
    }

    @Test func aStartTimeSchedulesTheMemoAndItsFileComesWithTheTime() {
        var driver = MachineDriver()
        let later = Int64(MachineDriver.now.timeIntervalSince1970) + 60
        let scheduling = driver.send(.recordWithOptions(1, ["start-at": .int64(later)], now: MachineDriver.now))
        guard case .prepareMemo(_, let date, _) = scheduling.first else {
            Issue.record("\(scheduling)")
            return
        }
        #expect(date == Date(timeIntervalSince1970: Double(later)), "the memo is named for its start time")
        let number = driver.number
        #expect(scheduling.contains(.scheduleStart(number, at: later)))
        #expect(!scheduling.contains { if case .createFile = $0 { true } else { false } }, "no file before the time")
        #expect(scheduling.answers[1] == .success(.memo(MemoReference(id: "memo1", path: "/memos/memo1.wav"))))
        #expect(driver.state == .scheduled)

        let starting = driver.send(.startTimeReached(number))
        #expect(starting.contains { if case .createFile(number, _, _, .scheduledStart) = $0 { true } else { false } })
        #expect(starting.contains { if case .startCapture(number, _, _) = $0 { true } else { false } })
        #expect(starting.notifications == [.changed([.state])])
        #expect(driver.state == .recording)
    }

    @Test func stoppingAScheduledMemoCancelsItsTimerAndLeavesNoFile() {
        var driver = MachineDriver()
        let later = Int64(MachineDriver.now.timeIntervalSince1970) + 60
        driver.send(.recordWithOptions(1, ["start-at": .int64(later)], now: MachineDriver.now))
        let number = driver.number
        let stopped = driver.send(.stop(2))
        #expect(stopped.contains(.cancelStart(number)))
        #expect(stopped.answers[2] == .success(.memo(Self.memo1)))
        #expect(driver.state == .idle)
        #expect(driver.send(.startTimeReached(number)).isEmpty, "a late timer does nothing")
    }

    @Test func aScheduledStartWhoseFileFailsFinishesUnsuccessfully() {
        var driver = MachineDriver()
        let later = Int64(MachineDriver.now.timeIntervalSince1970) + 60
        driver.send(.recordWithOptions(1, ["start-at": .int64(later)], now: MachineDriver.now))
        driver.fileCreation = .failure(.storage("disk full"))
        let effects = driver.send(.startTimeReached(driver.number))
        #expect(
            effects.notifications == [
                .changed([.state, .currentMemo]), .encodeFailed(Self.memo1, message: "disk full"),
                .finished(Self.memo1, successfully: false),
            ])
        #expect(driver.state == .idle)
    }

    @Test func waitingForSoundCreatesTheFileWhenTheSoundComes() {
        var driver = MachineDriver()
        let number = driver.startRecording(["start-on-sound": .boolean(true)])
        #expect(driver.state == .scheduled && driver.machine.open?.isWaitingForSound == true)
        #expect(driver.machine.filesInProgress == ["memo1.wav"])

        let heard = driver.send(.soundStarted(number))
        #expect(heard.first == .createFile(number, Self.memo1, driver.machine.open!.request, .soundHeard))
        #expect(heard.dropFirst().first == .attachFile(number))
        #expect(heard.contains(.stopPlayback))
        #expect(driver.state == .recording)
    }

    @Test func aHandsFreeMemoEndingOnSilenceWaitsForTheNextSound() {
        var driver = MachineDriver()
        let number = driver.startRecording(["start-on-sound": .boolean(true), "stop-after-silence": .double(2)])
        driver.send(.soundStarted(number))
        let ended = driver.send(
            .captureEnded(number, .silenceReached, closeError: nil, recordedFrames: 96_000, now: MachineDriver.now))
        #expect(ended.notifications.first == .finished(Self.memo1, successfully: true))
        guard
            case .prepareMemo(let start, _, _)? = ended.first(where: {
                if case .prepareMemo = $0 { true } else { false }
            })
        else {
            Issue.record("no re-arm: \(ended)")
            return
        }
        #expect(start.isRearm && start.request.startsOnSound)
        #expect(driver.state == .scheduled && driver.machine.open?.memo.id == "memo2")
        #expect(driver.number != number, "a new recording, numbered anew")
    }

    @Test func stoppingAMemoThatWaitsForSoundDropsIt() {
        var driver = MachineDriver()
        let number = driver.startRecording(["start-on-sound": .boolean(true)])
        driver.send(.stop(2))
        let ended = driver.send(
            .captureEnded(number, .stopped, closeError: nil, recordedFrames: 0, now: MachineDriver.now))
        #expect(ended.contains(.removeFile(Self.memo1, reportsTo: number)), "dropped as cancelled")
        #expect(ended.answers[2] == .success(.memo(Self.memo1)))
        #expect(!ended.contains { if case .prepareMemo = $0 { true } else { false } }, "a stopped memo is not re-armed")
    }

    @Test func aPauseDuringAnInterruptionTakesEffectWhenItEnds() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        let began = driver.send(.interruptionBegan(.systemSleep, pausesCapture: true, shouldResume: true))
        #expect(
            began == [
                .pauseCapture(number, droppingHeldAudio: false), .notify(.changed([.state])),
                .notify(.interruption(.systemSleep, began: true, shouldResume: true)),
            ])
        #expect(driver.send(.pause(2)).answers[2] == .success(.done), "answered at once while interrupted")
        let ended = driver.send(.interruptionEnded(.systemSleep, resume: true))
        #expect(!ended.contains(.resumeCapture(number)), "paused during the sleep: stays paused")
        #expect(driver.state == .paused)
    }

    @Test func interruptionsOverlapAndTheLastOneToEndResumes() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        let muted = driver.send(.interruptionBegan(.inputMuted, pausesCapture: false, shouldResume: true))
        #expect(!muted.contains(.pauseCapture(number, droppingHeldAudio: false)), "a muted input is still recorded")
        let asleep = driver.send(.interruptionBegan(.sessionInactive, pausesCapture: true, shouldResume: true))
        #expect(asleep.first == .pauseCapture(number, droppingHeldAudio: false))
        #expect(!asleep.notifications.contains(.changed([.state])), "already interrupted: State is not announced again")
        #expect(driver.send(.interruptionBegan(.inputMuted, pausesCapture: false, shouldResume: true)).isEmpty)
        let first = driver.send(.interruptionEnded(.sessionInactive, resume: true))
        #expect(first.contains(.resumeCapture(number)), "a muted input does not stop writing")
        #expect(first.notifications == [.interruption(.sessionInactive, began: false, shouldResume: true)])
        #expect(driver.state == .interrupted)
        let last = driver.send(.interruptionEnded(.inputMuted, resume: true))
        #expect(last.notifications.last == .changed([.state]))
        #expect(driver.state == .recording)
    }

    @Test func anInterruptionEndedWithoutResumeLeavesTheMemoPaused() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        driver.send(.interruptionBegan(.sessionInactive, pausesCapture: true, shouldResume: true))
        let ended = driver.send(.interruptionEnded(.sessionInactive, resume: false))
        #expect(!ended.contains(.resumeCapture(number)))
        #expect(driver.state == .paused)
        let resumed = driver.send(.resume(2))
        #expect(resumed.first == .resumeCapture(number) && resumed.answers[2] == .success(.done))
        #expect(driver.state == .recording)
    }

    @Test func eachPhaseCarriesWhatItWaitsFor() {
        var driver = MachineDriver()
        let later = Int64(MachineDriver.now.timeIntervalSince1970) + 60
        driver.send(.recordWithOptions(1, ["start-at": .int64(later)], now: MachineDriver.now))
        #expect(driver.machine.open?.phase == .scheduled(.at(later)))
        driver.send(.cancel(2))

        let number = driver.startRecording(["start-on-sound": .boolean(true), "sound-threshold": .double(-30)])
        #expect(driver.machine.open?.phase == .scheduled(.onSound(.listening(threshold: -30, preRoll: 0.5))))
        driver.send(.captureLost(number, .audioServer("connection refused")))
        guard case .interrupted(let interruption)? = driver.machine.open?.phase else {
            Issue.record("not interrupted: \(String(describing: driver.machine.open?.phase))")
            return
        }
        #expect(interruption.reasons == [.serverLost: false])
        #expect(interruption.returnTo == .onSound(.listening(threshold: -30, preRoll: 0.5)))
        #expect(interruption.lostCapture == .serverLost, "the loss is one of the interruption's reasons")
        driver.send(.captureRestored(number, source: "mic"))
        #expect(driver.machine.open?.phase == .scheduled(.onSound(.listening(threshold: -30, preRoll: 0.5))))
        #expect(driver.machine.open?.lostCapture == nil)
    }

    @Test func aMemoIsOpenWhileRecordingPausedOrInterruptedOnly() {
        let open = RecorderState.allCases.filter(\.hasOpenMemo)
        #expect(open == [.recording, .paused, .interrupted])
    }

    @Test func aMemoWaitingForSoundGoesOnWaitingAfterAnInterruption() {
        var driver = MachineDriver()
        let number = driver.startRecording(["start-on-sound": .boolean(true)])
        driver.send(.interruptionBegan(.systemSleep, pausesCapture: true, shouldResume: true))
        #expect(driver.send(.resume(2)) == [.answer(2, .success(.done))], "nothing is paused")
        let ended = driver.send(.interruptionEnded(.systemSleep, resume: false))
        #expect(ended.contains(.resumeCapture(number)), "it listens again")
        #expect(driver.state == .scheduled, "waiting, not paused with nothing recorded")
    }

    @Test func aScheduledStartThatCannotCaptureEndsInTheOpen() {
        var driver = MachineDriver()
        let later = Int64(MachineDriver.now.timeIntervalSince1970) + 60
        let scheduled = driver.send(.recordWithOptions(1, ["start-at": .int64(later)], now: MachineDriver.now))
        #expect(scheduled.answers[1] == .success(.memo(Self.memo1)))
        let number = driver.number
        driver.send(.startTimeReached(number))
        #expect(driver.send(.captureFailedToStart(number, .audioServer("no server"))).isEmpty)
        let ended = driver.send(
            .captureEnded(
                number, .captureFailed(.audioServer("no server")), closeError: nil, recordedFrames: 0,
                now: MachineDriver.now))
        #expect(ended.notifications.last == .finished(Self.memo1, successfully: false))
        #expect(ended.answers.isEmpty, "answered once, when it was scheduled")
    }

    @Test func aLostServerIsWaitedForUntilTheReconnectTimeout() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        let lost = driver.send(.captureLost(number, .audioServer("connection refused")))
        #expect(lost.contains(.scheduleReconnectTimeout(number, seconds: RecorderDefaults().reconnectTimeout)))
        #expect(lost.notifications.last == .interruption(.serverLost, began: true, shouldResume: true))
        #expect(driver.state == .interrupted && driver.machine.open?.lostCapture == .serverLost)

        let restored = driver.send(.captureRestored(number, source: "usb-mic"))
        #expect(restored.first == .cancelReconnectTimeout(number))
        #expect(restored.notifications.last == .routeChanged(.serverRestarted, from: "mic", to: "usb-mic"))
        #expect(driver.state == .recording && driver.machine.open?.activeSource == "usb-mic")

        driver.send(.captureLost(number, .audioServer("gone again")))
        #expect(driver.send(.reconnectTimedOut(number)) == [.giveUpCapture(number)])
    }

    @Test func aLostDeviceDropsHeldAudioAndReopensWhenItReturns() {
        var driver = MachineDriver()
        let number = driver.startRecording(["source": .string("usb-mic")])
        let lost = driver.send(.inputLost)
        #expect(lost.first == .pauseCapture(number, droppingHeldAudio: true))
        #expect(!lost.contains { if case .scheduleReconnectTimeout = $0 { true } else { false } })
        #expect(driver.send(.inputReturned) == [.reopenCapture(number, afterLoss: true)])
        let back = driver.send(.captureRestored(number, source: "usb-mic"))
        #expect(back.notifications.last == .routeChanged(.newDeviceAvailable, from: "mic", to: "usb-mic"))
        #expect(driver.state == .recording)
    }

    @Test func aCaptureThatCannotStartIsAnsweredOnceItsFileIsGone() {
        var driver = MachineDriver()
        driver.send(.record(1, now: MachineDriver.now))
        let number = driver.number
        #expect(driver.send(.captureFailedToStart(number, .audioServer("no server"))).isEmpty)
        let ended = driver.send(
            .captureEnded(
                number, .captureFailed(.audioServer("no server")), closeError: nil, recordedFrames: 0,
                now: MachineDriver.now))
        let removal = ended.firstIndex(of: .removeFile(Self.memo1, reportsTo: nil))
        let answer = ended.firstIndex(of: .answer(1, .failure(.audioServer("no server"))))
        #expect(removal != nil && answer != nil && removal! < answer!)
        #expect(driver.state == .idle)
    }

    @Test func toggleStartsWhenIdleAndStopsOtherwise() {
        var driver = MachineDriver()
        driver.send(.toggle(1, now: MachineDriver.now))
        let number = driver.number
        let opened = driver.send(.captureStarted(number, source: "mic"))
        #expect(opened.answers[1] == .success(.state(.recording)), "a hotkey does not wait for audio")
        #expect(driver.send(.audioFlowing(number)).isEmpty)
        driver.send(.toggle(2, now: MachineDriver.now))
        let ended = driver.send(
            .captureEnded(number, .stopped, closeError: nil, recordedFrames: 960, now: MachineDriver.now))
        #expect(ended.answers[2] == .success(.state(.idle)))
    }

    @Test func changedDefaultsNameOnlyWhatChangedAndReachTheOpenCapture() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        var defaults = driver.machine.defaults
        defaults.isMeteringEnabled = true
        defaults.sampleRate = 16000
        let effects = driver.send(.defaultsChanged(defaults))
        #expect(
            effects == [.setMetering(number, isEnabled: true), .notify(.changed([.sampleRate, .meteringEnabled]))])
        #expect(driver.send(.defaultsChanged(defaults)).isEmpty, "no change, no news")
    }

    /// `Record` and `Toggle` take everything from the defaults, system audio included.
    @Test(arguments: [true, false])
    func theSystemAudioSettingReachesRecordAndToggle(usesToggle: Bool) {
        var driver = MachineDriver()
        var defaults = driver.machine.defaults
        defaults.systemAudio = true
        #expect(driver.send(.defaultsChanged(defaults)) == [.notify(.changed([.systemAudio]))])
        driver.send(usesToggle ? .toggle(1, now: MachineDriver.now) : .record(1, now: MachineDriver.now))
        #expect(driver.machine.open?.request.systemAudio == true)
        #expect(driver.machine.open?.request.channelLayout == .mix)
    }

    /// Nothing names the recorded output yet: `ActiveOutput` stays empty and unannounced
    /// through a call memo's whole life.
    @Test func aCallMemoHasNoActiveOutputUntilTheCapturePathNamesOne() {
        var driver = MachineDriver()
        var effects = driver.send(.recordWithOptions(1, ["system-audio": .boolean(true)], now: MachineDriver.now))
        let number = driver.number
        effects += driver.send(.captureStarted(number, source: "mic")) + driver.send(.audioFlowing(number))
        #expect(driver.machine.open?.request.systemAudio == true && driver.machine.open?.activeOutput == nil)
        effects += driver.send(.stop(2))
        effects += driver.send(
            .captureEnded(number, .stopped, closeError: nil, recordedFrames: 960, now: MachineDriver.now))
        var announced: [RecorderProperty] = []
        for case .changed(let names) in effects.notifications { announced += names }
        #expect(announced.contains(.activeSource) && !announced.contains(.activeOutput))
    }

    @Test func levelsAreReportedWhileRecordingOnly() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        let levels = Levels.silence(channels: 1)
        #expect(
            driver.send(.levelsMeasured(number, levels, inputs: [levels], currentTime: 1))
                == [.notify(.levels(levels, inputs: [levels], currentTime: 1))])
        driver.send(.pause(2))
        #expect(driver.send(.levelsMeasured(number, levels, inputs: [levels], currentTime: 1.1)).isEmpty)
        #expect(driver.send(.levelsWatched(true)) == [.setMetering(number, isEnabled: true)])
    }

    @Test func factsAboutAFinishedRecordingDoNotTouchTheNextOne() {
        var driver = MachineDriver()
        let first = driver.startRecording()
        driver.send(.stop(2))
        let second = driver.startRecording(reply: 3)
        #expect(second != first)
        #expect(driver.send(.captureLost(first, .audioServer("late news"))).isEmpty)
        #expect(driver.send(.soundStarted(first)).isEmpty)
        let ended = driver.send(
            .captureEnded(first, .stopped, closeError: nil, recordedFrames: 960, now: MachineDriver.now))
        #expect(ended.answers[2] == .success(.memo(Self.memo1)))
        #expect(driver.state == .recording && driver.machine.open?.number == second)
    }

    @Test func aNewMemoAvoidsTheIdsOfMemosStillBeingFinalized() {
        var driver = MachineDriver()
        driver.startRecording()
        driver.send(.stop(2))
        let next = driver.send(.record(3, now: MachineDriver.now))
        guard case .prepareMemo(_, _, let reserved) = next.first else {
            Issue.record("\(next)")
            return
        }
        #expect(reserved == ["memo1"])
    }

    @Test func aWriteFailureIsAnEncodeErrorAndAnUnsuccessfulFinish() {
        var driver = MachineDriver()
        let number = driver.startRecording()
        let ended = driver.send(
            .captureEnded(
                number, .writeFailed(.storage("No space left on device")), closeError: nil, recordedFrames: 4800,
                now: MachineDriver.now))
        #expect(
            ended.notifications == [
                .changed([.state, .currentMemo, .activeSource]),
                .encodeFailed(Self.memo1, message: "No space left on device"),
                .finished(Self.memo1, successfully: false),
            ])
        #expect(driver.state == .idle)
    }
}

/// Each command in each state: how it is answered at once (or that it waits for the
/// capture or the file), and the state it leaves.
@Suite("Recorder rules: each command in each state")
struct RecorderCommandTableTests {
    /// Where the recorder is when the command comes.
    enum Setup: CaseIterable, Sendable {
        case idle, scheduledAtTime, waitingForSound, recording, paused, interrupted
    }

    enum Command: CaseIterable, Sendable {
        case record, recordWithOptions, pause, resume, stop, cancel, toggle
    }

    /// The answer as the table states it.
    enum Answer: Equatable, Sendable {
        /// Not yet: answered once the capture, the file or the sync says so.
        case waits
        case memo, done
        case state(RecorderState)
        case notRecording, busy
    }

    static let table: [Setup: [Command: (Answer, RecorderState)]] = [
        .idle: [
            .record: (.waits, .recording), .recordWithOptions: (.waits, .recording), .pause: (.notRecording, .idle),
            .resume: (.notRecording, .idle), .stop: (.notRecording, .idle), .cancel: (.notRecording, .idle),
            .toggle: (.waits, .recording),
        ],
        .scheduledAtTime: [
            .record: (.memo, .scheduled), .recordWithOptions: (.busy, .scheduled), .pause: (.notRecording, .scheduled),
            .resume: (.done, .scheduled), .stop: (.memo, .idle), .cancel: (.done, .idle),
            .toggle: (.state(.idle), .idle),
        ],
        .waitingForSound: [
            .record: (.memo, .scheduled), .recordWithOptions: (.busy, .scheduled), .pause: (.notRecording, .scheduled),
            .resume: (.done, .scheduled), .stop: (.waits, .idle), .cancel: (.waits, .idle), .toggle: (.waits, .idle),
        ],
        .recording: [
            .record: (.memo, .recording), .recordWithOptions: (.busy, .recording), .pause: (.waits, .paused),
            .resume: (.done, .recording), .stop: (.waits, .idle), .cancel: (.waits, .idle), .toggle: (.waits, .idle),
        ],
        .paused: [
            .record: (.memo, .recording), .recordWithOptions: (.busy, .paused), .pause: (.waits, .paused),
            .resume: (.done, .recording), .stop: (.waits, .idle), .cancel: (.waits, .idle), .toggle: (.waits, .idle),
        ],
        .interrupted: [
            .record: (.memo, .interrupted), .recordWithOptions: (.busy, .interrupted), .pause: (.done, .interrupted),
            .resume: (.done, .interrupted), .stop: (.waits, .idle), .cancel: (.waits, .idle),
            .toggle: (.waits, .idle),
        ],
    ]

    @Test(arguments: Setup.allCases, Command.allCases)
    func theCommandIsAnsweredAsTheTableSays(_ setup: Setup, _ command: Command) throws {
        var driver = MachineDriver()
        let later = Int64(MachineDriver.now.timeIntervalSince1970) + 60
        switch setup {
        case .idle: break
        case .scheduledAtTime: driver.send(.recordWithOptions(1, ["start-at": .int64(later)], now: MachineDriver.now))
        case .waitingForSound: driver.startRecording(["start-on-sound": .boolean(true)])
        case .recording: driver.startRecording()
        case .paused:
            driver.startRecording()
            driver.send(.pause(2))
        case .interrupted:
            driver.startRecording()
            driver.send(.interruptionBegan(.systemSleep, pausesCapture: true, shouldResume: true))
        }
        let reply: ReplyID = 9
        let effects: [RecorderEffect] =
            switch command {
            case .record: driver.send(.record(reply, now: MachineDriver.now))
            case .recordWithOptions: driver.send(.recordWithOptions(reply, [:], now: MachineDriver.now))
            case .pause: driver.send(.pause(reply))
            case .resume: driver.send(.resume(reply))
            case .stop: driver.send(.stop(reply))
            case .cancel: driver.send(.cancel(reply))
            case .toggle: driver.send(.toggle(reply, now: MachineDriver.now))
            }
        let (answer, state) = try #require(Self.table[setup]?[command])
        #expect(Self.answer(effects.answers[reply]) == answer)
        #expect(driver.state == state)
    }

    /// The table's name for `result`; the memo answered is always the one open.
    static func answer(_ result: Result<RecorderReply, RecorderError>?) -> Answer? {
        switch result {
        case nil: .waits
        case .success(.memo(let memo))?: memo == RecorderMachineTests.memo1 ? .memo : nil
        case .success(.done)?: .done
        case .success(.state(let state))?: .state(state)
        case .failure(.notRecording)?: .notRecording
        case .failure(.busy)?: .busy
        case .failure?: nil
        }
    }
}
