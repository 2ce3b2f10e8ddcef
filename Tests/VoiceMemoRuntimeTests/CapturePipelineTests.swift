import Dispatch
import IntegrationSupport
import Synchronization
import Testing
import VoiceMemoCore
import VoiceMemoRuntime

@Suite("Capture pipeline")
struct CapturePipelineTests {
    /// Waiting for a server that never comes back, the pipeline sleeps between attempts (up to
    /// a second); a stop or a give-up must not wait for the sleep to end.
    @Test(arguments: [false, true])
    func aStopOrGiveUpEndsTheWaitForTheServerAtOnce(givingUp: Bool) async throws {
        let queue = DispatchQueue(label: "pipeline-test")
        let backend = FakeBackend(loseServerAfterReads: 10, refusedReconnects: .max)
        let sink = FakeSink()
        let endedAt = Mutex<ContinuousClock.Instant?>(nil)
        let pipeline = CapturePipeline(
            request: RecordingRequest(defaults: RecorderDefaults()), backend: backend, sink: sink, callbackQueue: queue
        ) { event in
            if case .ended = event { endedAt.withLock { $0 = .now } }
        }
        queue.sync { pipeline.start() }
        // The fourth refused attempt (the fifth open) is followed by an 800 ms pause.
        try waitUntil(timeout: .seconds(5)) { backend.opens.withLock { $0 } >= 5 }
        // Into that pause: a thread blocked in a semaphore's wait shows nothing to wait on.
        try await Task.sleep(for: .milliseconds(100))
        let attempts = backend.opens.withLock { $0 }
        let asked = ContinuousClock.now
        queue.sync { givingUp ? pipeline.giveUp() : pipeline.stop() }
        try waitUntil(timeout: .seconds(3)) { endedAt.withLock { $0 } != nil }
        let waited = try #require(endedAt.withLock { $0 }) - asked
        #expect(waited < .milliseconds(300), "ended \(waited) after the request")
        #expect(backend.opens.withLock { $0 } == attempts, "no attempt after the request")
        #expect(sink.isClosed)
        #expect(sink.frames == 10 * CapturePipeline.framesPerRead(sampleRate: RecorderDefaults().sampleRate))
    }

    /// `Record` is answered once audio flows: the pipeline says so after the first read has
    /// returned, not when the stream opens, and says it once.
    @Test func audioFlowsAfterTheFirstReadNotWhenTheStreamOpens() async throws {
        let queue = DispatchQueue(label: "pipeline-test")
        let backend = FakeBackend(hangAfterReads: 0, hangSeconds: 0.3)  // the first read takes 0.3 s
        let events = Mutex<[String]>([])
        let pipeline = CapturePipeline(
            request: RecordingRequest(defaults: RecorderDefaults()), backend: backend, sink: FakeSink(),
            callbackQueue: queue
        ) { event in
            switch event {
            case .started: events.withLock { $0.append("started") }
            case .audioFlowing:
                let frames = backend.framesRead.withLock { $0 }
                events.withLock { $0.append("flowing after \(frames) frames") }
            default: break
            }
        }
        queue.sync { pipeline.start() }
        try waitUntil(timeout: .seconds(5)) { backend.framesRead.withLock { $0 } >= 10 * 960 }
        queue.sync { pipeline.stop() }
        let heard = events.withLock { $0 }
        #expect(heard.count == 2, "\(heard)")
        #expect(heard.first == "started")
        #expect(heard.last?.hasPrefix("flowing after") == true && heard.last != "flowing after 0 frames", "\(heard)")
    }

    /// An input that delivers in bursts may hold its first audio back for seconds: `Record`
    /// is not kept waiting past the read grace for it.
    @Test func aLateFirstReadIsNotWaitedForPastTheReadGrace() async throws {
        let queue = DispatchQueue(label: "pipeline-test")
        let backend = FakeBackend(hangAfterReads: 0, hangSeconds: 3)
        let flowed = Mutex<(at: ContinuousClock.Instant?, frames: Int)>((nil, -1))
        let pipeline = CapturePipeline(
            request: RecordingRequest(defaults: RecorderDefaults()), backend: backend, sink: FakeSink(),
            callbackQueue: queue, timeouts: CaptureTimeouts(stall: 3600, readGrace: 0.2)
        ) { event in
            guard case .audioFlowing = event else { return }
            let frames = backend.framesRead.withLock { $0 }
            flowed.withLock { $0 = (.now, frames) }
        }
        let started = ContinuousClock.now
        queue.sync { pipeline.start() }
        try waitUntil(timeout: .seconds(2)) { flowed.withLock { $0.at } != nil }
        let (at, frames) = flowed.withLock { $0 }
        let waited = try #require(at) - started
        #expect(frames == 0, "nothing was read yet")
        #expect(waited >= .milliseconds(200) && waited < .seconds(1), "announced after \(waited)")
        queue.sync { pipeline.stop() }
    }

    /// The frames written are the policy's count, published for the queue: a write that
    /// fails (a full disk) is not among them.
    @Test func theRecordedFramesAreThoseTheFileTookNotAFailedWrite() throws {
        let queue = DispatchQueue(label: "pipeline-test")
        let sink = FakeSink(failAfterFrames: 2000)
        let ended = Mutex<CaptureEnding?>(nil)
        let pipeline = CapturePipeline(
            request: RecordingRequest(defaults: RecorderDefaults()), backend: FakeBackend(), sink: sink,
            callbackQueue: queue
        ) { event in
            if case .ended(let ending, _) = event { ended.withLock { $0 = ending } }
        }
        queue.sync { pipeline.start() }
        try waitUntil(timeout: .seconds(5)) { ended.withLock { $0 } != nil }
        #expect(ended.withLock { $0 } == .writeFailed(.storage("No space left on device")))
        #expect(sink.frames == 2 * 960, "the third fragment did not fit")
        #expect(queue.sync { pipeline.recordedFrames } == sink.frames)
    }
}
