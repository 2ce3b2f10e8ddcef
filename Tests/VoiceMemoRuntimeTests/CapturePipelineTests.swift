import Dispatch
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
        let pipeline = CapturePipeline(
            request: RecordingRequest(defaults: RecorderDefaults()), backend: backend, sink: sink, callbackQueue: queue)
        let endedAt = Mutex<ContinuousClock.Instant?>(nil)
        queue.sync {
            pipeline.onEnded = { _, _ in endedAt.withLock { $0 = .now } }
            pipeline.start()
        }
        // The fourth refused attempt (the fifth open) is followed by an 800 ms pause.
        try await waitUntil(timeout: .seconds(5)) { backend.opens.withLock { $0 } >= 5 }
        try await Task.sleep(for: .milliseconds(100))
        let attempts = backend.opens.withLock { $0 }
        let asked = ContinuousClock.now
        queue.sync { givingUp ? pipeline.giveUp() : pipeline.stop() }
        try await waitUntil(timeout: .seconds(3)) { endedAt.withLock { $0 } != nil }
        let waited = try #require(endedAt.withLock { $0 }) - asked
        #expect(waited < .milliseconds(300), "ended \(waited) after the request")
        #expect(backend.opens.withLock { $0 } == attempts, "no attempt after the request")
        #expect(sink.isClosed)
        #expect(sink.frames == 10 * CapturePipeline.framesPerRead(sampleRate: RecorderDefaults().sampleRate))
    }
}
