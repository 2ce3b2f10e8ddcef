import Dispatch
import FoundationEssentials
import VoiceMemoCore
import VoiceMemoRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// What the transcription service needs of the library: where a memo's file is now (a
/// rename may have moved it since it was queued), and to be told of what changed.
protocol TranscriptionClient: AnyObject {
    /// The file of memo `id`, or nil if it no longer exists.
    func pathOfMemo(_ id: String) -> String?
    /// Memo `id`'s transcript is done: keep it with the memo (`completion` once it is).
    func store(_ transcript: Transcript, ofMemo id: String, completion: @escaping @Sendable () -> Void)
    /// Memo `id`'s `TranscriptStatus` changed.
    func transcriptStatusChanged(ofMemo id: String)
}

/// Carries out `TranscriptionQueue`'s decisions: starts, ends and kills the worker process,
/// hands it one memo at a time, keeps the queue on disk so a restart goes on where it
/// stopped, and runs the stall timer the queue asks for. Lives on the daemon's queue.
///
/// `@unchecked Sendable`: its state is touched only on `queue`; the worker's lines are
/// handed there.
package final class TranscriptionService: @unchecked Sendable {
    private let queue: DispatchQueue
    private let engineDirectory: String
    private let script: String
    private let stateDirectory: String
    private let queueFile: String
    /// The model to ask the worker for.
    private let model: () -> String
    private var jobs = TranscriptionQueue()
    private var worker: TranscriptionWorker?
    /// The segments found so far of the running memo.
    private var segments: [Transcript.Segment] = []
    /// Memos whose last job failed, and why; forgotten at restart (the log keeps it).
    private var failures: [String: String] = [:]
    /// Memos whose transcript is being written into their file: still `running` meanwhile.
    private var storing: Set<String> = []
    private var stallTimer: DispatchSourceTimer?
    /// How the last worker ended ("exited with status 1"), for the job it left.
    private var lastExit = "ended"
    /// The current hold's number while the worker is held (suspended) for a start, nil
    /// otherwise; numbered, so that an earlier hold's time limit cannot end a later hold.
    private var hold: Int?
    private var holdsTaken = 0
    weak var client: (any TranscriptionClient)?
    /// Told when the engine found changes (`TranscriptionEngine`).
    let engineChanged = Observers<Void>()

    package init(
        engineDirectory: String, script: String, stateDirectory: String, queue: DispatchQueue,
        model: @escaping () -> String
    ) {
        self.queue = queue
        self.engineDirectory = engineDirectory
        self.script = script
        self.stateDirectory = stateDirectory
        self.queueFile = stateDirectory + "/transcription-queue"
        self.model = model
        engine = TranscriptionEngine.find(in: engineDirectory, script: script)
    }

    /// The engine, or why there is none.
    private(set) var engine: Result<TranscriptionEngine, RecorderError>

    /// `TranscriptionEngine`'s value: engine, version and model, or "" without an engine.
    var engineDescription: String {
        (try? engine.get())?.description(model: model()) ?? ""
    }

    /// Looks for the engine again (the model changed, or it was installed meanwhile), telling
    /// `engineChanged` unless the caller announces the change itself.
    func checkEngine(notifying: Bool = true) {
        engine = TranscriptionEngine.find(in: engineDirectory, script: script)
        if notifying { engineChanged.notify() }
    }

    /// Picks up the jobs a previous run left (queued or running when it ended).
    func restore() {
        dispatchPrecondition(condition: .onQueue(queue))
        let saved = (try? String(contentsOfFile: queueFile, encoding: .utf8)) ?? ""
        let ids = saved.split(separator: "\n").map(String.init).filter(Self.isMemoID)
        guard !ids.isEmpty else { return }
        Log.info("transcription: \(ids.count) memo(s) left queued by the last run")
        jobs = TranscriptionQueue(restoring: ids)
        apply(jobs.start())
    }

    /// Queues memo `id`; NotAvailable without an engine. The engine is looked for again
    /// first: it may have been installed or removed since.
    func transcribe(_ id: String) throws(RecorderError) {
        dispatchPrecondition(condition: .onQueue(queue))
        checkEngine()
        _ = try engine.get()
        failures[id] = nil
        apply(jobs.handle(.enqueue(id)))
    }

    /// Drops memo `id`'s job, ending the worker if it was transcribing it.
    func cancel(_ id: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        apply(jobs.handle(.cancel(id)))
    }

    /// Memo `id`'s `TranscriptStatus`, given whether its file holds a transcript.
    func status(of id: String, hasTranscript: Bool) -> TranscriptionStatus {
        if storing.contains(id) { return .running }
        let status = jobs.status(of: id)
        if status != .none { return status }
        if failures[id] != nil { return .failed }
        return hasTranscript ? .done : .none
    }

    /// Whether a line of a hand-edited queue file can be a memo id (letters, digits, `_`).
    private static func isMemoID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 1024
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
            }
    }

    // MARK: Carrying out the queue's decisions

    private func apply(_ effects: [TranscriptionEffect]) {
        for effect in effects {
            switch effect {
            case .startWorker: startWorker()
            case .transcribe(let id): send(id)
            case .endWorker: worker?.finish()
            case .killWorker: worker?.kill()
            case .restartStallTimer: armStallTimer()
            case .stopStallTimer: disarmStallTimer()
            case .statusChanged(let id, let status, let reason):
                statusChanged(id, to: status, reason: reason)
            case .saveQueue(let ids): save(ids)
            }
        }
    }

    private func statusChanged(_ id: String, to status: TranscriptionStatus, reason: String?) {
        switch status {
        case .failed:
            // The queue knows that the worker ended; the service knows how.
            let reason =
                reason == TranscriptionQueue.workerEndedReason
                ? "the worker \(lastExit)" : reason ?? "the worker failed without a reason"
            Log.warning("transcription of memo \(id) failed: \(reason)")
            failures[id] = reason
        case .running:
            segments = []
        case .done where storing.contains(id):
            // Still `running` to callers until the file holds the transcript.
            return
        case .none, .queued, .done:
            break
        }
        client?.transcriptStatusChanged(ofMemo: id)
    }

    /// Tells the queue `event` on a later turn: a failure found while carrying out one
    /// effect must not overtake the effects that follow it.
    private func later(_ event: TranscriptionEvent) {
        queue.async { [weak self] in
            guard let self else { return }
            apply(jobs.handle(event))
        }
    }

    private func startWorker() {
        guard case .success(let engine) = engine else { return later(.workerExited) }
        let arguments = [engine.python, engine.script, "--model", model()]
        do {
            let started = try TranscriptionWorker(
                arguments: arguments, queue: queue,
                received: { [weak self] message in self?.hear(message) },
                exited: { [weak self] status in self?.workerExited(status) })
            worker = started
            if hold != nil { started.suspend() }
            Log.info("transcription: worker \(started.pid) started (model \(arguments[3]))")
        } catch {
            Log.warning("transcription: \(error)")
            later(.workerExited)
        }
    }

    /// Holds (suspends) the worker from each `true` of `starts` (a recorder's
    /// `startsUnderway`) to the `false` after it, or until `holdLimit` has passed: every
    /// start, whether a call, the tray, a start time or a sound began it, until it is answered
    /// and has its first audio. A worker started meanwhile starts suspended.
    ///
    /// A recording's start waits for the audio server's first fragment: at idle priority the
    /// worker still made some starts miss a 20 ms graph cycle on PipeWire, through what the
    /// two cores share. Its stall timer does not notice a pause this short.
    package func holdWorker(whileStartsAreUnderway starts: Observers<Bool>) {
        starts.observe { [weak self] isStarting in
            if isStarting { self?.holdWorker() } else { self?.releaseWorker() }
        }
    }

    /// The longest a hold keeps the worker suspended: a start that takes longer (a server
    /// being restarted) has other troubles, and the transcription should go on.
    static let holdLimit: DispatchTimeInterval = .seconds(2)

    private func holdWorker() {
        if hold == nil { worker?.suspend() }
        holdsTaken += 1
        let taken = holdsTaken
        hold = taken
        queue.asyncAfter(deadline: .now() + Self.holdLimit) { [weak self] in
            if self?.hold == taken { self?.releaseWorker() }
        }
    }

    private func releaseWorker() {
        guard hold != nil else { return }
        hold = nil
        worker?.resume()
    }

    private func send(_ id: String) {
        guard let path = client?.pathOfMemo(id) else {
            return later(.jobFailed(id, reason: "the memo no longer exists"))
        }
        segments = []
        if worker?.transcribe(path) != true {
            later(.jobFailed(id, reason: "the worker could not be given the memo"))
        }
    }

    private func hear(_ message: WorkerMessage) {
        switch message.event {
        case "ready":
            apply(jobs.handle(.workerReady))
        case "segment":
            guard let running = jobs.running, message.path == client?.pathOfMemo(running) else { return }
            if let start = message.start, let end = message.end, let text = message.text {
                segments.append(Transcript.Segment(start: start, end: end, text: text))
            }
            apply(jobs.handle(.segmentFound(running)))
        case "done":
            guard let running = jobs.running, message.path == client?.pathOfMemo(running) else { return }
            finish(running, with: Transcript(segments: segments))
        case "failed":
            let reason = message.reason ?? "the worker failed without a reason"
            guard let running = jobs.running else {
                return Log.warning("transcription: \(reason)")
            }
            apply(jobs.handle(.jobFailed(running, reason: reason)))
        default:
            Log.warning("transcription: the worker sent an unknown message '\(message.event)'")
        }
    }

    /// Keeps the transcript with the memo, then lets the queue go on: the status reads
    /// `running` until the file holds it, then `done`.
    private func finish(_ id: String, with transcript: Transcript) {
        storing.insert(id)
        segments = []
        apply(jobs.handle(.jobFinished(id)))
        client?.store(transcript, ofMemo: id) { [weak self] in self?.stored(id) }
    }

    private func stored(_ id: String) {
        storing.remove(id)
        client?.transcriptStatusChanged(ofMemo: id)
    }

    private func workerExited(_ status: Int32) {
        worker = nil
        lastExit = Self.describe(exit: status)
        apply(jobs.handle(.workerExited))
    }

    private static func describe(exit status: Int32) -> String {
        let signal = status & 0x7f
        if signal != 0 { return "was killed by signal \(signal)" }
        return "exited with status \((status >> 8) & 0xff)"
    }

    /// (Re)starts the time the worker may stay silent while it loads or transcribes.
    private func armStallTimer() {
        stallTimer?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let timeout = TranscriptionQueue.stallTimeout.components
        timer.schedule(deadline: .now() + .seconds(Int(timeout.seconds)))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            disarmStallTimer()
            apply(jobs.handle(.stalled))
        }
        timer.activate()
        stallTimer = timer
    }

    private func disarmStallTimer() {
        stallTimer?.cancel()
        stallTimer = nil
    }

    private func save(_ ids: [String]) {
        let text = ids.map { $0 + "\n" }.joined()
        do {
            try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(filePath: queueFile), options: .atomic)
        } catch {
            Log.warning("transcription: cannot save the queue to \(queueFile): \(error)")
        }
    }
}
