import Dispatch
import FoundationEssentials
import VoiceMemoCore

/// The recorder's state machine: what `Record`, `Pause`, `Resume`, `Stop`, `Cancel` and
/// `Toggle` do in each state, modelled on AVAudioRecorder.
///
/// Everything runs on `queue` (checked with `dispatchPrecondition`), so the state needs no
/// locks (hence `@unchecked Sendable`); completions are called there too, possibly later (a start waits for the audio
/// server, a stop for the file to be finalized).
public final class Recorder: @unchecked Sendable {
    public typealias Completion<Value> = (Result<Value, RecorderError>) -> Void

    public weak var observer: RecorderObserver?
    public let directory: MemoDirectory

    public private(set) var state: RecorderState = .idle
    /// The defaults for the next `record()`; every change is saved.
    public private(set) var defaults: RecorderDefaults

    private let backend: RecordingBackend
    private let settings: SettingsStore?
    private let journal: RecordingJournal
    private let queue: DispatchQueue
    private let captureTimeouts: CaptureTimeouts
    private let now: () -> Date
    private var open: OpenRecording?
    /// Whether someone watches the levels apart from the `isMeteringEnabled` setting.
    private var areLevelsWatched = false
    /// Recordings stopped but still being finalized, by memo id.
    private var closing: [String: OpenRecording] = [:]

    public init(
        directory: MemoDirectory, defaults: RecorderDefaults, settings: SettingsStore?, backend: RecordingBackend,
        queue: DispatchQueue, captureTimeouts: CaptureTimeouts = .standard, now: @escaping () -> Date = Date.init
    ) {
        self.directory = directory
        self.journal = RecordingJournal(directory: directory.path)
        self.defaults = defaults
        self.settings = settings
        self.backend = backend
        self.queue = queue
        self.captureTimeouts = captureTimeouts
        self.now = now
    }

    /// The open memo, if any.
    public var currentMemo: MemoReference? { open?.memo }

    /// Seconds recorded into the open memo, pauses excluded.
    public var currentTime: Double { open?.pipeline?.currentTime ?? 0 }

    /// Names of the files still being written (the open memo and those being finalized):
    /// not memos yet, so the library leaves them alone.
    public var filesInProgress: Set<String> {
        Set(([open].compactMap { $0 } + Array(closing.values)).map(\.fileName))
    }

    /// The levels of the last metering window while recording; silence otherwise.
    public var levels: Levels {
        guard state == .recording, let pipeline = open?.pipeline else {
            return .silence(channels: Int(open?.request.channels ?? defaults.channels))
        }
        return pipeline.levels
    }

    /// Whether the open recording waits for sound (listening: anything played would start it).
    public var isWaitingForSound: Bool { open?.isWaitingForSound ?? false }

    /// The source feeding the open recording, empty when none.
    public var activeSource: String { open?.activeSource ?? "" }

    /// The title asked for the open memo, empty when none was given (or nothing is open).
    public var currentTitle: String { open?.request.title ?? "" }

    // MARK: Requests

    /// `Record`: starts a memo with the defaults when idle, resumes when paused, and
    /// otherwise returns the open memo.
    public func record(completion: @escaping Completion<MemoReference>) {
        dispatchPrecondition(condition: .onQueue(queue))
        switch state {
        case .idle:
            start(RecordingRequest(defaults: defaults), completion: completion)
        case .paused:
            resumeOpen()
            completion(.success(open!.memo))
        case .recording, .scheduled, .interrupted:
            completion(.success(open!.memo))
        }
    }

    /// `RecordWithOptions`: starts a memo with per-recording options; `busy` unless idle.
    public func record(options: [String: OptionValue], completion: @escaping Completion<MemoReference>) {
        dispatchPrecondition(condition: .onQueue(queue))
        let request: RecordingRequest
        do {
            request = try RecordingRequest(defaults: defaults, options: options, now: unixNow)
        } catch {
            return completion(.failure(error))
        }
        guard state == .idle else {
            return completion(
                .failure(.busy("a recording is already open (\(open!.memo.id)); Stop or Cancel it first")))
        }
        start(request, completion: completion)
    }

    /// `Pause` as the bus answers it: `completion` runs once the file on disk holds every
    /// frame recorded before the pause (at once when interrupted: a lost stream has nothing
    /// in flight, and a sleep or muted input syncs on its own).
    public func pause(completion: @escaping Completion<Void>) {
        dispatchPrecondition(condition: .onQueue(queue))
        do {
            try pause()
        } catch {
            return completion(.failure(error))
        }
        guard state == .paused else { return completion(.success(())) }
        // The sync completes on this queue, as every completion does.
        nonisolated(unsafe) let reply = completion
        synchronizeOpenMemo { reply(.success(())) }
    }

    /// `Pause`: stops writing audio; the file stays valid on disk.
    public func pause() throws(RecorderError) {
        dispatchPrecondition(condition: .onQueue(queue))
        switch state {
        case .recording:
            open!.pipeline!.pause()
            setState(.paused)
        case .interrupted where open!.isWaitingForSound:
            throw .notRecording("the recording is waiting for sound; Stop or Cancel it, or wait for the sound")
        case .interrupted:
            // Takes effect when the interruptions end.
            open!.pipeline?.pause()
            open!.interruptions.stateBefore = .paused
        case .paused:
            break
        case .scheduled where open!.timer == nil:
            throw .notRecording("the recording is waiting for sound; Stop or Cancel it, or wait for the sound")
        case .scheduled:
            throw .notRecording("the recording has not started yet; Cancel it, or wait for its start time")
        case .idle:
            throw .notRecording("nothing is being recorded; call Record first")
        }
    }

    /// `Resume`: appends to the paused memo.
    public func resume() throws(RecorderError) {
        dispatchPrecondition(condition: .onQueue(queue))
        switch state {
        case .paused: resumeOpen()
        case .interrupted:
            let recording = open!
            recording.interruptions.stateBefore = .recording
            if !recording.interruptions.pausesCapture { recording.pipeline?.resume() }
        case .recording, .scheduled: break
        case .idle: throw .notRecording("nothing is paused; call Record to start a memo")
        }
    }

    /// `Stop`: finishes the open memo; `completion` runs once the file is finalized. A
    /// memo still waiting for its start time or for sound is dropped, as nothing was recorded.
    public func stop(completion: @escaping Completion<MemoReference>) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let recording = open else {
            return completion(.failure(.notRecording("nothing is being recorded; there is nothing to stop")))
        }
        close(recording, cancelling: recording.pipeline == nil || recording.isWaitingForSound) { result in
            completion(result.map { recording.memo })
        }
    }

    /// `Cancel`: stops and deletes the open memo; `completion` runs once nothing is left on disk.
    public func cancel(completion: @escaping Completion<Void>) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let recording = open else {
            return completion(.failure(.notRecording("nothing is being recorded; there is nothing to cancel")))
        }
        close(recording, cancelling: true, completion: completion)
    }

    /// `Toggle`: starts when idle, otherwise stops; returns the state this toggle moved to
    /// (read right after the transition: later calls may move on before the reply is sent).
    public func toggle(completion: @escaping Completion<RecorderState>) {
        dispatchPrecondition(condition: .onQueue(queue))
        if state == .idle {
            record { result in completion(result.map { _ in .recording }) }
        } else {
            stop { result in completion(result.map { _ in .idle }) }
        }
    }

    /// Changes the defaults for the next `record()` and saves them.
    public func updateDefaults(_ change: (inout RecorderDefaults) throws(RecorderError) -> Void) throws(RecorderError) {
        dispatchPrecondition(condition: .onQueue(queue))
        var updated = defaults
        try change(&updated)
        guard updated != defaults else { return }
        try settings?.save(updated)
        let changed = RecorderProperty.defaultsProperties.filter { $0.value(in: updated) != $0.value(in: defaults) }
        defaults = updated
        open?.pipeline?.isMeteringEnabled = isMetering
        observer?.recorder(self, didChange: changed)
    }

    /// Meters the recording while `isWatched`, whatever the `isMeteringEnabled` setting
    /// says, which stays as it is: for live meters, so a meter that dies changes no setting.
    public func setLevelsWatched(_ isWatched: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        areLevelsWatched = isWatched
        open?.pipeline?.isMeteringEnabled = isMetering
    }

    /// Whether levels are measured and reported: the setting is on, or someone watches them.
    private var isMetering: Bool { defaults.isMeteringEnabled || areLevelsWatched }

    // MARK: Transitions

    private var unixNow: Int64 { Int64(now().timeIntervalSince1970.rounded(.down)) }

    private func start(_ request: RecordingRequest, completion: @escaping Completion<MemoReference>) {
        do {
            try directory.prepare()
        } catch {
            return completion(.failure(error))
        }
        let startDate = request.startTime.map { Date(timeIntervalSince1970: Double($0)) } ?? now()
        let memo = directory.newMemo(
            date: max(startDate, now()), title: request.title, format: request.format, reserved: Set(closing.keys))
        let recording = OpenRecording(memo: memo, request: request)
        if let startTime = request.startTime, startTime > unixNow {
            schedule(recording, at: startTime)
            open = recording
            setState(.scheduled, also: [.currentMemo])
            return completion(.success(memo))
        }
        do {
            try beginCapture(recording, completion: completion)
        } catch {
            return completion(.failure(error))
        }
        open = recording
        setState(recording.isWaitingForSound ? .scheduled : .recording, also: [.currentMemo])
    }

    private func schedule(_ recording: OpenRecording, at startTime: Int64) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(wallDeadline: .now() + .delay(seconds: Double(startTime) - now().timeIntervalSince1970))
        timer.setEventHandler { [weak self, unowned recording] in
            guard let self, open === recording else { return }
            recording.timer = nil
            do throws(RecorderError) {
                try beginCapture(recording) { _ in }
                setState(recording.isWaitingForSound ? .scheduled : .recording)
            } catch {
                open = nil
                setState(.idle, also: [.currentMemo])
                observer?.recorder(self, didFailToEncode: recording.memo, message: error.message)
                observer?.recorder(self, didFinish: recording.memo, successfully: false)
            }
        }
        recording.timer = timer
        timer.activate()
    }

    /// Creates the file (so a storage error answers the caller) and starts the pipeline;
    /// `completion` runs once audio flows or the server refuses. A recording that waits for
    /// sound gets its file when the sound comes (`soundStarted`): waiting leaves nothing on disk.
    private func beginCapture(_ recording: OpenRecording, completion: @escaping Completion<MemoReference>)
        throws(RecorderError)
    {
        recording.isWaitingForSound = recording.request.startsOnSound
        let sink = recording.isWaitingForSound ? nil : try createFile(recording)
        let pipeline = CapturePipeline(
            request: recording.request, backend: backend, sink: sink, callbackQueue: queue, timeouts: captureTimeouts)
        pipeline.onStarted = { [weak self, unowned recording] result in
            self?.captureStarted(recording, result: result, completion: completion)
        }
        pipeline.onEnded = { [weak self, unowned recording] ending, closeError in
            self?.captureEnded(recording, ending: ending, closeError: closeError)
        }
        pipeline.onCaptureLost = { [weak self, unowned recording] error in
            self?.captureLost(recording, error)
        }
        pipeline.onCaptureRestored = { [weak self, unowned recording] source in
            self?.captureRestored(recording, source: source)
        }
        pipeline.onLevels = { [weak self, unowned recording] levels, time in
            guard let self, open === recording, state == .recording else { return }
            observer?.recorder(self, didMeasure: levels, currentTime: time)
        }
        pipeline.onSoundStarted = { [weak self, unowned recording] in
            self?.soundStarted(recording)
        }
        pipeline.isMeteringEnabled = isMetering
        recording.pipeline = pipeline
        recording.keepAlive = recording
        pipeline.start()
    }

    /// Lists the memo in the journal and creates its file.
    private func createFile(_ recording: OpenRecording) throws(RecorderError) -> AudioFileSink {
        let tags = MemoTags(title: recording.request.title, date: now().formatted(.iso8601))
        try journal.add(recording.fileName)
        do {
            return try backend.makeFileSink(path: recording.memo.path, request: recording.request, tags: tags)
        } catch {
            journal.remove(recording.fileName)
            throw error
        }
    }

    /// The recording waiting for sound heard it: its file is created and the memo begins,
    /// with the pre-roll the pipeline kept. A file that cannot be created ends the wait
    /// unsuccessfully (`EncodeError`, then `RecordingFinished(memo, false)`).
    private func soundStarted(_ recording: OpenRecording) {
        guard open === recording, recording.isWaitingForSound else { return }
        recording.isWaitingForSound = false
        do {
            recording.pipeline!.attach(try createFile(recording))
        } catch {
            observer?.recorder(self, didFailToEncode: recording.memo, message: error.message)
            observer?.recorder(self, didFinish: recording.memo, successfully: false)
            close(recording, cancelling: true) { _ in }
            return
        }
        if state == .interrupted {
            recording.interruptions.stateBefore = .recording
        } else {
            setState(.recording)
        }
    }

    private func captureStarted(
        _ recording: OpenRecording, result: Result<String, RecorderError>,
        completion: @escaping Completion<MemoReference>
    ) {
        switch result {
        case .success(let source):
            recording.activeSource = source
            if open === recording { observer?.recorder(self, didChange: [.activeSource]) }
            completion(.success(recording.memo))
        case .failure(let error):
            // Answered once the file is gone (captureEnded follows at once), so a refused
            // Record leaves nothing on disk by the time the caller hears of it.
            recording.failedToStart = true
            recording.completions.append { _ in completion(.failure(error)) }
        }
    }

    /// Starts an interruption of the open recording from outside the capture path (system
    /// sleep, another session taking the seat, a muted input). While any interruption lasts
    /// `State` is `interrupted`; one that `pausesCapture` stops writing until it ends. A
    /// reason already in effect, or no open recording, is ignored.
    public func beginInterruption(_ reason: InterruptionReason, pausesCapture: Bool, shouldResume: Bool = true) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let recording = open, recording.pipeline != nil, recording.interruptions.reasons[reason] == nil else {
            return
        }
        if recording.interruptions.reasons.isEmpty { recording.interruptions.stateBefore = state }
        recording.interruptions.reasons[reason] = pausesCapture
        if pausesCapture { recording.pipeline?.pause() }
        setState(.interrupted)
        observer?.recorder(self, interruption: reason, began: true, shouldResume: shouldResume)
    }

    /// Flushes the open memo's file to disk (audio and header) and calls `completion` on the
    /// recorder's queue; at once when no memo is being written. Before system sleep, after
    /// an interruption that pauses capture, it makes the file on disk hold every frame.
    public func synchronizeOpenMemo(completion: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let pipeline = open?.pipeline else { return completion() }
        pipeline.synchronize(completion: completion)
    }

    /// Ends an interruption; when none is left the recording returns to the state it was in
    /// (recording again, or paused), unless `resume` is false: then it stays paused.
    public func endInterruption(_ reason: InterruptionReason, resume: Bool = true) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let recording = open, recording.interruptions.reasons.removeValue(forKey: reason) != nil else { return }
        observer?.recorder(self, interruption: reason, began: false, shouldResume: resume)
        if !resume { recording.interruptions.stateBefore = .paused }
        // Writing goes on as soon as nothing that stops it is left (a muted input does not).
        if !recording.interruptions.pausesCapture,
            [.recording, .scheduled].contains(recording.interruptions.stateBefore)
        {
            recording.pipeline?.resume()
        }
        guard recording.interruptions.reasons.isEmpty else { return }
        setState(recording.interruptions.stateBefore)
    }

    /// The input feeding the open recording changed (the server moved the stream): the
    /// route change is announced (unless `reason` is nil) and `ActiveSource` follows.
    public func changeRoute(_ reason: RouteChangeReason?, to source: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let recording = open, recording.pipeline != nil else { return }
        let previous = recording.activeSource
        recording.activeSource = source
        if previous != source { observer?.recorder(self, didChange: [.activeSource]) }
        if let reason { observer?.recorder(self, didChangeRoute: reason, from: previous, to: source) }
    }

    /// The source the open recording was asked to record from; nil when it follows the default.
    public var pinnedSource: String? { open?.request.source }

    /// Why the open recording waits for its capture stream, if it does.
    public var captureLoss: InterruptionReason? { open?.lostCapture }

    /// The server or device went away mid-recording: the memo waits, interrupted, for it to
    /// come back. A server that is not back within `reconnectTimeout` finishes the memo
    /// unsuccessfully; a device is waited for like a pause, until it returns or `Stop`.
    private func captureLost(_ recording: OpenRecording, _ error: RecorderError) {
        guard open === recording, recording.lostCapture == nil else { return }
        let reason: InterruptionReason = if case .deviceLost = error { .deviceLost } else { .serverLost }
        recording.lostCapture = reason
        beginInterruption(reason, pausesCapture: false)
        guard reason == .serverLost else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .delay(seconds: defaults.reconnectTimeout))
        timer.setEventHandler { [weak recording] in recording?.pipeline?.giveUp() }
        recording.reconnectTimer = timer
        timer.activate()
    }

    /// The input feeding the open recording is gone and nothing may stand in for it (a
    /// pinned source unplugged, or only monitors of outputs left): the memo waits,
    /// interrupted with `device-lost` and writing nothing, until `inputReturned()`. The audio
    /// a pinned recording holds back goes too: the server may already have put a stand-in
    /// under the stream.
    public func inputLost() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let recording = open, let pipeline = recording.pipeline, recording.lostCapture == nil else { return }
        recording.lostCapture = .deviceLost
        pipeline.pause(droppingHeldAudio: true)
        beginInterruption(.deviceLost, pausesCapture: true)
    }

    /// An input fit for the open recording (after `inputLost()` or a lost device) is back:
    /// the capture stream is opened again, and the interruption ends once audio flows.
    public func inputReturned() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let recording = open, recording.lostCapture == .deviceLost else { return }
        recording.pipeline?.reopen(afterLoss: true)
    }

    /// Opens the open recording's capture stream again, for an input the server did not
    /// move it to (the default changed under a stream that follows it).
    public func reopenCapture() {
        dispatchPrecondition(condition: .onQueue(queue))
        open?.pipeline?.reopen(afterLoss: false)
    }

    /// The lost stream is back: the interruption ends and the route says where from. A
    /// stream reopened without a loss just carries on.
    private func captureRestored(_ recording: OpenRecording, source: String) {
        guard let reason = recording.lostCapture else { return }
        recording.reconnectTimer?.cancel()
        recording.reconnectTimer = nil
        recording.lostCapture = nil
        let previous = recording.activeSource
        recording.activeSource = source
        guard open === recording else { return }
        endInterruption(reason)
        if previous != source { observer?.recorder(self, didChange: [.activeSource]) }
        let route: RouteChangeReason = reason == .serverLost ? .serverRestarted : .newDeviceAvailable
        observer?.recorder(self, didChangeRoute: route, from: previous, to: source)
    }

    private func captureEnded(_ recording: OpenRecording, ending: CapturePipeline.Ending, closeError: RecorderError?) {
        recording.keepAlive = nil
        recording.reconnectTimer?.cancel()
        defer { journal.remove(recording.fileName) }
        closing[recording.memo.id] = nil
        // A memo that waited for sound and ended on silence waits for the next sound: a
        // hands-free dictaphone, until Stop or Cancel. State goes from recording to scheduled.
        let rearms =
            ending == .silenceReached && recording.request.startsOnSound && open === recording
            && !recording.isStoppedByUser && closeError == nil
        if open === recording {
            open = nil
            if !rearms { setState(.idle, also: [.currentMemo, .activeSource]) }
        }
        defer { if rearms { rearm(recording.request) } }
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
            observer?.recorder(self, didFailToEncode: recording.memo, message: error.message)
        }
        // Nothing captured (paused from the start, or the server failed at once): no memo.
        let isEmpty = recording.pipeline?.recordedFrames == 0
        if isEmpty && !recording.isCancelled && !recording.failedToStart {
            try? directory.remove(recording.memo)
            observer?.recorder(self, didFinish: recording.memo, successfully: false)
            recording.finish(.success(()))
            return
        }
        if recording.isCancelled || recording.failedToStart {
            let removal = Result<Void, RecorderError> { () throws(RecorderError) in try directory.remove(recording.memo)
            }
            recording.finish(
                recording.failedToStart ? .failure(failure ?? .audioServer("capture did not start")) : removal)
            return
        }
        if let closeError { observer?.recorder(self, didFailToEncode: recording.memo, message: closeError.message) }
        observer?.recorder(self, didFinish: recording.memo, successfully: successfully)
        recording.finish(closeError.map { .failure($0) } ?? .success(()))
    }

    /// Waits for the next sound with the same options, as a new memo.
    private func rearm(_ request: RecordingRequest) {
        start(request) { [weak self] result in
            guard let self, case .failure = result else { return }
            // The stream did not open: captureEnded already went idle. A refused directory
            // did not get that far.
            if open == nil && state != .idle {
                setState(.idle, also: [.currentMemo, .activeSource])
            }
        }
    }

    private func close(_ recording: OpenRecording, cancelling: Bool, completion: @escaping Completion<Void>) {
        open = nil
        recording.isStoppedByUser = true
        recording.isCancelled = cancelling
        setState(.idle, also: [.currentMemo, .activeSource])
        if let timer = recording.timer {
            // Scheduled but never started: no file was created.
            timer.cancel()
            recording.timer = nil
            return completion(.success(()))
        }
        recording.completions.append(completion)
        closing[recording.memo.id] = recording
        recording.pipeline!.stop()
    }

    private func resumeOpen() {
        open!.pipeline!.resume()
        setState(.recording)
    }

    private func setState(_ newState: RecorderState, also extra: [RecorderProperty] = []) {
        let changed = (state != newState ? [.state] : []) + extra
        state = newState
        if !changed.isEmpty { observer?.recorder(self, didChange: changed) }
    }
}

/// The interruptions in effect on a recording and the state to return to after them.
private struct Interruptions {
    /// Each reason in effect, and whether it stops writing.
    var reasons: [InterruptionReason: Bool] = [:]
    var stateBefore: RecorderState = .recording

    /// Whether any interruption in effect stops writing.
    var pausesCapture: Bool { reasons.values.contains(true) }
}

/// One memo from `Record` until its file is closed. `@unchecked Sendable` so the recorder's
/// `@Sendable` timer and pipeline handlers may capture it: it is touched only on the
/// recorder's queue, by the recorder's methods, which check that.
private final class OpenRecording: @unchecked Sendable {
    let memo: MemoReference
    let request: RecordingRequest
    var pipeline: CapturePipeline?
    var timer: DispatchSourceTimer?
    var activeSource = ""
    var isCancelled = false
    var failedToStart = false
    var isStoppedByUser = false
    /// Whether the recording still waits for sound: no file yet, `State` is `scheduled`.
    var isWaitingForSound = false
    var interruptions = Interruptions()
    /// Why the capture stream is lost, while the pipeline reconnects.
    var lostCapture: InterruptionReason?
    var reconnectTimer: DispatchSourceTimer?
    var completions: [Recorder.Completion<Void>] = []
    /// Holds the recording alive while its pipeline runs, even after the recorder lets go.
    var keepAlive: OpenRecording?

    init(memo: MemoReference, request: RecordingRequest) {
        self.memo = memo
        self.request = request
    }

    /// The memo's file name inside the memo directory.
    var fileName: String { String(memo.path.split(separator: "/").last ?? "") }

    func finish(_ result: Result<Void, RecorderError>) {
        let waiting = completions
        completions = []
        for completion in waiting { completion(result) }
    }
}

extension RecorderProperty {
    /// The properties that mirror `RecorderDefaults`.
    static let defaultsProperties: [RecorderProperty] = [
        .format, .sampleRate, .channels, .quality, .source, .meteringEnabled, .notificationsEnabled, .trayEnabled,
        .skipSilence,
    ]

    /// This property's value in `defaults`, for change detection.
    func value(in defaults: RecorderDefaults) -> String? {
        switch self {
        case .format: defaults.format.rawValue
        case .sampleRate: String(defaults.sampleRate)
        case .channels: String(defaults.channels)
        case .quality: defaults.quality.rawValue
        case .source: defaults.source
        case .meteringEnabled: String(defaults.isMeteringEnabled)
        case .notificationsEnabled: String(defaults.areNotificationsEnabled)
        case .trayEnabled: String(defaults.isTrayEnabled)
        case .skipSilence: String(defaults.skipsSilence)
        case .state, .currentMemo, .activeSource: nil
        }
    }
}
