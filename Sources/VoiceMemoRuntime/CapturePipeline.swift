import Dispatch
import Synchronization
import VoiceMemoCore

/// Moves audio from a capture stream into a file on a thread of its own, so the bus never
/// waits on the audio server and the audio never waits on the bus.
///
/// `@unchecked Sendable`: owned by the recorder's queue (`callbackQueue`). Every public method
/// is called there (checked with `dispatchPrecondition`) and every `Event` is delivered there.
/// Besides what never changes, the capture thread shares only `shared` (one lock), the
/// `publishedFrames` count, the `isSystemAudioReopenRequested` flag, its `ReadWatch`, the
/// semaphore that wakes a reconnect, and the file once `shared` says it is attached.
///
/// What to do with each fragment is the `CapturePolicy`'s to decide; the capture thread reads,
/// hands it the fragment's facts and the requests in force, and carries out its answer.
public final class CapturePipeline: @unchecked Sendable {
    /// How a pipeline ended.
    public typealias Ending = CaptureEnding

    /// What a pipeline reports, in order, on the callback queue.
    public enum Event: Sendable {
        /// The capture stream is connected, with its source's name, or failed to connect.
        case started(Result<String, RecorderError>)
        /// The first audio has been read: from then on the file (or, waiting for sound, the
        /// pre-roll) holds what the input hears. An input that delivers in bursts may hold its
        /// first audio back for seconds; then it comes once the stream has been open for
        /// `timeouts.readGrace`, the longest anyone waits on a late read. Once.
        case audioFlowing
        /// A recording that waits for sound heard it; nothing is written until `attach(_:)`
        /// hands over the file, and the audio meanwhile is kept for it.
        case soundStarted
        /// A metering window (about 100 ms) of written audio ended, while `isMeteringEnabled`:
        /// the memo's levels, each input's, and the recorded time at its end.
        case levels(Levels, inputs: [Levels], time: Double)
        /// The capture stream failed mid-recording; the file stays open and the pipeline keeps
        /// trying to reconnect until `giveUp()` or `stop()`.
        case captureLost(RecorderError)
        /// A lost capture stream is connected again (with the new source's name), or a
        /// stalled one delivers audio again; audio goes on into the same file.
        case captureRestored(source: String)
        /// For a call, the output whose audio it records as its system side: once it starts,
        /// and whenever that changes (nil: the system side is lost and records silence).
        case systemAudioChanged(output: String?, isStart: Bool)
        /// The file is closed, with the error closing it gave if any: the last event.
        case ended(Ending, closeError: RecorderError?)
    }

    private let request: RecordingRequest
    /// Where the events go, on the callback queue.
    private let events: (Event) -> Void
    private let backend: RecordingBackend
    /// The file, once there is one: from the start, or from `attach(_:)` for a recording
    /// that waits for sound. Written once on the callback queue, before `isFileAttached` is
    /// set under `shared`'s lock; the capture thread reads it only after seeing that flag.
    private var attachedSink: AudioFileSink?
    private let callbackQueue: DispatchQueue
    private let timeouts: CaptureTimeouts
    /// The decisions on every fragment. Owned by the capture thread in charge: a thread
    /// abandoned in a hung read never touches it again, and its successor starts after the
    /// abandonment (ordered by the `ReadWatch`'s lock).
    private var policy: CapturePolicy

    /// Everything the recorder's queue and the capture thread share but the published frame
    /// count, the system audio's reopen flag, the watch and the reconnect semaphore.
    private struct Shared {
        var requests: CaptureRequests
        /// The levels of the last metering window, the memo's and each input's; silence
        /// while paused.
        var levels: Levels
        var inputLevels: [Levels]
        /// Callers of `synchronize(completion:)` waiting for the capture thread.
        var synchronizations: [@Sendable () -> Void] = []

        /// The requests in force, a sync among them if someone waits for one.
        var snapshot: CaptureRequests {
            var now = requests
            now.isSynchronizationRequested = !synchronizations.isEmpty
            return now
        }
    }

    /// One lock for all the queue and the thread share: the thread takes a snapshot of the
    /// requests before and after each read, so it never acts on half of a request.
    private let shared: Mutex<Shared>
    /// The policy's count of frames written, as the capture thread last published it for
    /// the queue, which reads it at any time. An atomic, not in `shared`: nothing is decided
    /// on it together with the requests.
    private let publishedFrames = Atomic<Int>(0)
    /// Whether `.audioFlowing` was delivered (on the callback queue): the first read and the
    /// read grace may each announce it.
    private var hasAnnouncedAudioFlowing = false
    /// Set by `reopenSystemAudio()`, taken by the capture thread's `CaptureSet`.
    private let isSystemAudioReopenRequested = Atomic<Bool>(false)
    /// Signalled by `stop()` and `giveUp()`: a thread waiting to reconnect stops waiting at once.
    private let reconnectWakeup = DispatchSemaphore(value: 0)
    /// The reads of the current capture thread (a new one after a hung thread is abandoned).
    private var watch = ReadWatch()
    /// Checks, while the pipeline runs, that no read stalls (on the callback queue).
    private var watchdog: DispatchSourceTimer?
    /// Whether `.ended` was delivered (on the callback queue).
    private var hasEnded = false

    /// Frames per read: 20 ms keeps stop and pause within a fragment of the request.
    public static func framesPerRead(sampleRate: UInt32) -> Int { CapturePolicy.framesPerRead(sampleRate: sampleRate) }

    public init(
        request: RecordingRequest, backend: RecordingBackend, sink: AudioFileSink?, callbackQueue: DispatchQueue,
        timeouts: CaptureTimeouts = .standard, events: @escaping (Event) -> Void
    ) {
        self.request = request
        self.events = events
        self.backend = backend
        self.attachedSink = sink
        self.callbackQueue = callbackQueue
        self.timeouts = timeouts
        let waitsForSound = sink == nil && request.startsOnSound
        self.policy = CapturePolicy(request: request, waitsForSound: waitsForSound)
        self.shared = Mutex(
            Shared(
                requests: CaptureRequests(isFileAttached: sink != nil),
                levels: .silence(channels: Int(request.channels)), inputLevels: Self.silentInputs(request)))
    }

    /// The file, if it exists yet, as of this moment: for closing it, on either side. (The
    /// pumping thread goes by its snapshot of the requests; the queue, which attaches the
    /// file, may use `attachedSink` directly.)
    private var sink: AudioFileSink? { shared.withLock { $0.requests.isFileAttached } ? attachedSink : nil }

    /// Hands over the file of a recording that heard its sound (after `.soundStarted`);
    /// the audio kept since, pre-roll first, goes into it. Called on the callback queue.
    public func attach(_ sink: AudioFileSink) {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        precondition(attachedSink == nil, "a pipeline writes one file")
        attachedSink = sink
        shared.withLock { $0.requests.isFileAttached = true }  // after the sink: who sees the flag sees it
    }

    /// Whether `.levels` are delivered; levels are measured either way, for `levels`.
    public var isMeteringEnabled: Bool {
        get { shared.withLock { $0.requests.isMeteringEnabled } }
        set { shared.withLock { $0.requests.isMeteringEnabled = newValue } }
    }

    /// The levels of the last metering window; silence while paused.
    public var levels: Levels { shared.withLock { $0.levels } }

    /// Each input's levels in the last metering window, in `CaptureInput` order; silence
    /// while paused.
    public var inputLevels: [Levels] { shared.withLock { $0.inputLevels } }

    /// Silence on each input `request` records (one channel each: a silent meter has no more).
    public static func silentInputs(_ request: RecordingRequest) -> [Levels] {
        Array(repeating: .silence(channels: 1), count: request.systemAudio ? 2 : 1)
    }

    /// Frames written to the file so far (pauses excluded).
    public var recordedFrames: Int { publishedFrames.load(ordering: .relaxed) }

    /// Seconds written to the file so far.
    public var currentTime: Double { Double(recordedFrames) / Double(request.sampleRate) }

    /// Opens the capture stream and starts moving audio, off the caller's queue.
    public func start() {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        startThread(watch: watch, isRestart: false)
        startWatchdog()
    }

    /// Stops writing; captured audio is discarded until `resume()`. Audio held back (a
    /// pinned recording's newest tenth of a second) is written first, or with
    /// `droppingHeldAudio` dropped: it may come from a stand-in for a vanished input.
    public func pause(droppingHeldAudio: Bool = false) {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        let silence = Levels.silence(channels: Int(request.channels))
        let silentInputs = Self.silentInputs(request)
        // One lock: the capture thread sees the drop with the pause, and publishes no levels after.
        shared.withLock { shared in
            shared.requests.request(droppingHeldAudio ? .droppingHeldAudio : .keepingHeldAudio)
            shared.levels = silence
            shared.inputLevels = silentInputs
        }
    }

    /// Writes again, appending to the same file.
    public func resume() {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        shared.withLock { $0.requests.pause = nil }
    }

    /// Flushes everything written so far to disk (header included) on the capture thread,
    /// after the read in progress, then calls `completion` on the callback queue. Called
    /// after `pause()` it covers every frame the recording holds.
    public func synchronize(completion: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        // A stalled read would keep the caller (a system going to sleep) waiting: sync here.
        if watch.isStalled && watch.borrowFile({ try? attachedSink?.synchronize() }) { return completion() }
        shared.withLock { $0.synchronizations.append(completion) }
        afterReadGrace { [self] in
            guard shared.withLock({ !$0.synchronizations.isEmpty }),
                watch.borrowFile({ try? attachedSink?.synchronize() })
            else { return }
            completeSynchronizations()
        }
    }

    /// Ends the recording after the read in progress, whose fragment holds audio from just
    /// before the request (waiting for it costs up to one server cycle, 21 ms on the PipeWire
    /// fixture; dropping it would lose that audio). `.ended` follows once the file is
    /// closed. A read late by more than `timeouts.readGrace` is not waited for: what the input
    /// has not delivered by then is not in the memo.
    public func stop() {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        shared.withLock { $0.requests.request(.stop) }
        reconnectWakeup.signal()
        endWithoutLateRead(.stopped)
    }

    /// Stops waiting for a lost capture stream: the recording ends with `.captureFailed`.
    public func giveUp() {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        shared.withLock { $0.requests.request(.giveUp) }
        reconnectWakeup.signal()
        endWithoutLateRead(.captureFailed(CapturePolicy.gaveUp))
    }

    /// Closes the capture stream after the read in progress and opens a new one for the same
    /// request: the input it should record from is back (`afterLoss`: the read in progress
    /// is not waited for, it may never return), or changed without the server moving the
    /// stream. `.captureRestored` reports the new stream, `.captureLost` a failure (then it
    /// reconnects as after any loss).
    public func reopen(afterLoss: Bool) {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        guard !hasEnded else { return }
        guard afterLoss || watch.isStalled, watch.abandon() else {
            return shared.withLock { $0.requests.request(.reopen) }
        }
        watch = ReadWatch()
        startThread(watch: watch, isRestart: true)
    }

    /// Opens a call's system side again, on the default output, before its next fragment;
    /// `.systemAudioChanged` reports where it records then.
    public func reopenSystemAudio() {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        isSystemAudioReopenRequested.store(true, ordering: .relaxed)
    }

    /// Ends the recording with `ending` now if the read in progress has stalled, or once it
    /// is late by `timeouts.readGrace`; otherwise the capture thread ends it after its read.
    private func endWithoutLateRead(_ ending: Ending) {
        if watch.isStalled && watch.abandon() { return closeTakenFile(ending: ending) }
        afterReadGrace { [self] in
            if watch.abandon() { closeTakenFile(ending: ending) }
        }
    }

    /// Runs `body` on the callback queue after `timeouts.readGrace`, unless the pipeline has
    /// ended by then.
    private func afterReadGrace(_ body: @escaping @Sendable () -> Void) {
        callbackQueue.asyncAfter(deadline: .now() + timeouts.readGrace) { [self] in
            if !hasEnded { body() }
        }
    }

    private func startThread(watch: ReadWatch, isRestart: Bool) {
        // It blocks in `read` for as long as the recording lasts, and ends with the stream.
        DedicatedThread.start(name: "vm-capture") { [self] in
            run(watch: watch, isRestart: isRestart)
        }
    }

    /// The capture thread: opens the stream, pumps it into the file, and reconnects after a
    /// loss until stopped. A restart (after a hung read) continues the same file.
    private func run(watch: ReadWatch, isRestart: Bool) {
        var current: CaptureSet?
        var ending: Ending
        do {
            current = try openInputs(isStart: !isRestart)
            let name = current!.microphone.sourceName
            let output = current!.systemAudioName
            deliver { pipeline in
                if isRestart {
                    pipeline.events(.captureRestored(source: name))
                } else {
                    pipeline.events(.started(.success(name)))
                    pipeline.afterReadGrace { pipeline.announceAudioFlowing() }
                }
                if pipeline.request.systemAudio {
                    pipeline.events(.systemAudioChanged(output: output, isStart: !isRestart))
                }
            }
        } catch {
            guard isRestart else {
                let closeError = closeSink()
                deliver { $0.events(.started(.failure(error))) }
                deliver { $0.finish(.captureFailed(error), closeError: closeError) }
                return
            }
        }
        while true {
            if let inputs = current {
                switch pump(from: inputs, watch: watch) {
                case .ended(let end):
                    ending = end
                case .abandoned:
                    return  // the queue closed the file while a read hung
                case .reopen:
                    current = nil  // one stream at a time: close the old before opening the new
                    do {
                        current = try openInputs(isStart: false)
                        let name = current!.microphone.sourceName
                        deliver { $0.events(.captureRestored(source: name)) }
                        continue
                    } catch {
                        ending = .captureFailed(error)
                    }
                case .lost(let error):
                    ending = .captureFailed(error)
                }
            } else {
                ending = .captureFailed(.deviceLost("the audio input is gone"))
            }
            // A lost stream is not the end of the memo: wait for the server (or device) to
            // come back and go on writing into the same, still valid, file.
            guard case .captureFailed(let error) = ending, !shared.withLock({ $0.requests.endings.contains(.giveUp) })
            else { break }
            current = nil
            deliver { $0.events(.captureLost(error)) }
            guard let restored = reconnect() else { break }
            current = restored
            let name = restored.microphone.sourceName
            deliver { $0.events(.captureRestored(source: name)) }
        }
        current = nil
        let closeError = closeSink()
        let finalEnding = ending
        deliver { $0.finish(finalEnding, closeError: closeError) }
    }

    /// Opens the recording's inputs: its input, and for a call the system audio. At the
    /// start a call whose system audio cannot be opened fails (it would record nothing of
    /// what was asked); later the call goes on without it, and it is opened again.
    private func openInputs(isStart: Bool) throws(RecorderError) -> CaptureSet {
        let framesPerRead = policy.framesPerRead
        // A new stream, a new cleaner: it learns this stream's noise from its start.
        let voice = try cleaner(framesPerRead: framesPerRead)
        let microphone = try backend.openCapture(request: request, framesPerRead: framesPerRead)
        guard request.systemAudio else { return CaptureSet(microphone: microphone, voice: voice) }
        let (backend, request) = (backend, request)
        let openSystemAudio = { () throws(RecorderError) -> AudioCapture in
            try backend.openSystemAudio(request: request, framesPerRead: CaptureSet.systemFramesPerRead(framesPerRead))
        }
        let system: AudioCapture?
        do {
            system = try openSystemAudio()
        } catch {
            guard !isStart else { throw error }
            system = nil
        }
        return CaptureSet(
            microphone: microphone, voice: voice, system: system, request: request, framesPerRead: framesPerRead,
            openSystemAudio: openSystemAudio,
            takeReopenRequest: { [self] in isSystemAudioReopenRequested.exchange(false, ordering: .relaxed) })
    }

    /// A cleaner of the microphone's voice as the request asks, or nil when it asks for none.
    private func cleaner(framesPerRead: Int) throws(RecorderError) -> VoiceCleaner? {
        let (backend, request) = (backend, request)
        guard request.voiceProcessing.isEnabled else { return nil }
        return try VoiceCleaner(
            channels: Int(request.channels), sampleType: request.format.sampleType(for: request.quality),
            framesPerRead: framesPerRead
        ) { () throws(RecorderError) in
            try backend.makeVoiceProcessor(
                request.voiceProcessing, sampleRate: request.sampleRate, framesPerRead: framesPerRead)
        }
    }

    /// Delivers `.audioFlowing` unless it was delivered before.
    private func announceAudioFlowing() {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        guard !hasAnnouncedAudioFlowing else { return }
        hasAnnouncedAudioFlowing = true
        events(.audioFlowing)
    }

    /// Closes the file on the callback queue, taken from a thread hung in a read.
    private func closeTakenFile(ending: Ending) {
        finish(ending, closeError: closeSink())
    }

    /// Delivers the ending once, on the callback queue, after the file is closed.
    private func finish(_ ending: Ending, closeError: RecorderError?) {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        guard !hasEnded else { return }
        hasEnded = true
        watchdog?.cancel()
        watchdog = nil
        completeSynchronizations()  // a closed file is as synchronized as it gets
        events(.ended(ending, closeError: closeError))
    }

    /// Tells every caller of `synchronize(completion:)` still waiting that the file is synced.
    private func completeSynchronizations() {
        for completion in takeSynchronizations() { completion() }
    }

    /// Empties the list of callers of `synchronize(completion:)` waiting, and returns them.
    private func takeSynchronizations() -> [@Sendable () -> Void] {
        shared.withLock { shared in
            defer { shared.synchronizations = [] }
            return shared.synchronizations
        }
    }

    /// Opens a new capture stream with growing pauses (`ReconnectBackoff`) until it works, or
    /// returns nil once the recording is stopped or given up.
    private func reconnect() -> CaptureSet? {
        var backoff = ReconnectBackoff()
        while shared.withLock({ !$0.requests.isEnding }) {
            if let capture = try? openInputs(isStart: false) {
                shared.withLock { $0.requests.reopened() }  // a new stream is what it asked for
                return capture
            }
            // A stop or give-up ends the pause at once; one that came since the check above
            // left its signal in the semaphore, so it is not missed.
            _ = reconnectWakeup.wait(timeout: .now() + .milliseconds(Int(backoff.nextPause() * 1000)))
        }
        return nil
    }

    /// How one stream's pumping ended.
    private enum PumpResult {
        case ended(Ending)
        case lost(RecorderError)
        case reopen
        /// The read hung and the recording was closed without this thread.
        case abandoned
    }

    /// Moves one stream's audio into the file: reads, hands each fragment to the policy, and
    /// carries out its answer, until the answer ends or turns the stream.
    private func pump(from inputs: CaptureSet, watch: ReadWatch) -> PumpResult {
        let sampleType = request.format.sampleType(for: request.quality)
        let channels = Int(request.channels)
        let held = HeldAudio(
            capacity: policy.heldCapacity, fragmentBytes: policy.framesPerRead * channels * sampleType.byteCount)
        // What was held by a stream abandoned in a hung read went with it.
        policy.forgetHeld()
        while true {
            // Asked as each read begins, not only as the last one ended: a stop that came
            // while this thread wrote ends the memo now, not a fragment later.
            var requests = shared.withLock { $0.snapshot }
            if let result = carryOut(policy.beforeRead(requests), requests, held, inputs) { return result }
            let slot = held.next
            guard
                let (result, endedStall) = watch.watch({
                    Result { () throws(RecorderError) in
                        try inputs.read(into: slot, sampleType: sampleType, channels: channels)
                    }
                })
            else { return .abandoned }
            requests = shared.withLock { $0.snapshot }
            report(inputs.takeEvents())
            let actions =
                switch result {
                case .success(let fragment): policy.fragmentRead(fragment, requests, endedStall: endedStall)
                case .failure(let error): policy.readFailed(error, requests)
                }
            if let result = carryOut(actions, requests, held, inputs) { return result }
        }
    }

    /// Carries out the policy's `actions` on `held` and the file; how the stream ends, if it does.
    private func carryOut(
        _ actions: [CaptureAction], _ requests: CaptureRequests, _ held: HeldAudio, _ inputs: CaptureSet
    ) -> PumpResult? {
        let sink = requests.isFileAttached ? attachedSink : nil
        let bytesPerFrame = held.fragmentBytes / policy.framesPerRead
        // The policy counted the frames of every write among `actions`; those a failure
        // leaves undone never reach the file, and the queue sees its count without them.
        var undone: ArraySlice<CaptureAction> = []
        defer { publishedFrames.store(policy.recordedFrames - Self.writtenFrames(undone), ordering: .relaxed) }
        for (index, action) in actions.enumerated() {
            switch action {
            case .hold: held.append()
            case .write(let frames):
                let fragment = UnsafeRawBufferPointer(rebasing: held.oldest[0..<(frames * bytesPerFrame)])
                held.removeOldest()  // its bytes stay put until the next read
                do { try sink!.write(fragment, frameCount: frames) } catch {
                    undone = actions[index...]
                    return .ended(.writeFailed(error))
                }
            case .drop(let count): held.removeOldest(count)
            case .synchronize:
                do { try sink?.synchronize() } catch {
                    undone = actions[index...]
                    return .ended(.writeFailed(error))
                }
                for completion in takeSynchronizations() { callbackQueue.async(execute: completion) }
            case .reportLevels(let levels, let inputs, let time): publish(levels, inputs: inputs, time: time)
            case .reportAudioFlowing:
                deliver { $0.announceAudioFlowing() }  // the policy says so once
            case .reportSoundStarted: deliver { $0.events(.soundStarted) }
            case .reportInputBack:
                let name = inputs.microphone.sourceName
                deliver { $0.events(.captureRestored(source: name)) }
            case .end(let ending): return .ended(ending)
            case .declareLost(let error): return .lost(error)
            case .reopen:
                shared.withLock { $0.requests.reopened() }  // this reopen answers it
                return .reopen
            }
        }
        return nil
    }

    /// The frames `actions` write.
    private static func writtenFrames(_ actions: ArraySlice<CaptureAction>) -> Int {
        actions.reduce(0) { total, action in
            if case .write(let frames) = action { total + frames } else { total }
        }
    }

    /// Reports what happened to a call's system side (its microphone's losses are the
    /// capture's, reported as such).
    private func report(_ events: [CaptureSet.InputEvent]) {
        for event in events {
            switch event {
            case .lost:
                deliver { $0.events(.systemAudioChanged(output: nil, isStart: false)) }
            case .back(_, let name):
                deliver { $0.events(.systemAudioChanged(output: name, isStart: false)) }
            }
        }
    }

    /// Checks now and then (every `timeouts.stallCheckInterval`) that no read has stalled.
    /// Only a running recording has this timer; an idle daemon has none.
    private func startWatchdog() {
        let timer = DispatchSource.makeTimerSource(queue: callbackQueue)
        let interval = DispatchTimeInterval.milliseconds(Int(timeouts.stallCheckInterval * 1000))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(250))
        timer.setEventHandler { [weak self] in self?.checkForHungRead() }
        watchdog = timer
        timer.activate()
    }

    private func checkForHungRead() {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        guard watch.declareStall(when: { timeouts.judge(readWaiting: $0) == .stalled }) else { return }
        // Nothing is written while the read hangs: make the file on disk whole meanwhile, for
        // those waiting on the hung thread too.
        if watch.borrowFile({ try? attachedSink?.synchronize() }) { completeSynchronizations() }
        events(.captureLost(timeouts.stallLoss))
    }

    private func publish(_ levels: Levels, inputs: [Levels], time: Double) {
        // Held-back audio written as a pause begins is old news: a paused meter reads silence.
        // Checked under the lock `pause()` silences the meter under, so none slips in after.
        let isReported = shared.withLock { shared in
            guard shared.requests.pause == nil else { return false }
            shared.levels = levels
            shared.inputLevels = inputs
            return shared.requests.isMeteringEnabled
        }
        guard isReported else { return }
        deliver { $0.events(.levels(levels, inputs: inputs, time: time)) }
    }

    private func closeSink() -> RecorderError? {
        do {
            try sink?.close()
            return nil
        } catch {
            return error
        }
    }

    /// Runs `body` on the callback queue unless the pipeline has ended by then: the file
    /// may be closed there while this thread waits in a read, and nothing may follow `.ended`.
    private func deliver(_ body: @escaping @Sendable (CapturePipeline) -> Void) {
        callbackQueue.async {
            if !self.hasEnded { body(self) }
        }
    }
}
