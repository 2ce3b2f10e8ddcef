/// Where a memo's transcription is, in the contract's words.
public enum TranscriptionStatus: String, CaseIterable, Equatable, Sendable {
    /// Never asked for, or cancelled.
    case none
    /// Waiting for the worker.
    case queued
    /// The worker is transcribing it.
    case running
    /// Its transcript is in the memo's tags.
    case done
    /// It ended without a transcript; the effect says why.
    case failed
}

/// What the transcription service and its worker process tell the queue.
public enum TranscriptionEvent: Equatable, Sendable {
    /// A caller asked for memo `id`'s transcript. The service refuses (NotAvailable) before
    /// this when there is no transcription engine, so the queue never holds jobs it cannot run.
    case enqueue(String)
    /// A caller cancelled memo `id`'s transcription, or the memo was deleted.
    case cancel(String)
    /// The worker loaded its model and reads requests.
    case workerReady
    /// The worker sent a segment of memo `id`.
    case segmentFound(String)
    /// The worker finished memo `id` (its transcript is saved).
    case jobFinished(String)
    /// The worker gave up on memo `id`, saying why; it goes on with the next.
    case jobFailed(String, reason: String)
    /// The worker process ended, whatever the cause.
    case workerExited
    /// The stall timer fired: `TranscriptionQueue.stallTimeout` without a word from the worker.
    case stalled
}

/// What the transcription service does about an event, in order.
public enum TranscriptionEffect: Equatable, Sendable {
    /// Start the worker process; answer with `workerReady` or `workerExited`.
    case startWorker
    /// Send the worker memo `id`'s file to transcribe.
    case transcribe(String)
    /// Close the worker's input: nothing is left, it exits on its own.
    case endWorker
    /// Kill the worker (a cancelled or stalled job); answer with `workerExited` once it is gone.
    case killWorker
    /// (Re)arm the stall timer for `TranscriptionQueue.stallTimeout` from now.
    case restartStallTimer
    /// Disarm the stall timer: nothing waits for the worker's output.
    case stopStallTimer
    /// Memo `id`'s status changed; `reason` says why a job failed.
    case statusChanged(String, TranscriptionStatus, reason: String? = nil)
    /// The memos queued or running changed: save them, the running one first, so that a
    /// restarted daemon takes them up again (`TranscriptionQueue(restoring:)`).
    case saveQueue([String])
}

/// The daemon's decisions on transcription jobs: which memo the worker transcribes, when the
/// worker starts, ends or is killed, and what each caller is told. Pure, so every sequence of
/// requests and worker messages can be replayed in a test; the service does the process work.
///
/// One worker process transcribes one memo at a time, in the order asked (a memo asked for
/// again while queued or running keeps its place). Decisions:
/// - The worker is started when there is work and ended (its input closed) as soon as nothing
///   is left, so an idle daemon holds no model in memory; a worker that is ready with nothing
///   to do is ended at once.
/// - Only one worker exists at a time: after a worker is ended or killed, the next one starts
///   once `workerExited` says the old one is gone.
/// - Cancelling the running memo kills the worker (it cannot be interrupted otherwise); the
///   memo's status becomes `none` and what the killed worker still sends about it is ignored.
///   The memos still queued go on in a new worker.
/// - A job that fails (`jobFailed`) leaves the worker running for the next one. A worker that
///   ends mid-job fails that job only; the rest go on in a new worker, so a memo that crashes
///   the worker costs one worker per memo, never a loop.
/// - A worker that ends, or stays silent for `stallTimeout`, before it is ready fails every
///   queued job instead of being started again: a broken engine would otherwise be restarted
///   forever. Asking again retries.
/// - The stall timer runs while the worker loads or transcribes and restarts on every
///   segment; a job silent for `stallTimeout` fails and its worker is killed.
/// - An event that does not fit the state (a segment for a memo not running, a second ready,
///   a stall with nothing running, a cancel of an unknown memo) changes nothing.
public struct TranscriptionQueue: Sendable {
    /// The worker process.
    public enum Worker: Equatable, Sendable {
        /// None runs.
        case none
        /// Started, loading its model.
        case starting
        /// Transcribing memo `id`.
        case busy(String)
        /// Ended or killed; its exit is awaited before another starts.
        case ending
    }

    /// How long the worker may stay silent while it loads or transcribes.
    public static let stallTimeout: Duration = .seconds(60)
    /// Why a job fails when its worker stays silent for `stallTimeout`.
    public static let stalledReason = "no output for 60 s"
    /// Why a job fails when its worker ends before finishing it.
    public static let workerEndedReason = "the worker ended without finishing"
    /// Why queued jobs fail when the worker ends before it is ready.
    public static let workerNotStartedReason = "the transcription worker ended before it was ready"
    /// Why queued jobs fail when the worker is still not ready after `stallTimeout`.
    public static let workerNotReadyReason = "the transcription worker was not ready after 60 s"

    /// The memos waiting, first in first out, without duplicates.
    public private(set) var pending: [String]
    public private(set) var worker = Worker.none

    /// A queue holding `ids` (a saved queue, the running memo first), duplicates dropped;
    /// `start()` sets them going.
    public init(restoring ids: [String] = []) {
        var seen: Set<String> = []
        pending = ids.filter { seen.insert($0).inserted }
    }

    /// The memo being transcribed, if any.
    public var running: String? {
        guard case .busy(let id) = worker else { return nil }
        return id
    }

    /// The memos queued or running, the running one first: what `saveQueue` saves.
    public var jobs: [String] { (running.map { [$0] } ?? []) + pending }

    /// Memo `id`'s status as far as the queue knows: queued, running, or none (whether a memo
    /// not in the queue is done is for its tags to say).
    public func status(of id: String) -> TranscriptionStatus {
        running == id ? .running : pending.contains(id) ? .queued : .none
    }

    /// Starts a worker for the restored jobs, if there are any.
    public mutating func start() -> [TranscriptionEffect] {
        worker == .none ? startWorkerIfNeeded() : []
    }

    /// Takes in `event` and says what to do, in order.
    public mutating func handle(_ event: TranscriptionEvent) -> [TranscriptionEffect] {
        switch event {
        case .enqueue(let id):
            guard status(of: id) == .none else { return [] }
            pending.append(id)
            let effects: [TranscriptionEffect] = [.statusChanged(id, .queued), .saveQueue(jobs)]
            // A worker starting, busy or ending takes the memo up in its turn.
            return effects + (worker == .none ? startWorkerIfNeeded() : [])
        case .cancel(let id):
            if let index = pending.firstIndex(of: id) {
                // A worker still starting for it is ended once ready, if nothing else is left.
                pending.remove(at: index)
                return [.statusChanged(id, .none), .saveQueue(jobs)]
            }
            guard running == id else { return [] }
            worker = .ending
            return [.killWorker, .stopStallTimer, .statusChanged(id, .none), .saveQueue(jobs)]
        case .workerReady:
            guard worker == .starting else { return [] }
            return runNextInReadyWorker()
        case .segmentFound(let id):
            return running == id ? [.restartStallTimer] : []
        case .jobFinished(let id):
            guard running == id else { return [] }
            return [.statusChanged(id, .done), .saveQueue(pending)] + runNextInReadyWorker()
        case .jobFailed(let id, let reason):
            guard running == id else { return [] }
            return [.statusChanged(id, .failed, reason: reason), .saveQueue(pending)] + runNextInReadyWorker()
        case .workerExited:
            switch worker {
            case .none:
                return []
            case .starting:
                worker = .none
                return [.stopStallTimer] + failAllPending(reason: Self.workerNotStartedReason)
            case .busy(let id):
                worker = .none
                let effects: [TranscriptionEffect] = [
                    .stopStallTimer, .statusChanged(id, .failed, reason: Self.workerEndedReason), .saveQueue(pending),
                ]
                return effects + startWorkerIfNeeded()
            case .ending:
                worker = .none
                return startWorkerIfNeeded()
            }
        case .stalled:
            switch worker {
            case .none, .ending:
                return []
            case .starting:
                worker = .ending
                return [.killWorker] + failAllPending(reason: Self.workerNotReadyReason)
            case .busy(let id):
                worker = .ending
                return [.killWorker, .statusChanged(id, .failed, reason: Self.stalledReason), .saveQueue(pending)]
            }
        }
    }

    /// With no worker: starts one if there is work.
    private mutating func startWorkerIfNeeded() -> [TranscriptionEffect] {
        guard !pending.isEmpty else { return [] }
        worker = .starting
        return [.startWorker, .restartStallTimer]
    }

    /// With a worker ready for a request: sends it the next memo, or ends it if none is left.
    private mutating func runNextInReadyWorker() -> [TranscriptionEffect] {
        guard !pending.isEmpty else {
            worker = .ending
            return [.endWorker, .stopStallTimer]
        }
        let id = pending.removeFirst()
        worker = .busy(id)
        // The memo moves from queued to running: the set saved is the same.
        return [.transcribe(id), .statusChanged(id, .running), .restartStallTimer]
    }

    /// Fails every queued job with `reason`.
    private mutating func failAllPending(reason: String) -> [TranscriptionEffect] {
        guard !pending.isEmpty else { return [] }
        let failed = pending
        pending = []
        return failed.map { .statusChanged($0, .failed, reason: reason) } + [.saveQueue([])]
    }
}
