import Dispatch
import FoundationEssentials
import VoiceMemoCore

/// The recorder at work: `RecorderMachine`'s rules, carried out with capture threads, files,
/// the journal and timers. Commands and facts go in as events; the machine says what to do.
///
/// Everything runs on `queue` (checked with `dispatchPrecondition`), so the state needs no
/// locks (hence `@unchecked Sendable`); completions are called there too, possibly later (a
/// start waits for the audio server, a stop for the file to be finalized).
public final class Recorder: @unchecked Sendable {
    public typealias Completion<Value> = (Result<Value, RecorderError>) -> Void

    /// What the recorder does, for any number of listeners, on its queue.
    public let notifications = Observers<RecorderNotification>()
    /// Told `true` when a start gets under way while none was, and `false` once none is: a
    /// `Record`, `RecordWithOptions` or `Toggle` until it is answered, and any capture (a
    /// call's, a start time's, a sound's) from its opening to its first audio. A start waits
    /// on the audio server then, which work run beside the recorder can slow.
    public let startsUnderway = Observers<Bool>()
    public let directory: MemoDirectory

    private var machine: RecorderMachine
    private let backend: RecordingBackend
    private let settings: SettingsStore?
    private let journal: RecordingJournal
    /// Stopped when a recording begins (recording over it would capture it), and told the
    /// `SkipSilence` and `PlaybackRate` settings, which are saved with the recorder's defaults.
    private let player: MemoPlayer?
    private let queue: DispatchQueue
    private let captureTimeouts: CaptureTimeouts
    private let now: () -> Date
    /// What each recording holds while it runs: its capture, file and timers.
    private var captures: [RecordingNumber: Capture] = [:]
    /// Callers waiting for an answer, by the number the machine knows them by.
    private var replies: [ReplyID: Completion<RecorderReply>] = [:]
    private var lastReply: ReplyID = 0
    /// Events sent while effects were being carried out, in order.
    private var waitingEvents: [RecorderEvent] = []
    private var isCarryingOut = false
    /// Start calls not yet answered.
    private var startCallsWaiting = 0 {
        didSet { announceStarts() }
    }
    /// Recordings whose capture was started and has not yet delivered audio.
    private var openingCaptures: Set<RecordingNumber> = [] {
        didSet { announceStarts() }
    }
    private var isStarting = false

    public init(
        directory: MemoDirectory, defaults: RecorderDefaults, settings: SettingsStore?, backend: RecordingBackend,
        player: MemoPlayer? = nil, queue: DispatchQueue, captureTimeouts: CaptureTimeouts = .standard,
        now: @escaping () -> Date = Date.init
    ) {
        self.directory = directory
        self.journal = RecordingJournal(directory: directory.path)
        self.machine = RecorderMachine(defaults: defaults)
        self.settings = settings
        self.backend = backend
        self.player = player
        player?.skipsSilence = defaults.skipsSilence
        player?.rate = defaults.playbackRate
        self.queue = queue
        self.captureTimeouts = captureTimeouts
        self.now = now
    }

    // MARK: What it is doing

    public var state: RecorderState { machine.state }
    /// The defaults for the next recording; every change is saved.
    public var defaults: RecorderDefaults { machine.defaults }
    /// The open memo, if any.
    public var currentMemo: MemoReference? { machine.open?.memo }
    /// Names of the files still being written; the library leaves them alone.
    public var filesInProgress: Set<String> { machine.filesInProgress }
    /// Whether the open recording waits for sound (listening: anything played would start it).
    public var isWaitingForSound: Bool { machine.open?.isWaitingForSound ?? false }
    /// Whether a memo is open or listening for sound: playback would be recorded, so it waits.
    public var isRecording: Bool { state.hasOpenMemo || isWaitingForSound }
    /// The source feeding the open recording, empty when none.
    public var activeSource: String { machine.open?.activeSource ?? "" }
    /// The sink whose monitor feeds the open recording's system audio, empty when none.
    public var activeOutput: String { machine.open?.activeOutput ?? "" }
    /// What the open recording was asked for, nil when nothing is open.
    public var currentRequest: RecordingRequest? { machine.open?.request }
    /// The title asked for the open memo, empty when none was given (or nothing is open).
    public var currentTitle: String { machine.open?.request.title ?? "" }
    /// The source the open recording was asked to record from; nil when it follows the default.
    public var pinnedSource: String? { machine.open?.request.source }
    /// Why the open recording waits for its capture stream, if it does.
    public var captureLoss: InterruptionReason? { machine.open?.lostCapture }

    /// Seconds recorded into the open memo, pauses excluded.
    public var currentTime: Double { openPipeline?.currentTime ?? 0 }

    /// The levels of the last metering window while recording; silence otherwise.
    public var levels: Levels {
        guard state == .recording, let pipeline = openPipeline else {
            return .silence(channels: Int(machine.open?.request.channels ?? defaults.channels))
        }
        return pipeline.levels
    }

    /// Each input's levels in the last metering window while recording, in `CaptureInput`
    /// order (one for a single input, two for a call); silence on each while not recording,
    /// and none while no memo is open.
    public var inputLevels: [Levels] {
        guard let open = machine.open else { return [] }
        guard state == .recording, let pipeline = openPipeline else {
            return CapturePipeline.silentInputs(open.request)
        }
        return pipeline.inputLevels
    }

    private var openPipeline: CapturePipeline? { machine.open.flatMap { pipeline($0.number) } }

    // MARK: Commands

    /// `Record`: starts a memo with the defaults when idle, resumes when paused, and
    /// otherwise returns the open memo.
    public func record(completion: @escaping Completion<MemoReference>) {
        send(.record(expect(\.memo, underway(completion)), now: now()))
    }

    /// `RecordWithOptions`: starts a memo with per-recording options; `busy` unless idle.
    public func record(options: [String: OptionValue], completion: @escaping Completion<MemoReference>) {
        send(.recordWithOptions(expect(\.memo, underway(completion)), options, now: now()))
    }

    /// `Pause`: `completion` runs once the file on disk holds every frame recorded before it.
    public func pause(completion: @escaping Completion<Void>) {
        send(.pause(expect(\.done, completion)))
    }

    /// `Pause`, throwing at once when nothing can be paused. Not from a listener: the event
    /// would wait its turn and the answer come too late.
    public func pause() throws(RecorderError) {
        precondition(!isCarryingOut, "pause() from a recorder listener cannot be answered at once")
        var outcome: Result<Void, RecorderError>?
        send(.pause(expect(\.done) { outcome = $0 }))
        if case .failure(let error)? = outcome { throw error }
    }

    /// `Resume`: appends to the paused memo, answered at once. Not from a listener: the event
    /// would wait its turn and the answer come too late.
    public func resume() throws(RecorderError) {
        precondition(!isCarryingOut, "resume() from a recorder listener cannot be answered at once")
        var outcome: Result<Void, RecorderError>?
        send(.resume(expect(\.done) { outcome = $0 }))
        try outcome?.get()
    }

    /// `Stop`: finishes the open memo; `completion` runs once the file is finalized.
    public func stop(completion: @escaping Completion<MemoReference>) {
        send(.stop(expect(\.memo, completion)))
    }

    /// `Cancel`: stops and deletes the open memo; `completion` runs once nothing is left on disk.
    public func cancel(completion: @escaping Completion<Void>) {
        send(.cancel(expect(\.done, completion)))
    }

    /// `Toggle`: starts when idle, otherwise stops; returns the state this toggle moved to.
    public func toggle(completion: @escaping Completion<RecorderState>) {
        send(.toggle(expect(\.state, underway(completion)), now: now()))
    }

    /// Changes the defaults for the next recording and saves them.
    /// Not from a listener: a change queued behind another would start from stale defaults.
    public func updateDefaults(_ change: (inout RecorderDefaults) throws(RecorderError) -> Void) throws(RecorderError) {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(!isCarryingOut, "updateDefaults from a recorder listener would start from stale defaults")
        var updated = defaults
        try change(&updated)
        guard updated != defaults else { return }
        try settings?.save(updated)
        player?.skipsSilence = updated.skipsSilence
        player?.rate = updated.playbackRate
        send(.defaultsChanged(updated))
    }

    /// Meters the recording while `isWatched`, whatever the `isMeteringEnabled` setting says.
    public func setLevelsWatched(_ isWatched: Bool) {
        send(.levelsWatched(isWatched))
    }

    // MARK: The session and the audio server

    /// Interrupts the open recording (system sleep, another session taking the seat, a muted
    /// input); one that `pausesCapture` stops writing until it ends.
    public func beginInterruption(_ reason: InterruptionReason, pausesCapture: Bool, shouldResume: Bool = true) {
        send(.interruptionBegan(reason, pausesCapture: pausesCapture, shouldResume: shouldResume))
    }

    /// Ends an interruption; `resume` false leaves the recording paused once none is left.
    public func endInterruption(_ reason: InterruptionReason, resume: Bool = true) {
        send(.interruptionEnded(reason, resume: resume))
    }

    /// The server moved the open recording's stream to `source`; `reason` nil announces no change.
    public func changeRoute(_ reason: RouteChangeReason?, to source: String) {
        send(.routeChanged(reason, source: source))
    }

    /// The open recording's input is gone and nothing may stand in for it.
    public func inputLost() { send(.inputLost) }

    /// An input fit for the open recording is back: its capture stream is opened again.
    public func inputReturned() { send(.inputReturned) }

    /// Opens the open recording's capture stream again, for an input the server did not move it to.
    public func reopenCapture() { send(.inputChanged) }

    /// A call's system side should record the default output again (see `OutputFollowing`).
    public func followOutput() { send(.outputChanged) }

    /// Flushes the open memo's file to disk (audio and header) and calls `completion` on the
    /// recorder's queue; at once when no memo is being written. Before system sleep, it makes
    /// the file on disk hold every frame.
    public func synchronizeOpenMemo(completion: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let pipeline = openPipeline else { return completion() }
        pipeline.synchronize(completion: completion)
    }

    // MARK: Carrying out the rules

    /// Hands `event` to the rules and carries out what they say, in order. An event sent
    /// while effects are being carried out waits its turn: a listener that answers a
    /// notification with a command (the route monitor interrupting a recording that just
    /// started on a muted input) acts once every listener has heard the notification.
    private func send(_ event: RecorderEvent) {
        dispatchPrecondition(condition: .onQueue(queue))
        waitingEvents.append(event)
        guard !isCarryingOut else { return }
        isCarryingOut = true
        defer { isCarryingOut = false }
        while !waitingEvents.isEmpty { apply(waitingEvents.removeFirst()) }
    }

    /// Applies `event` and carries out its effects in order. The outcomes of effects that
    /// have one (a memo named, a file created or removed) come back as events, applied next:
    /// after this event's effects, before any event a listener sent meanwhile.
    private func apply(_ event: RecorderEvent) {
        let outcomes = machine.handle(event).compactMap { perform($0) }
        waitingEvents.insert(contentsOf: outcomes, at: 0)
    }

    /// `completion`, counted as a start under way until it runs.
    private func underway<Value>(_ completion: @escaping Completion<Value>) -> Completion<Value> {
        startCallsWaiting += 1
        return { [weak self] result in
            self?.startCallsWaiting -= 1
            completion(result)
        }
    }

    private func announceStarts() {
        let isStarting = startCallsWaiting > 0 || !openingCaptures.isEmpty
        guard isStarting != self.isStarting else { return }
        self.isStarting = isStarting
        startsUnderway.notify(isStarting)
    }

    /// Keeps `completion` until the machine answers it; `value` picks its reply's payload.
    private func expect<Value>(
        _ value: @escaping (RecorderReply) -> Value?, _ completion: @escaping Completion<Value>
    ) -> ReplyID {
        lastReply += 1
        replies[lastReply] = { result in
            completion(
                result.map { reply in
                    guard let payload = value(reply) else { preconditionFailure("\(reply) answers another command") }
                    return payload
                })
        }
        return lastReply
    }

    /// Carries out `effect`; returns its outcome, for the rules, when it has one.
    private func perform(_ effect: RecorderEffect) -> RecorderEvent? {
        switch effect {
        case .answer(let id, let result):
            replies.removeValue(forKey: id)?(result)
        case .prepareMemo(let start, let date, let reserved):
            return .memoPrepared(start, prepareMemo(start.request, date: date, reserved: reserved))
        case .createFile(let number, let memo, let request, let purpose):
            let result = Result { () throws(RecorderError) in try createFile(number, memo, request) }
            return .fileCreated(number, purpose, result)
        case .removeFile(let memo, let number):
            let result = Result { () throws(RecorderError) in try directory.remove(memo) }
            return number.map { .fileRemoved($0, result) }
        case .startCapture(let number, let request, let isMetering):
            startCapture(number, request, isMetering: isMetering)
        case .attachFile(let number):
            var file: AudioFileSink?
            updateRunning(number) { swap(&file, &$0.fileToAttach) }
            if let file { pipeline(number)?.attach(file) }
        case .pauseCapture(let number, let droppingHeldAudio):
            pipeline(number)?.pause(droppingHeldAudio: droppingHeldAudio)
        case .resumeCapture(let number):
            pipeline(number)?.resume()
        case .synchronize(let number, let reply):
            guard let pipeline = pipeline(number) else { return perform(.answer(reply, .success(.done))) }
            pipeline.synchronize { [weak self] in _ = self?.perform(.answer(reply, .success(.done))) }
        case .stopCapture(let number):
            pipeline(number)?.stop()
        case .giveUpCapture(let number):
            pipeline(number)?.giveUp()
        case .reopenCapture(let number, let afterLoss):
            pipeline(number)?.reopen(afterLoss: afterLoss)
        case .reopenSystemAudio(let number):
            pipeline(number)?.reopenSystemAudio()
        case .setMetering(let number, let isOn):
            pipeline(number)?.isMeteringEnabled = isOn
        case .scheduleStart(let number, let startTime):
            let delay = Double(startTime) - now().timeIntervalSince1970
            captures[number] = .scheduled(
                startTimer: timer(wallDelay: delay) {
                    $0.captures[number] = nil  // fired: the start makes the capture anew
                    $0.send(.startTimeReached(number))
                })
        case .cancelStart(let number):
            if case .scheduled(let startTimer)? = captures.removeValue(forKey: number) { startTimer.cancel() }
        case .scheduleReconnectTimeout(let number, let seconds):
            updateRunning(number) {
                $0.reconnectTimer = timer(delay: seconds) { $0.send(.reconnectTimedOut(number)) }
            }
        case .cancelReconnectTimeout(let number):
            updateRunning(number) { capture in
                capture.reconnectTimer?.cancel()
                capture.reconnectTimer = nil
            }
        case .stopPlayback:
            player?.stop()
        case .notify(let notification):
            notifications.notify(notification)
        }
        return nil
    }

    private func prepareMemo(
        _ request: RecordingRequest, date: Date, reserved: Set<String>
    ) -> Result<MemoReference, RecorderError> {
        Result { () throws(RecorderError) in
            try directory.prepare()
            return directory.newMemo(date: date, title: request.title, format: request.format, reserved: reserved)
        }
    }

    /// Lists the memo in the journal (so a crash leaves it repairable) and creates its file.
    private func createFile(
        _ number: RecordingNumber, _ memo: MemoReference, _ request: RecordingRequest
    ) throws(RecorderError) {
        let fileName = memo.fileName
        let tags = MemoTags(title: request.title, date: now().formatted(.iso8601))
        try journal.add(fileName)
        do {
            let file = try backend.makeFileSink(path: memo.path, request: request, tags: tags)
            if case .running(var capture) = captures[number] {
                capture.fileToAttach = file  // the sound came: the pipeline takes it next
                capture.journaledName = fileName
                captures[number] = .running(capture)
            } else {
                captures[number] = .fileCreated(file, journaledName: fileName)
            }
        } catch {
            journal.remove(fileName)
            throw error
        }
    }

    /// Starts moving audio into the recording's file (if it has one yet); the pipeline's
    /// reports come back as events.
    private func startCapture(_ number: RecordingNumber, _ request: RecordingRequest, isMetering: Bool) {
        var file: AudioFileSink?
        var journaledName: String?
        if case .fileCreated(let created, let name) = captures[number] { (file, journaledName) = (created, name) }
        let pipeline = CapturePipeline(
            request: request, backend: backend, sink: file, callbackQueue: queue, timeouts: captureTimeouts
        ) { [weak self] event in self?.captureReported(event, by: number) }
        pipeline.isMeteringEnabled = isMetering
        captures[number] = .running(RunningCapture(pipeline: pipeline, journaledName: journaledName))
        openingCaptures.insert(number)
        pipeline.start()
    }

    /// Hands what recording `number`'s pipeline reports to the rules.
    private func captureReported(_ event: CapturePipeline.Event, by number: RecordingNumber) {
        switch event {
        case .audioFlowing, .started(.failure), .ended: openingCaptures.remove(number)
        default: break
        }
        switch event {
        case .started(.success(let source)): send(.captureStarted(number, source: source))
        case .started(.failure(let error)): send(.captureFailedToStart(number, error))
        case .audioFlowing: send(.audioFlowing(number))
        case .soundStarted: send(.soundStarted(number))
        case .levels(let levels, let inputs, let time):
            send(.levelsMeasured(number, levels, inputs: inputs, currentTime: time))
        case .captureLost(let error): send(.captureLost(number, error))
        case .captureRestored(let source): send(.captureRestored(number, source: source))
        case .systemAudioChanged(let output, let isStart):
            send(.systemAudioChanged(number, output: output, isStart: isStart))
        case .ended(let ending, let closeError): captureEnded(number, ending, closeError)
        }
    }

    /// The file is closed: the rules hear how the capture ended, then the journal lets go of it.
    private func captureEnded(_ number: RecordingNumber, _ ending: CaptureEnding, _ closeError: RecorderError?) {
        guard case .running(let capture)? = captures.removeValue(forKey: number) else { return }
        capture.reconnectTimer?.cancel()
        let frames = capture.pipeline.recordedFrames
        send(.captureEnded(number, ending, closeError: closeError, recordedFrames: frames, now: now()))
        if let name = capture.journaledName { journal.remove(name) }
    }

    /// The pipeline of recording `number`, if it runs.
    private func pipeline(_ number: RecordingNumber) -> CapturePipeline? {
        if case .running(let capture) = captures[number] { capture.pipeline } else { nil }
    }

    /// Changes what recording `number` holds while its pipeline runs; nothing otherwise.
    private func updateRunning(_ number: RecordingNumber, _ change: (inout RunningCapture) -> Void) {
        guard case .running(var capture) = captures[number] else { return }
        change(&capture)
        captures[number] = .running(capture)
    }

    /// A timer on the recorder's queue that sends what `fire` says after `delay` seconds.
    private func timer(delay: Double, _ fire: @escaping (Recorder) -> Void) -> DispatchSourceTimer {
        makeTimer(fire) { $0.schedule(deadline: .now() + .delay(seconds: delay)) }
    }

    /// As `timer(delay:_:)`, by the wall clock: a start time holds across a system sleep.
    private func timer(wallDelay delay: Double, _ fire: @escaping (Recorder) -> Void) -> DispatchSourceTimer {
        makeTimer(fire) { $0.schedule(wallDeadline: .now() + .delay(seconds: delay)) }
    }

    private func makeTimer(
        _ fire: @escaping (Recorder) -> Void, scheduling schedule: (DispatchSourceTimer) -> Void
    ) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        schedule(timer)
        nonisolated(unsafe) let fire = fire  // called on the recorder's queue, where it was made
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            fire(self)
        }
        timer.activate()
        return timer
    }
}

/// What one recording holds, stage by stage.
private enum Capture {
    /// Waiting for its start time.
    case scheduled(startTimer: DispatchSourceTimer)
    /// Its file is created and listed in the journal under `journaledName`; the capture that
    /// starts next takes it.
    case fileCreated(AudioFileSink, journaledName: String)
    /// Its pipeline runs.
    case running(RunningCapture)
}

/// What a recording whose pipeline runs holds.
private struct RunningCapture {
    let pipeline: CapturePipeline
    /// The file's name in the journal: none while a recording that waits for sound has no file.
    var journaledName: String?
    /// The file made when the sound came, until the pipeline takes it.
    var fileToAttach: AudioFileSink?
    /// Ends the wait for a lost audio server, while one is waited for.
    var reconnectTimer: DispatchSourceTimer?
}

extension RecorderReply {
    fileprivate var memo: MemoReference? {
        if case .memo(let memo) = self { memo } else { nil }
    }
    fileprivate var done: Void? {
        if case .done = self { () } else { nil }
    }
    fileprivate var state: RecorderState? {
        if case .state(let state) = self { state } else { nil }
    }
}
