import FoundationEssentials

/// The recorder's rules: what `Record`, `Pause`, `Resume`, `Stop`, `Cancel` and `Toggle` do
/// in each state, and what capture, session and server facts do to the open recording,
/// modelled on AVAudioRecorder.
///
/// A value: `handle(_:)` takes one event and returns what to do about it, in order. It owns
/// no thread, file or timer; the runtime carries the effects out and reports their outcomes
/// back as events, so every rule can be tested by feeding events and reading effects.
public struct RecorderMachine: Sendable {
    public private(set) var state: RecorderState = .idle
    /// The defaults for the next recording.
    public private(set) var defaults: RecorderDefaults
    /// The open recording: scheduled, waiting for sound, recording, paused or interrupted.
    public private(set) var open: Recording?
    /// Recordings stopped but still being finalized, by number.
    public private(set) var closing: [RecordingNumber: Recording] = [:]
    /// A start whose file is being created: it opens once the file exists.
    private var starting: Recording?
    /// Cancelled recordings whose file is being removed; answered once it is gone.
    private var removing: [RecordingNumber: Recording] = [:]
    /// Whether someone watches the levels apart from the `isMeteringEnabled` setting.
    private var areLevelsWatched = false
    private var lastNumber: RecordingNumber = 0

    public init(defaults: RecorderDefaults) {
        self.defaults = defaults
    }

    /// Names of the files still being written (the open memo and those being finalized):
    /// not memos yet, so the library leaves them alone.
    public var filesInProgress: Set<String> {
        Set(([open].compactMap { $0 } + Array(closing.values)).map(\.fileName))
    }

    /// Whether levels are measured and reported: the setting is on, or someone watches them.
    public var isMetering: Bool { defaults.isMeteringEnabled || areLevelsWatched }

    /// Applies `event` and returns what must happen because of it, in order.
    public mutating func handle(_ event: RecorderEvent) -> [RecorderEffect] {
        switch event {
        case .record(let reply, let now): record(PendingReply(reply, .memo), now: now)
        case .recordWithOptions(let reply, let options, let now): record(options: options, reply: reply, now: now)
        case .pause(let reply): pause(reply)
        case .resume(let reply): resume(reply)
        case .stop(let reply): stop(PendingReply(reply, .memo))
        case .cancel(let reply): cancel(reply)
        case .toggle(let reply, let now):
            state == .idle
                ? record(PendingReply(reply, .state(.recording)), now: now) : stop(PendingReply(reply, .state(.idle)))
        case .defaultsChanged(let updated): changeDefaults(to: updated)
        case .levelsWatched(let isWatched): watchLevels(isWatched)
        case .memoPrepared(let start, let result): memoPrepared(start, result)
        case .fileCreated(let number, let purpose, let result): fileCreated(number, purpose, result)
        case .fileRemoved(let number, let result):
            removing.removeValue(forKey: number).map { finish($0, result) } ?? []
        case .captureStarted(let number, let source): captureStarted(number, source: source)
        case .audioFlowing(let number): answerStart(number) { _ in true }
        case .captureFailedToStart(let number, let error): captureFailedToStart(number, error)
        case .captureLost(let number, let error): captureLost(number, error)
        case .captureRestored(let number, let source): captureRestored(number, source: source)
        case .soundStarted(let number): soundStarted(number)
        case .levelsMeasured(let number, let levels, let time):
            open?.number == number && state == .recording ? [.notify(.levels(levels, currentTime: time))] : []
        case .captureEnded(let number, let ending, let closeError, let frames, let now):
            captureEnded(number, ending, closeError: closeError, recordedFrames: frames, now: now)
        case .startTimeReached(let number): startTimeReached(number)
        case .reconnectTimedOut(let number): [.giveUpCapture(number)]
        case .interruptionBegan(let reason, let pausesCapture, let shouldResume):
            beginInterruption(reason, pausesCapture: pausesCapture, shouldResume: shouldResume)
        case .interruptionEnded(let reason, let resume): endInterruption(reason, resume: resume)
        case .routeChanged(let reason, let source): changeRoute(reason, to: source)
        case .inputLost: inputLost()
        case .inputReturned:
            open.flatMap { $0.lostCapture == .deviceLost ? [.reopenCapture($0.number, afterLoss: true)] : nil } ?? []
        case .inputChanged:
            open.flatMap { $0.isCapturing ? [.reopenCapture($0.number, afterLoss: false)] : nil } ?? []
        }
    }

    // MARK: Commands

    /// `Record`: starts a memo with the defaults when idle, resumes when paused, and
    /// otherwise answers with the open memo.
    private mutating func record(_ reply: PendingReply, now: Date) -> [RecorderEffect] {
        guard let recording = open else {
            return requestMemo(
                for: RecordingStart(request: RecordingRequest(defaults: defaults), reply: reply, requestDate: now))
        }
        var effects: [RecorderEffect] = []
        if state == .paused { effects = [.resumeCapture(recording.number)] + setState(.recording) }
        return effects + [reply.answer(.success(()), memo: recording.memo)]
    }

    /// `RecordWithOptions`: starts a memo with per-recording options; `busy` unless idle.
    private mutating func record(options: [String: OptionValue], reply: ReplyID, now: Date) -> [RecorderEffect] {
        let request: RecordingRequest
        do {
            request = try RecordingRequest(defaults: defaults, options: options, now: Self.unixTime(now))
        } catch {
            return [.answer(reply, .failure(error))]
        }
        if let recording = open {
            let message = "a recording is already open (\(recording.memo.id)); Stop or Cancel it first"
            return [.answer(reply, .failure(.busy(message)))]
        }
        return requestMemo(for: RecordingStart(request: request, reply: PendingReply(reply, .memo), requestDate: now))
    }

    /// `Pause`: stops writing audio, answered once the file on disk holds every frame recorded
    /// before (at once when interrupted: a lost stream has nothing in flight, and a sleep or
    /// muted input syncs on its own).
    private mutating func pause(_ reply: ReplyID) -> [RecorderEffect] {
        guard var recording = open else {
            return [.answer(reply, .failure(.notRecording("nothing is being recorded; call Record first")))]
        }
        switch state {
        case .recording:
            return [.pauseCapture(recording.number, droppingHeldAudio: false)] + setState(.paused)
                + [.synchronize(recording.number, then: reply)]
        case .paused:
            return [.synchronize(recording.number, then: reply)]
        case .interrupted where recording.isWaitingForSound, .scheduled where recording.isCapturing:
            let message = "the recording is waiting for sound; Stop or Cancel it, or wait for the sound"
            return [.answer(reply, .failure(.notRecording(message)))]
        case .interrupted:
            // Takes effect when the interruptions end.
            recording.interruptions.stateBefore = .paused
            open = recording
            return [.pauseCapture(recording.number, droppingHeldAudio: false), .answer(reply, .success(.done))]
        case .scheduled:
            let message = "the recording has not started yet; Cancel it, or wait for its start time"
            return [.answer(reply, .failure(.notRecording(message)))]
        case .idle:
            return [.answer(reply, .failure(.notRecording("nothing is being recorded; call Record first")))]
        }
    }

    /// `Resume`: appends to the paused memo.
    private mutating func resume(_ reply: ReplyID) -> [RecorderEffect] {
        guard var recording = open, state != .idle else {
            return [.answer(reply, .failure(.notRecording("nothing is paused; call Record to start a memo")))]
        }
        var effects: [RecorderEffect] = []
        switch state {
        case .paused:
            effects = [.resumeCapture(recording.number)] + setState(.recording)
        case .interrupted where recording.isWaitingForSound:
            break  // nothing is paused: it goes on waiting once the interruptions end
        case .interrupted:
            recording.interruptions.stateBefore = .recording
            open = recording
            if !recording.interruptions.pausesCapture { effects = [.resumeCapture(recording.number)] }
        case .recording, .scheduled, .idle:
            break
        }
        return effects + [.answer(reply, .success(.done))]
    }

    /// `Stop`: finishes the open memo, answered once the file is finalized. A memo still
    /// waiting for its start time or for sound is dropped, as nothing was recorded.
    private mutating func stop(_ reply: PendingReply) -> [RecorderEffect] {
        guard let recording = open else {
            let message = "nothing is being recorded; there is nothing to stop"
            return [.answer(reply.id, .failure(.notRecording(message)))]
        }
        return close(recording, cancelling: !recording.isCapturing || recording.isWaitingForSound, reply: reply)
    }

    /// `Cancel`: stops and deletes the open memo, answered once nothing is left on disk.
    private mutating func cancel(_ reply: ReplyID) -> [RecorderEffect] {
        guard let recording = open else {
            let message = "nothing is being recorded; there is nothing to cancel"
            return [.answer(reply, .failure(.notRecording(message)))]
        }
        return close(recording, cancelling: true, reply: PendingReply(reply, .done))
    }

    private mutating func changeDefaults(to updated: RecorderDefaults) -> [RecorderEffect] {
        guard updated != defaults else { return [] }
        let changed = RecorderProperty.defaultsProperties.filter { $0.value(in: updated) != $0.value(in: defaults) }
        defaults = updated
        return meteringEffects + [.notify(.changed(changed))]
    }

    /// Meters the recording while `isWatched`, whatever the `isMeteringEnabled` setting says,
    /// which stays as it is: for live meters, so a meter that dies changes no setting.
    private mutating func watchLevels(_ isWatched: Bool) -> [RecorderEffect] {
        areLevelsWatched = isWatched
        return meteringEffects
    }

    /// The open capture's metering, brought in line with `isMetering`.
    private var meteringEffects: [RecorderEffect] {
        guard let recording = open, recording.isCapturing else { return [] }
        return [.setMetering(recording.number, isEnabled: isMetering)]
    }

    // MARK: Starting

    /// Asks for a memo name; the start goes on in `memoPrepared`.
    private func requestMemo(for start: RecordingStart) -> [RecorderEffect] {
        // A memo is dated when it starts: its start time, or now if that has passed.
        let startDate = start.request.startTime.map { Date(timeIntervalSince1970: Double($0)) } ?? start.requestDate
        let reserved = Set(closing.values.map(\.memo.id))
        return [.prepareMemo(start, date: max(startDate, start.requestDate), reserved: reserved)]
    }

    private mutating func memoPrepared(
        _ start: RecordingStart, _ result: Result<MemoReference, RecorderError>
    ) -> [RecorderEffect] {
        let memo: MemoReference
        switch result {
        case .success(let prepared): memo = prepared
        case .failure(let error): return startFailed(start.reply, error)
        }
        lastNumber += 1
        var recording = Recording(number: lastNumber, memo: memo, request: start.request, startReply: start.reply)
        if let startTime = start.request.startTime, startTime > Self.unixTime(start.requestDate) {
            recording.startReply = nil  // answered now, with the memo it will become
            open = recording
            return [.scheduleStart(recording.number, at: startTime)] + setState(.scheduled, also: [.currentMemo])
                + (start.reply.map { [$0.answer(.success(()), memo: memo)] } ?? [])
        }
        return prepareCapture(recording, purpose: .start)
    }

    /// A start that did not get as far as a capture: its caller hears why; a re-armed
    /// recording that could not go on leaves the recorder idle.
    private mutating func startFailed(_ reply: PendingReply?, _ error: RecorderError) -> [RecorderEffect] {
        if let reply { return [.answer(reply.id, .failure(error))] }
        guard open == nil, state != .idle else { return [] }
        return setState(.idle, also: [.currentMemo, .activeSource])
    }

    /// Creates the file (so a storage error answers the caller), then starts the capture. A
    /// recording that waits for sound gets its file when the sound comes: waiting leaves
    /// nothing on disk.
    private mutating func prepareCapture(_ recording: Recording, purpose: FilePurpose) -> [RecorderEffect] {
        var recording = recording
        recording.isWaitingForSound = recording.request.startsOnSound
        if recording.isWaitingForSound { return startCapture(recording, purpose: purpose) }
        if purpose == .start { starting = recording } else { open = recording }
        return [.createFile(recording.number, recording.memo, recording.request, purpose)]
    }

    /// The file exists (or is not needed yet): the capture starts and the memo is open.
    private mutating func startCapture(_ recording: Recording, purpose: FilePurpose) -> [RecorderEffect] {
        var recording = recording
        recording.isCapturing = true
        open = recording
        let effects: [RecorderEffect] = [.startCapture(recording.number, recording.request, isMetering: isMetering)]
        let newState: RecorderState = recording.isWaitingForSound ? .scheduled : .recording
        return effects + setState(newState, also: purpose == .start ? [.currentMemo] : [])
    }

    private mutating func fileCreated(
        _ number: RecordingNumber, _ purpose: FilePurpose, _ result: Result<Void, RecorderError>
    ) -> [RecorderEffect] {
        switch purpose {
        case .start:
            guard let recording = starting, recording.number == number else { return [] }
            starting = nil
            if case .failure(let error) = result { return startFailed(recording.startReply, error) }
            return startCapture(recording, purpose: .start)
        case .scheduledStart:
            guard let recording = open, recording.number == number else { return [] }
            guard case .failure(let error) = result else { return startCapture(recording, purpose: .scheduledStart) }
            open = nil
            return setState(.idle, also: [.currentMemo])
                + [
                    .notify(.encodeFailed(recording.memo, message: error.message)),
                    .notify(.finished(recording.memo, successfully: false)),
                ]
        case .soundHeard:
            guard var recording = open, recording.number == number else { return [] }
            if case .failure(let error) = result {
                return [
                    .notify(.encodeFailed(recording.memo, message: error.message)),
                    .notify(.finished(recording.memo, successfully: false)),
                ] + close(recording, cancelling: true, reply: nil)
            }
            guard state == .interrupted else { return [.attachFile(number)] + setState(.recording) }
            recording.interruptions.stateBefore = .recording
            open = recording
            return [.attachFile(number)]
        }
    }

    private mutating func startTimeReached(_ number: RecordingNumber) -> [RecorderEffect] {
        guard let recording = open, recording.number == number, !recording.isCapturing else { return [] }
        return prepareCapture(recording, purpose: .scheduledStart)
    }

    /// The recording waiting for sound heard it: its file is created, and the memo begins
    /// with the pre-roll the capture kept.
    private mutating func soundStarted(_ number: RecordingNumber) -> [RecorderEffect] {
        guard var recording = open, recording.number == number, recording.isWaitingForSound else { return [] }
        recording.isWaitingForSound = false
        open = recording
        return [.createFile(number, recording.memo, recording.request, .soundHeard)]
    }

    /// A `Toggle` is answered as the stream opens: a hotkey need not wait for audio. `Record`
    /// waits until audio flows, so its caller may count on the memo holding what follows.
    private mutating func captureStarted(_ number: RecordingNumber, source: String) -> [RecorderEffect] {
        var effects: [RecorderEffect] = []
        if open?.number == number { effects.append(.notify(.changed([.activeSource]))) }
        update(number) { $0.activeSource = source }
        return effects + answerStart(number) { if case .state = $0.kind { true } else { false } }
    }

    /// Answers the caller that started recording `number`, if it still waits and `isDue`.
    private mutating func answerStart(
        _ number: RecordingNumber, if isDue: (PendingReply) -> Bool
    ) -> [RecorderEffect] {
        var startReply: PendingReply?
        var memo: MemoReference?
        update(number) { recording in
            guard let reply = recording.startReply, isDue(reply) else { return }
            startReply = reply
            recording.startReply = nil
            memo = recording.memo
        }
        guard let startReply, let memo else { return [] }
        return [startReply.answer(.success(()), memo: memo)]
    }

    /// Answered once the capture ends (the file is removed first), so a refused `Record`
    /// leaves nothing on disk by the time the caller hears of it.
    private mutating func captureFailedToStart(_ number: RecordingNumber, _ error: RecorderError) -> [RecorderEffect] {
        update(number) { $0.startFailure = error }
        return []
    }

    // MARK: Closing

    /// Closes `recording` at the caller's request: `reply` is answered once its file is
    /// finalized (or, `cancelling`, removed).
    private mutating func close(
        _ recording: Recording, cancelling: Bool, reply: PendingReply?
    ) -> [RecorderEffect] {
        var recording = recording
        open = nil
        recording.isStoppedByUser = true
        recording.isCancelled = cancelling
        var effects = setState(.idle, also: [.currentMemo, .activeSource])
        guard recording.isCapturing else {
            // Scheduled but never started: no file was created.
            effects.append(.cancelStart(recording.number))
            if let reply { effects.append(reply.answer(.success(()), memo: recording.memo)) }
            return effects
        }
        if let reply { recording.replies.append(reply) }
        closing[recording.number] = recording
        return effects + [.stopCapture(recording.number)]
    }

    private mutating func captureEnded(
        _ number: RecordingNumber, _ ending: CaptureEnding, closeError: RecorderError?, recordedFrames: Int,
        now: Date
    ) -> [RecorderEffect] {
        let isOpen = open?.number == number
        guard let recording = isOpen ? open : closing.removeValue(forKey: number) else { return [] }
        var effects: [RecorderEffect] = [.cancelReconnectTimeout(number)]
        // A memo that waited for sound and ended on silence waits for the next sound: a
        // hands-free dictaphone, until Stop or Cancel. State goes from recording to scheduled.
        let rearms =
            ending == .silenceReached && recording.request.startsOnSound && isOpen && !recording.isStoppedByUser
            && closeError == nil
        if isOpen {
            open = nil
            if !rearms { effects += setState(.idle, also: [.currentMemo, .activeSource]) }
        }
        var failure = closeError
        var successfully = closeError == nil
        switch ending {
        case .stopped, .durationReached, .silenceReached:
            break
        case .captureFailed(let error):
            // Stopped by the user while waiting for the server: what was captured is complete.
            successfully = recording.isStoppedByUser && closeError == nil
            failure = failure ?? error
        case .writeFailed(let error):
            successfully = false
            failure = error
            effects.append(.notify(.encodeFailed(recording.memo, message: error.message)))
        }
        let failedToStart = recording.startFailure != nil
        if recordedFrames == 0 && !recording.isCancelled && !failedToStart {
            // Nothing captured (paused from the start, or the server failed at once): no memo.
            effects += [
                .removeFile(recording.memo, reportsTo: nil), .notify(.finished(recording.memo, successfully: false)),
            ]
            effects += finish(recording, .success(()))
        } else if failedToStart {
            effects.append(.removeFile(recording.memo, reportsTo: nil))
            // A start nobody waits for any more (scheduled, or re-armed) ends in the open.
            if recording.startReply == nil { effects.append(.notify(.finished(recording.memo, successfully: false))) }
            effects += finish(recording, .failure(failure ?? .audioServer("capture did not start")))
        } else if recording.isCancelled {
            removing[number] = recording
            effects.append(.removeFile(recording.memo, reportsTo: number))
        } else {
            if let closeError { effects.append(.notify(.encodeFailed(recording.memo, message: closeError.message))) }
            effects.append(.notify(.finished(recording.memo, successfully: successfully)))
            effects += finish(recording, closeError.map { .failure($0) } ?? .success(()))
        }
        if rearms {
            effects += requestMemo(for: RecordingStart(request: recording.request, reply: nil, requestDate: now))
        }
        return effects
    }

    /// Answers everyone waiting for `recording` with `outcome`; a start that failed is
    /// answered with its own failure.
    private func finish(_ recording: Recording, _ outcome: Result<Void, RecorderError>) -> [RecorderEffect] {
        var effects = recording.replies.map { $0.answer(outcome, memo: recording.memo) }
        if let startReply = recording.startReply {
            effects.append(
                startReply.answer(recording.startFailure.map { .failure($0) } ?? outcome, memo: recording.memo))
        }
        return effects
    }

    // MARK: Interruptions and routes

    /// While any interruption lasts `State` is `interrupted`; one that `pausesCapture` stops
    /// writing until it ends. A reason already in effect, or no capture, is ignored.
    private mutating func beginInterruption(
        _ reason: InterruptionReason, pausesCapture: Bool, shouldResume: Bool
    ) -> [RecorderEffect] {
        guard var recording = open, recording.isCapturing, recording.interruptions.reasons[reason] == nil else {
            return []
        }
        if recording.interruptions.reasons.isEmpty { recording.interruptions.stateBefore = state }
        recording.interruptions.reasons[reason] = pausesCapture
        open = recording
        var effects: [RecorderEffect] = []
        if pausesCapture { effects.append(.pauseCapture(recording.number, droppingHeldAudio: false)) }
        return effects + setState(.interrupted)
            + [.notify(.interruption(reason, began: true, shouldResume: shouldResume))]
    }

    /// Ends an interruption; when none is left the recording returns to the state it was in
    /// (recording again, or paused), unless `resume` is false: then it stays paused.
    private mutating func endInterruption(_ reason: InterruptionReason, resume: Bool) -> [RecorderEffect] {
        guard var recording = open, recording.interruptions.reasons.removeValue(forKey: reason) != nil else {
            return []
        }
        var effects: [RecorderEffect] = [.notify(.interruption(reason, began: false, shouldResume: resume))]
        // A recording still waiting for sound has nothing to pause: it goes on waiting.
        if !resume && !recording.isWaitingForSound { recording.interruptions.stateBefore = .paused }
        open = recording
        // Writing goes on as soon as nothing that stops it is left (a muted input does not).
        if !recording.interruptions.pausesCapture,
            [.recording, .scheduled].contains(recording.interruptions.stateBefore)
        {
            effects.append(.resumeCapture(recording.number))
        }
        guard recording.interruptions.reasons.isEmpty else { return effects }
        return effects + setState(recording.interruptions.stateBefore)
    }

    /// The server moved the stream: `ActiveSource` follows, and the change is announced
    /// unless `reason` is nil.
    private mutating func changeRoute(_ reason: RouteChangeReason?, to source: String) -> [RecorderEffect] {
        guard var recording = open, recording.isCapturing else { return [] }
        let previous = recording.activeSource
        recording.activeSource = source
        open = recording
        var effects: [RecorderEffect] = []
        if previous != source { effects.append(.notify(.changed([.activeSource]))) }
        if let reason { effects.append(.notify(.routeChanged(reason, from: previous, to: source))) }
        return effects
    }

    /// The server or device went away mid-recording: the memo waits, interrupted, for it to
    /// come back. A server that is not back within `reconnectTimeout` finishes the memo
    /// unsuccessfully; a device is waited for like a pause, until it returns or `Stop`.
    private mutating func captureLost(_ number: RecordingNumber, _ error: RecorderError) -> [RecorderEffect] {
        guard open?.number == number, open?.lostCapture == nil else { return [] }
        // The stream was open: whoever waits for audio to flow hears of the memo now, and
        // of the interruption from the signals, rather than wait out the reconnection.
        let answer = answerStart(number) { _ in true }
        guard var recording = open else { return answer }
        let reason: InterruptionReason = if case .deviceLost = error { .deviceLost } else { .serverLost }
        recording.lostCapture = reason
        open = recording
        let effects = answer + beginInterruption(reason, pausesCapture: false, shouldResume: true)
        guard reason == .serverLost else { return effects }
        return effects + [.scheduleReconnectTimeout(number, seconds: defaults.reconnectTimeout)]
    }

    /// The input feeding the open recording is gone and nothing may stand in for it (a pinned
    /// source unplugged, or only monitors of outputs left): the memo waits, interrupted with
    /// `device-lost` and writing nothing, until `inputReturned`. The audio a pinned recording
    /// holds back goes too: the server may already have put a stand-in under the stream.
    private mutating func inputLost() -> [RecorderEffect] {
        guard var recording = open, recording.isCapturing, recording.lostCapture == nil else { return [] }
        recording.lostCapture = .deviceLost
        open = recording
        return [.pauseCapture(recording.number, droppingHeldAudio: true)]
            + beginInterruption(.deviceLost, pausesCapture: true, shouldResume: true)
    }

    /// The lost stream is back: the interruption ends and the route says where from. A
    /// stream reopened without a loss just carries on.
    private mutating func captureRestored(_ number: RecordingNumber, source: String) -> [RecorderEffect] {
        var lost: InterruptionReason?
        var previous = ""
        update(number) { recording in
            lost = recording.lostCapture
            guard lost != nil else { return }
            recording.lostCapture = nil
            previous = recording.activeSource
            recording.activeSource = source
        }
        guard let reason = lost else { return [] }
        var effects: [RecorderEffect] = [.cancelReconnectTimeout(number)]
        guard open?.number == number else { return effects }
        effects += endInterruption(reason, resume: true)
        if previous != source { effects.append(.notify(.changed([.activeSource]))) }
        let route: RouteChangeReason = reason == .serverLost ? .serverRestarted : .newDeviceAvailable
        return effects + [.notify(.routeChanged(route, from: previous, to: source))]
    }

    // MARK: Helpers

    /// Changes the recording numbered `number`, open or being finalized.
    private mutating func update(_ number: RecordingNumber, _ change: (inout Recording) -> Void) {
        if var recording = open, recording.number == number {
            change(&recording)
            open = recording
        } else if var recording = closing[number] {
            change(&recording)
            closing[number] = recording
        }
    }

    /// Moves to `newState`, naming what changed (`State` only if it did, and `extra`).
    private mutating func setState(_ newState: RecorderState, also extra: [RecorderProperty] = []) -> [RecorderEffect] {
        let changed = (state != newState ? [.state] : []) + extra
        state = newState
        guard !changed.isEmpty else { return [] }
        let capturesSoon = newState == .recording || open?.isWaitingForSound == true
        return (changed.contains(.state) && capturesSoon ? [.stopPlayback] : []) + [.notify(.changed(changed))]
    }

    /// Whole seconds since the epoch, as `start-at` counts them.
    static func unixTime(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}
