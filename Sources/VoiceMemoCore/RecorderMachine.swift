import FoundationEssentials

/// The recorder's rules: what `Record`, `Pause`, `Resume`, `Stop`, `Cancel` and `Toggle` do
/// in each state, and what capture, session and server facts do to the open recording,
/// modelled on AVAudioRecorder.
///
/// A value: `handle(_:)` takes one event and returns what to do about it, in order. It owns
/// no thread, file or timer; the runtime carries the effects out and reports their outcomes
/// back as events, so every rule can be tested by feeding events and reading effects.
public struct RecorderMachine: Sendable {
    /// Where the recorder is: the open recording's phase (or, while a hands-free recording
    /// re-arms between two memos, the state it showed), else idle.
    public var state: RecorderState {
        open?.phase.state ?? recordings.values.lazy.compactMap(\.rearmingState).first ?? .idle
    }
    /// The defaults for the next recording.
    public private(set) var defaults: RecorderDefaults
    /// Each recording the machine still has to do with, by number, where it is in its life:
    /// starting, open, re-arming, being finalized, or being removed.
    public private(set) var recordings: [RecordingNumber: RecordingLife] = [:]
    /// The open recording: scheduled, waiting for sound, recording, paused or interrupted.
    /// At most one is open: a recording set open takes the place of any other.
    public private(set) var open: Recording? {
        get { recordings.values.lazy.compactMap(\.open).first }
        set {
            for (number, life) in recordings where life.open != nil && number != newValue?.number {
                recordings[number] = nil
            }
            if let newValue { recordings[newValue.number] = .open(newValue) }
        }
    }
    /// The `State` last announced, so that a change is announced once.
    private var announcedState: RecorderState = .idle
    /// The `ActiveOutput` last announced, likewise: it changes with the open recording too.
    private var announcedOutput = ""
    /// Whether someone watches the levels apart from the `isMeteringEnabled` setting.
    private var areLevelsWatched = false
    private var lastNumber: RecordingNumber = 0

    public init(defaults: RecorderDefaults) {
        self.defaults = defaults
    }

    /// Names of the files still being written (the open memo and those being finalized):
    /// not memos yet, so the library leaves them alone.
    public var filesInProgress: Set<String> {
        Set(([open].compactMap { $0 } + closingRecordings.map(\.recording)).map(\.fileName))
    }

    /// The recordings stopped but still being finalized.
    private var closingRecordings: [ClosingRecording] { recordings.values.compactMap(\.closing) }

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
        case .fileRemoved(let number, let result): fileRemoved(number, result)
        case .captureStarted(let number, let source): captureStarted(number, source: source)
        case .audioFlowing(let number): answerStart(number) { _ in true }
        case .captureFailedToStart(let number, let error): captureFailedToStart(number, error)
        case .captureLost(let number, let error): captureLost(number, error)
        case .captureRestored(let number, let source): captureRestored(number, source: source)
        case .systemAudioChanged(let number, let output, let isStart):
            systemAudioChanged(number, output: output, isStart: isStart)
        case .outputChanged:
            open.flatMap { $0.isCapturing && $0.request.systemAudio ? [.reopenSystemAudio($0.number)] : nil } ?? []
        case .soundStarted(let number): soundStarted(number)
        case .levelsMeasured(let number, let levels, let inputs, let time):
            open?.number == number && state == .recording
                ? [.notify(.levels(levels, inputs: inputs, currentTime: time))] : []
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
        if recording.phase == .paused { effects = [.resumeCapture(recording.number)] + enter(.recording) }
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
        switch recording.phase {
        case .recording:
            return [.pauseCapture(recording.number, droppingHeldAudio: false)] + enter(.paused)
                + [.synchronize(recording.number, then: reply)]
        case .paused:
            return [.synchronize(recording.number, then: reply)]
        case .interrupted where recording.isWaitingForSound, .scheduled(.onSound):
            let message = "the recording is waiting for sound; Stop or Cancel it, or wait for the sound"
            return [.answer(reply, .failure(.notRecording(message)))]
        case .interrupted(var interruption):
            // Takes effect when the interruptions end.
            interruption.returnTo = .paused
            recording.phase = .interrupted(interruption)
            open = recording
            return [.pauseCapture(recording.number, droppingHeldAudio: false), .answer(reply, .success(.done))]
        case .scheduled(.at):
            let message = "the recording has not started yet; Cancel it, or wait for its start time"
            return [.answer(reply, .failure(.notRecording(message)))]
        }
    }

    /// `Resume`: appends to the paused memo.
    private mutating func resume(_ reply: ReplyID) -> [RecorderEffect] {
        guard var recording = open else {
            return [.answer(reply, .failure(.notRecording("nothing is paused; call Record to start a memo")))]
        }
        var effects: [RecorderEffect] = []
        switch recording.phase {
        case .paused:
            effects = [.resumeCapture(recording.number)] + enter(.recording)
        case .interrupted where recording.isWaitingForSound:
            break  // nothing is paused: it goes on waiting once the interruptions end
        case .interrupted(var interruption):
            interruption.returnTo = .recording
            recording.phase = .interrupted(interruption)
            open = recording
            if !interruption.pausesCapture { effects = [.resumeCapture(recording.number)] }
        case .recording, .scheduled:
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
        let reserved = Set(closingRecordings.map(\.recording.memo.id))
        return [.prepareMemo(start, date: max(startDate, start.requestDate), reserved: reserved)]
    }

    private mutating func memoPrepared(
        _ start: RecordingStart, _ result: Result<MemoReference, RecorderError>
    ) -> [RecorderEffect] {
        if start.isRearm {
            for (number, life) in recordings where life.rearmingState != nil {
                recordings[number] = nil  // the next memo is named: the one before is done
            }
        }
        let memo: MemoReference
        switch result {
        case .success(let prepared): memo = prepared
        case .failure(let error): return startFailed(start.reply, error)
        }
        lastNumber += 1
        if let startTime = start.request.startTime, startTime > Self.unixTime(start.requestDate) {
            // Answered now, with the memo it will become.
            let recording = Recording(
                number: lastNumber, memo: memo, request: start.request, phase: .scheduled(.at(startTime)),
                start: .answered)
            open = recording
            return [.scheduleStart(recording.number, at: startTime)] + announce(also: [.currentMemo])
                + (start.reply.map { [$0.answer(.success(()), memo: memo)] } ?? [])
        }
        let recording = Recording(
            number: lastNumber, memo: memo, request: start.request, phase: start.request.openingPhase,
            start: start.reply.map { .awaited($0) } ?? .answered)
        return prepareCapture(recording, purpose: .start)
    }

    /// A start that did not get as far as a capture: its caller hears why; a re-armed
    /// recording that could not go on leaves the recorder idle.
    private mutating func startFailed(_ reply: PendingReply?, _ error: RecorderError) -> [RecorderEffect] {
        if let reply { return [.answer(reply.id, .failure(error))] }
        guard open == nil, announcedState != .idle else { return [] }
        return announce(also: [.currentMemo, .activeSource])
    }

    /// Creates the file (so a storage error answers the caller), then starts the capture. A
    /// recording that waits for sound gets its file when the sound comes: waiting leaves
    /// nothing on disk.
    private mutating func prepareCapture(_ recording: Recording, purpose: FilePurpose) -> [RecorderEffect] {
        if recording.request.startsOnSound { return startCapture(recording, purpose: purpose) }
        if purpose == .start { recordings[recording.number] = .starting(recording) } else { open = recording }
        return [.createFile(recording.number, recording.memo, recording.request, purpose)]
    }

    /// The file exists (or is not needed yet): the capture starts and the memo is open,
    /// recording or waiting for sound.
    private mutating func startCapture(_ recording: Recording, purpose: FilePurpose) -> [RecorderEffect] {
        var recording = recording
        recording.phase = recording.request.openingPhase
        open = recording
        let effects: [RecorderEffect] = [.startCapture(recording.number, recording.request, isMetering: isMetering)]
        return effects + announce(also: purpose == .start ? [.currentMemo] : [])
    }

    private mutating func fileCreated(
        _ number: RecordingNumber, _ purpose: FilePurpose, _ result: Result<Void, RecorderError>
    ) -> [RecorderEffect] {
        switch purpose {
        case .start:
            guard case .starting(let recording)? = recordings[number] else { return [] }
            recordings[number] = nil
            if case .failure(let error) = result { return startFailed(recording.start.reply, error) }
            return startCapture(recording, purpose: .start)
        case .scheduledStart:
            guard let recording = open, recording.number == number else { return [] }
            guard case .failure(let error) = result else { return startCapture(recording, purpose: .scheduledStart) }
            open = nil
            return announce(also: [.currentMemo])
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
            guard case .interrupted(var interruption) = recording.phase else {
                return [.attachFile(number)] + enter(.recording)
            }
            interruption.returnTo = .recording
            recording.phase = .interrupted(interruption)
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
        switch recording.phase {
        case .interrupted(var interruption):
            interruption.returnTo = .onSound(.heard)
            recording.phase = .interrupted(interruption)
        default:
            recording.phase = .scheduled(.onSound(.heard))
        }
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
        var answer: RecorderEffect?
        update(number) { recording in
            guard case .awaited(let reply) = recording.start, isDue(reply) else { return }
            recording.start = .answered
            answer = reply.answer(.success(()), memo: recording.memo)
        }
        return answer.map { [$0] } ?? []
    }

    /// Answered once the capture ends (the file is removed first), so a refused `Record`
    /// leaves nothing on disk by the time the caller hears of it.
    private mutating func captureFailedToStart(_ number: RecordingNumber, _ error: RecorderError) -> [RecorderEffect] {
        update(number) { $0.start = .failed(error, reply: $0.start.reply) }
        return []
    }

    // MARK: Closing

    /// Closes `recording` at the caller's request: `reply` is answered once its file is
    /// finalized (or, `cancelling`, removed).
    private mutating func close(
        _ recording: Recording, cancelling: Bool, reply: PendingReply?
    ) -> [RecorderEffect] {
        open = nil
        var effects = announce(also: [.currentMemo, .activeSource])
        guard recording.isCapturing else {
            // Scheduled but never started: no file was created.
            effects.append(.cancelStart(recording.number))
            if let reply { effects.append(reply.answer(.success(()), memo: recording.memo)) }
            return effects
        }
        recordings[recording.number] = .closing(
            ClosingRecording(
                recording: recording, reason: cancelling ? .cancelled : .stoppedByUser,
                awaitsLostCapture: recording.lostCapture != nil, replies: reply.map { [$0] } ?? []))
        return effects + [.stopCapture(recording.number)]
    }

    private mutating func captureEnded(
        _ number: RecordingNumber, _ ending: CaptureEnding, closeError: RecorderError?, recordedFrames: Int,
        now: Date
    ) -> [RecorderEffect] {
        // Closed by the user (stopped or cancelled), or ended by itself while open.
        let closed = recordings[number]?.closing
        guard let recording = closed?.recording ?? recordings[number]?.open else { return [] }
        if closed != nil { recordings[number] = nil }
        let isOpen = closed == nil
        var effects: [RecorderEffect] = [.cancelReconnectTimeout(number)]
        // A memo that waited for sound and ended on silence waits for the next sound: a
        // hands-free dictaphone, until Stop or Cancel. State goes from recording to scheduled.
        let rearms = ending == .silenceReached && recording.request.startsOnSound && isOpen && closeError == nil
        if isOpen {
            open = nil
            if rearms {
                recordings[number] = .rearming(shownState: announcedState)
            } else {
                effects += announce(also: [.currentMemo, .activeSource])
            }
        }
        var failure = closeError
        var successfully = closeError == nil
        switch ending {
        case .stopped, .durationReached, .silenceReached:
            break
        case .captureFailed(let error):
            // Stopped by the user while waiting for the server: what was captured is complete.
            successfully = !isOpen && closeError == nil
            failure = failure ?? error
        case .writeFailed(let error):
            successfully = false
            failure = error
            effects.append(.notify(.encodeFailed(recording.memo, message: error.message)))
        }
        let replies = closed?.replies ?? []
        let failedToStart = if case .failed = recording.start { true } else { false }
        let isCancelled = closed?.reason == .cancelled
        if recordedFrames == 0 && !isCancelled && !failedToStart {
            // Nothing captured (paused from the start, or the server failed at once): no memo.
            effects += [
                .removeFile(recording.memo, reportsTo: nil), .notify(.finished(recording.memo, successfully: false)),
            ]
            effects += finish(recording, replies: replies, .success(()))
        } else if failedToStart {
            effects.append(.removeFile(recording.memo, reportsTo: nil))
            // A start nobody waits for any more (scheduled, or re-armed) ends in the open.
            if recording.start.reply == nil { effects.append(.notify(.finished(recording.memo, successfully: false))) }
            effects += finish(recording, replies: replies, .failure(failure ?? .audioServer("capture did not start")))
        } else if let closed, isCancelled {
            recordings[number] = .removing(closed)
            effects.append(.removeFile(recording.memo, reportsTo: number))
        } else {
            if let closeError { effects.append(.notify(.encodeFailed(recording.memo, message: closeError.message))) }
            effects.append(.notify(.finished(recording.memo, successfully: successfully)))
            effects += finish(recording, replies: replies, closeError.map { .failure($0) } ?? .success(()))
        }
        if rearms {
            effects += requestMemo(for: RecordingStart(request: recording.request, reply: nil, requestDate: now))
        }
        return effects
    }

    /// A cancelled recording's file is removed (or could not be): its callers hear how.
    private mutating func fileRemoved(
        _ number: RecordingNumber, _ result: Result<Void, RecorderError>
    ) -> [RecorderEffect] {
        guard case .removing(let removed)? = recordings[number] else { return [] }
        recordings[number] = nil
        return finish(removed.recording, replies: removed.replies, result)
    }

    /// Answers everyone waiting for `recording` with `outcome`; a start that failed is
    /// answered with its own failure.
    private func finish(
        _ recording: Recording, replies: [PendingReply], _ outcome: Result<Void, RecorderError>
    ) -> [RecorderEffect] {
        var effects = replies.map { $0.answer(outcome, memo: recording.memo) }
        switch recording.start {
        case .awaited(let reply): effects.append(reply.answer(outcome, memo: recording.memo))
        case .failed(let error, let reply?): effects.append(reply.answer(.failure(error), memo: recording.memo))
        case .failed(_, nil), .answered: break
        }
        return effects
    }

    // MARK: Interruptions and routes

    /// While any interruption lasts `State` is `interrupted`; one that `pausesCapture` stops
    /// writing until it ends. A reason already in effect, or no capture, is ignored.
    private mutating func beginInterruption(
        _ reason: InterruptionReason, pausesCapture: Bool, shouldResume: Bool
    ) -> [RecorderEffect] {
        guard var recording = open else { return [] }
        var interruption: Interruption
        switch recording.phase {
        case .scheduled(.at): return []
        case .scheduled(.onSound(let wait)): interruption = Interruption(reasons: [:], returnTo: .onSound(wait))
        case .recording: interruption = Interruption(reasons: [:], returnTo: .recording)
        case .paused: interruption = Interruption(reasons: [:], returnTo: .paused)
        case .interrupted(let current):
            guard current.reasons[reason] == nil else { return [] }
            interruption = current
        }
        interruption.reasons[reason] = pausesCapture
        recording.phase = .interrupted(interruption)
        open = recording
        var effects: [RecorderEffect] = []
        if pausesCapture { effects.append(.pauseCapture(recording.number, droppingHeldAudio: false)) }
        return effects + announce() + [.notify(.interruption(reason, began: true, shouldResume: shouldResume))]
    }

    /// Ends an interruption; when none is left the recording returns to the phase it was in
    /// (recording again, paused, or waiting for sound), unless `resume` is false: then it is
    /// paused.
    private mutating func endInterruption(_ reason: InterruptionReason, resume: Bool) -> [RecorderEffect] {
        guard var recording = open, case .interrupted(var interruption) = recording.phase,
            interruption.reasons.removeValue(forKey: reason) != nil
        else {
            return []
        }
        var effects: [RecorderEffect] = [.notify(.interruption(reason, began: false, shouldResume: resume))]
        // A recording still waiting for sound has nothing to pause: it goes on waiting.
        if !resume && !recording.isWaitingForSound { interruption.returnTo = .paused }
        // Writing goes on as soon as nothing that stops it is left (a muted input does not).
        if !interruption.pausesCapture && interruption.returnTo != .paused {
            effects.append(.resumeCapture(recording.number))
        }
        recording.phase = interruption.reasons.isEmpty ? interruption.returnTo.phase : .interrupted(interruption)
        open = recording
        return effects + (interruption.reasons.isEmpty ? announce() : [])
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
        guard let recording = open, recording.number == number, recording.lostCapture == nil else { return [] }
        // The stream was open: whoever waits for audio to flow hears of the memo now, and
        // of the interruption from the signals, rather than wait out the reconnection.
        let answer = answerStart(number) { _ in true }
        let reason: InterruptionReason = if case .deviceLost = error { .deviceLost } else { .serverLost }
        let effects = answer + beginInterruption(reason, pausesCapture: false, shouldResume: true)
        guard reason == .serverLost else { return effects }
        return effects + [.scheduleReconnectTimeout(number, seconds: defaults.reconnectTimeout)]
    }

    /// The input feeding the open recording is gone and nothing may stand in for it (a pinned
    /// source unplugged, or only monitors of outputs left): the memo waits, interrupted with
    /// `device-lost` and writing nothing, until `inputReturned`. The audio a pinned recording
    /// holds back goes too: the server may already have put a stand-in under the stream.
    private mutating func inputLost() -> [RecorderEffect] {
        guard let recording = open, recording.isCapturing, recording.lostCapture == nil else { return [] }
        return [.pauseCapture(recording.number, droppingHeldAudio: true)]
            + beginInterruption(.deviceLost, pausesCapture: true, shouldResume: true)
    }

    /// The lost stream is back: the interruption ends and the route says where from. A
    /// stream reopened without a loss just carries on.
    private mutating func captureRestored(_ number: RecordingNumber, source: String) -> [RecorderEffect] {
        if var closed = recordings[number]?.closing {
            // Being finalized: only its reconnect timeout is left to cancel.
            guard closed.awaitsLostCapture else { return [] }
            closed.awaitsLostCapture = false
            closed.recording.activeSource = source
            recordings[number] = .closing(closed)
            return [.cancelReconnectTimeout(number)]
        }
        guard var recording = open, recording.number == number, let reason = recording.lostCapture else { return [] }
        let previous = recording.activeSource
        recording.activeSource = source
        open = recording
        var effects: [RecorderEffect] = [.cancelReconnectTimeout(number)]
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
        } else if var closed = recordings[number]?.closing {
            change(&closed.recording)
            recordings[number] = .closing(closed)
        }
    }

    /// A call's system side moved to `output`, or was lost (nil). `RouteChanged` says so with
    /// the outputs' names (an empty one: none): the default changed, the output went away, or
    /// one came back; an `output-lost` interruption begins with the loss and ends with the
    /// return, while the memo goes on recording the microphone.
    private mutating func systemAudioChanged(_ number: RecordingNumber, output: String?, isStart: Bool)
        -> [RecorderEffect]
    {
        guard let recording = open, recording.number == number, recording.activeOutput != output else { return [] }
        let previous = recording.activeOutput
        open?.activeOutput = output
        let reason: RouteChangeReason? =
            switch (previous, output) {
            case (nil, nil): nil
            case (nil, .some): isStart ? nil : .newDeviceAvailable
            case (.some, nil): .oldDeviceUnavailable
            case (.some, .some): .defaultChanged
            }
        guard let reason else { return announce() }
        let route = RecorderEffect.notify(.routeChanged(reason, from: previous ?? "", to: output ?? ""))
        switch reason {
        case .oldDeviceUnavailable:
            return announce() + [route, .notify(.interruption(.outputLost, began: true, shouldResume: true))]
        case .newDeviceAvailable:
            return announce() + [route, .notify(.interruption(.outputLost, began: false, shouldResume: true))]
        default:
            return announce() + [route]
        }
    }

    /// Moves the open recording to `phase` and announces what changed.
    private mutating func enter(_ phase: RecordingPhase) -> [RecorderEffect] {
        open?.phase = phase
        return announce()
    }

    /// Announces `State` and `ActiveOutput` if they changed since they were last announced,
    /// and `extra`. A recorder about to capture stops playback first.
    private mutating func announce(also extra: [RecorderProperty] = []) -> [RecorderEffect] {
        let newState = state
        let output = open?.activeOutput ?? ""
        let changed =
            (announcedState != newState ? [.state] : []) + extra + (announcedOutput != output ? [.activeOutput] : [])
        announcedState = newState
        announcedOutput = output
        guard !changed.isEmpty else { return [] }
        let capturesSoon = newState == .recording || open?.isWaitingForSound == true
        return (changed.contains(.state) && capturesSoon ? [.stopPlayback] : []) + [.notify(.changed(changed))]
    }

    /// Whole seconds since the epoch, as `start-at` counts them.
    static func unixTime(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}

extension RecordingRequest {
    /// The phase a recording opens in once its capture starts: waiting for sound, or recording.
    var openingPhase: RecordingPhase { startsOnSound ? .scheduled(.onSound(soundTrigger)) : .recording }
}
