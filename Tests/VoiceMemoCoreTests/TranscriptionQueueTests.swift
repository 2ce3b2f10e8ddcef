import TestSupport
import Testing
import VoiceMemoCore

/// The transcription queue's decisions, fed requests and the worker's messages by hand: which
/// memo runs, when the worker starts, ends or is killed, and what callers are told.
@Suite("Transcription queue: jobs, the worker and its failures")
struct TranscriptionQueueTests {
    typealias Queue = TranscriptionQueue

    /// A queue whose worker is transcribing "a", with `queued` waiting behind it.
    private func running(_ id: String = "a", queued: [String] = []) -> Queue {
        var queue = Queue()
        _ = queue.handle(.enqueue(id))
        _ = queue.handle(.workerReady)
        for other in queued { _ = queue.handle(.enqueue(other)) }
        #expect(queue.worker == .busy(id))
        #expect(queue.pending == queued)
        return queue
    }

    @Test func aMemoAskedForWithNoWorkerStartsOneAndRunsOnceItIsReady() {
        var queue = Queue()
        #expect(
            queue.handle(.enqueue("a"))
                == [.statusChanged("a", .queued), .saveQueue(["a"]), .startWorker, .restartStallTimer])
        #expect(queue.worker == .starting)
        #expect(queue.status(of: "a") == .queued)
        #expect(queue.handle(.workerReady) == [.transcribe("a"), .statusChanged("a", .running), .restartStallTimer])
        #expect(queue.status(of: "a") == .running)
        #expect(queue.jobs == ["a"])
    }

    @Test func memosQueuedBehindOneRunInOrderInTheSameWorkerWhichEndsWhenNothingIsLeft() {
        var queue = running("a")
        #expect(queue.handle(.enqueue("b")) == [.statusChanged("b", .queued), .saveQueue(["a", "b"])])
        #expect(queue.handle(.enqueue("c")) == [.statusChanged("c", .queued), .saveQueue(["a", "b", "c"])])
        #expect(
            queue.handle(.jobFinished("a")) == [
                .statusChanged("a", .done), .saveQueue(["b", "c"]), .transcribe("b"), .statusChanged("b", .running),
                .restartStallTimer,
            ])
        #expect(
            queue.handle(.jobFinished("b")) == [
                .statusChanged("b", .done), .saveQueue(["c"]), .transcribe("c"), .statusChanged("c", .running),
                .restartStallTimer,
            ])
        #expect(
            queue.handle(.jobFinished("c")) == [
                .statusChanged("c", .done), .saveQueue([]), .endWorker, .stopStallTimer,
            ])
        #expect(queue.worker == .ending)
        #expect(queue.handle(.workerExited) == [])
        #expect(queue.worker == .none)
    }

    @Test func aMemoAlreadyQueuedOrRunningIsNotQueuedTwice() {
        var queue = running("a", queued: ["b"])
        #expect(queue.handle(.enqueue("a")) == [])
        #expect(queue.handle(.enqueue("b")) == [])
        #expect(queue.jobs == ["a", "b"])
        // Once done it may be asked for again.
        _ = queue.handle(.jobFinished("a"))
        #expect(queue.handle(.enqueue("a")) == [.statusChanged("a", .queued), .saveQueue(["b", "a"])])
    }

    @Test func aCancelledQueuedMemoIsDroppedAndTheOthersKeepTheirOrder() {
        var queue = running("a", queued: ["b", "c", "d"])
        #expect(queue.handle(.cancel("c")) == [.statusChanged("c", .none), .saveQueue(["a", "b", "d"])])
        #expect(queue.worker == .busy("a"))
        #expect(queue.status(of: "c") == .none)
        _ = queue.handle(.jobFinished("a"))
        #expect(queue.running == "b")
        #expect(queue.pending == ["d"])
    }

    @Test func aCancelledRunningJobKillsTheWorkerAndTheNextQueuedMemoStartsInANewWorker() {
        var queue = running("a", queued: ["b"])
        #expect(
            queue.handle(.cancel("a")) == [.killWorker, .stopStallTimer, .statusChanged("a", .none), .saveQueue(["b"])])
        #expect(queue.worker == .ending)
        // The killed worker's last words about the cancelled memo are not believed.
        #expect(queue.handle(.segmentFound("a")) == [])
        #expect(queue.handle(.jobFinished("a")) == [])
        #expect(queue.handle(.jobFailed("a", reason: "killed")) == [])
        // One worker at a time: the new one starts once the old one is gone.
        #expect(queue.handle(.workerExited) == [.startWorker, .restartStallTimer])
        #expect(queue.handle(.workerReady) == [.transcribe("b"), .statusChanged("b", .running), .restartStallTimer])
    }

    @Test func cancellingTheOnlyRunningMemoLeavesNoWorker() {
        var queue = running("a")
        _ = queue.handle(.cancel("a"))
        #expect(queue.handle(.workerExited) == [])
        #expect(queue.worker == .none)
        #expect(queue.jobs.isEmpty)
    }

    @Test func aWorkerStartedForAMemoCancelledMeanwhileIsEndedOnceReady() {
        var queue = Queue()
        _ = queue.handle(.enqueue("a"))
        #expect(queue.handle(.cancel("a")) == [.statusChanged("a", .none), .saveQueue([])])
        #expect(queue.worker == .starting)
        #expect(queue.handle(.workerReady) == [.endWorker, .stopStallTimer])
        #expect(queue.handle(.workerExited) == [])
        #expect(queue.worker == .none)
    }

    @Test func aMemoAskedForWhileTheWorkerEndsGetsANewWorkerAfterTheOldOneExits() {
        var queue = running("a")
        _ = queue.handle(.jobFinished("a"))
        #expect(queue.worker == .ending)
        #expect(queue.handle(.enqueue("b")) == [.statusChanged("b", .queued), .saveQueue(["b"])])
        #expect(queue.handle(.workerExited) == [.startWorker, .restartStallTimer])
        #expect(queue.worker == .starting)
    }

    @Test func aMemoAskedForWhileTheWorkerStartsWaitsForIt() {
        var queue = Queue()
        _ = queue.handle(.enqueue("a"))
        #expect(queue.handle(.enqueue("b")) == [.statusChanged("b", .queued), .saveQueue(["a", "b"])])
        _ = queue.handle(.workerReady)
        #expect(queue.running == "a")
        #expect(queue.pending == ["b"])
    }

    @Test func aFailedJobIsReportedWithItsReasonAndTheSameWorkerGoesOn() {
        var queue = running("a", queued: ["b"])
        #expect(
            queue.handle(.jobFailed("a", reason: "the file cannot be decoded")) == [
                .statusChanged("a", .failed, reason: "the file cannot be decoded"), .saveQueue(["b"]),
                .transcribe("b"), .statusChanged("b", .running), .restartStallTimer,
            ])
    }

    @Test func aWorkerThatEndsMidJobFailsThatJobOnlyAndANewWorkerTakesTheRest() {
        var queue = running("a", queued: ["b"])
        #expect(
            queue.handle(.workerExited) == [
                .stopStallTimer, .statusChanged("a", .failed, reason: "the worker ended without finishing"),
                .saveQueue(["b"]), .startWorker, .restartStallTimer,
            ])
        #expect(queue.status(of: "b") == .queued)
        // The next memo crashing it too costs one more worker, and then there is none.
        _ = queue.handle(.workerReady)
        #expect(
            queue.handle(.workerExited) == [
                .stopStallTimer, .statusChanged("b", .failed, reason: Queue.workerEndedReason), .saveQueue([]),
            ])
        #expect(queue.worker == .none)
    }

    @Test func aWorkerThatEndsBeforeItIsReadyFailsTheQueuedJobsInsteadOfRestartingForever() {
        var queue = Queue()
        _ = queue.handle(.enqueue("a"))
        _ = queue.handle(.enqueue("b"))
        #expect(
            queue.handle(.workerExited) == [
                .stopStallTimer, .statusChanged("a", .failed, reason: Queue.workerNotStartedReason),
                .statusChanged("b", .failed, reason: Queue.workerNotStartedReason), .saveQueue([]),
            ])
        #expect(queue.worker == .none)
        // Asking again tries a new worker.
        #expect(
            queue.handle(.enqueue("a"))
                == [.statusChanged("a", .queued), .saveQueue(["a"]), .startWorker, .restartStallTimer])
    }

    @Test func aJobSilentForTheStallTimeoutFailsAndItsWorkerIsKilledBeforeTheNextStarts() {
        var queue = running("a", queued: ["b"])
        #expect(
            queue.handle(.stalled) == [
                .killWorker, .statusChanged("a", .failed, reason: "no output for 60 s"), .saveQueue(["b"]),
            ])
        #expect(queue.worker == .ending)
        #expect(queue.handle(.workerExited) == [.startWorker, .restartStallTimer])
        #expect(Queue.stallTimeout == .seconds(60))
    }

    @Test func eachSegmentOfTheRunningMemoRestartsTheStallTimer() {
        var queue = running("a", queued: ["b"])
        #expect(queue.handle(.segmentFound("a")) == [.restartStallTimer])
        #expect(queue.handle(.segmentFound("a")) == [.restartStallTimer])
        #expect(queue.handle(.segmentFound("b")) == [])
        #expect(queue.handle(.segmentFound("z")) == [])
    }

    @Test func aWorkerStillNotReadyWhenTheStallTimerFiresIsKilledAndTheQueuedJobsFail() {
        var queue = Queue()
        _ = queue.handle(.enqueue("a"))
        #expect(
            queue.handle(.stalled) == [
                .killWorker, .statusChanged("a", .failed, reason: Queue.workerNotReadyReason), .saveQueue([]),
            ])
        #expect(queue.worker == .ending)
        // Its late ready is not believed.
        #expect(queue.handle(.workerReady) == [])
        #expect(queue.handle(.workerExited) == [])
        #expect(queue.worker == .none)
    }

    @Test func aRestoredQueueStartsAWorkerAndRunsItsMemosInTheSavedOrder() {
        var queue = Queue(restoring: ["b", "a", "b", "c"])
        #expect(queue.pending == ["b", "a", "c"])
        #expect(queue.worker == .none)
        #expect(queue.start() == [.startWorker, .restartStallTimer])
        #expect(queue.start() == [])
        #expect(queue.handle(.workerReady) == [.transcribe("b"), .statusChanged("b", .running), .restartStallTimer])
        var empty = Queue(restoring: [])
        #expect(empty.start() == [])
        #expect(empty.worker == .none)
    }

    /// The queues every test above passes through, by the worker's phase.
    private static func queuesInEveryPhase() -> [Queue] {
        var starting = Queue()
        _ = starting.handle(.enqueue("a"))
        var busy = starting
        _ = busy.handle(.workerReady)
        var ending = busy
        _ = ending.handle(.jobFinished("a"))
        return [Queue(), starting, busy, ending]
    }

    @Test func eventsThatDoNotFitThePhaseChangeNothing() {
        let stray: [(Queue.Worker, [TranscriptionEvent])] = [
            (.none, [.workerReady, .workerExited, .stalled, .segmentFound("a"), .jobFinished("a"), .cancel("a")]),
            // A segment or result before the worker said it was ready.
            (.starting, [.segmentFound("a"), .jobFinished("a"), .jobFailed("a", reason: "x"), .cancel("z")]),
            // A second ready; news of a memo other than the running one.
            (.busy("a"), [.workerReady, .segmentFound("z"), .jobFinished("z"), .jobFailed("z", reason: "x")]),
            // Anything but its exit from a worker ended or killed.
            (.ending, [.workerReady, .stalled, .segmentFound("a"), .jobFinished("a"), .cancel("a")]),
        ]
        let queues = Self.queuesInEveryPhase()
        #expect(queues.map(\.worker) == stray.map(\.0))
        for (queue, (phase, events)) in zip(queues, stray) {
            for event in events {
                var copy = queue
                #expect(copy.handle(event) == [], "\(event) in \(phase)")
                #expect(copy.worker == queue.worker && copy.pending == queue.pending, "\(event) in \(phase)")
            }
        }
    }

    @Test func statusesAreSpelledAsTheContractSpellsThem() {
        #expect(TranscriptionStatus.allCases.map(\.rawValue) == ["none", "queued", "running", "done", "failed"])
    }

    /// Random sequences of every event: the queue never duplicates a memo, every `saveQueue`
    /// holds what is queued or running, each status a caller was last told matches the
    /// queue, at most one worker lives, and a transcription is only asked of a ready worker.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func anySequenceOfEventsKeepsTheQueueConsistent(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var queue = Queue()
        let ids = ["a", "b", "c", "d"]
        var saved: [String] = []
        var told: [String: TranscriptionStatus] = [:]
        var livingWorkers = 0
        for step in 0..<2000 {
            let id = ids.randomElement(using: &random)!
            let events: [TranscriptionEvent] =
                [
                    .enqueue(id), .enqueue(id), .cancel(id), .workerReady, .segmentFound(id), .jobFinished(id),
                    .jobFailed(id, reason: "bad"), .stalled, .stalled,
                    // The worker exits only after it was started.
                ] + (livingWorkers > 0 ? [.workerExited, .workerExited] : [])
            let event = events.randomElement(using: &random)!
            let before = queue.worker
            let effects = queue.handle(event)
            if event == .workerExited { livingWorkers -= 1 }
            for effect in effects {
                switch effect {
                case .startWorker: livingWorkers += 1
                case .saveQueue(let jobs): saved = jobs
                case .statusChanged(let id, let status, _): told[id] = status
                case .transcribe: #expect(before == .starting || before.isBusy, "step \(step)")
                default: break
                }
            }
            #expect(livingWorkers <= 1, "step \(step): \(event)")
            #expect(Set(queue.jobs).count == queue.jobs.count, "step \(step)")
            #expect(saved == queue.jobs, "step \(step): \(event)")
            for id in ids {
                let status = queue.status(of: id)
                let last = told[id] ?? TranscriptionStatus.none
                if status == .none {
                    #expect([.none, .done, .failed].contains(last), "step \(step): \(id)")
                } else {
                    #expect(last == status, "step \(step): \(id)")
                }
            }
            // Work waiting always has a worker on the way.
            if !queue.pending.isEmpty { #expect(queue.worker != .none, "step \(step)") }
        }
    }
}

extension TranscriptionQueue.Worker {
    fileprivate var isBusy: Bool {
        if case .busy = self { return true }
        return false
    }
}
