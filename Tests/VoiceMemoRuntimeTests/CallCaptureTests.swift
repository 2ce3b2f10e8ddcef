import Dispatch
import Foundation
import IntegrationSupport
import Synchronization
import Testing
import VoiceMemoCore
import VoiceMemoRuntime

/// A stream of one constant sample, mono, that fails after `failAfterReads` reads if given.
/// The microphone's reads take 2 ms (ten times real time) and each lets the system side read
/// as much (`pace`: two reads of half as many frames), which starts a fragment ahead: the two
/// inputs keep one clock, as a call's streams from one server do, whichever thread reads them.
private final class ConstantCapture: AudioCapture {
    let sourceName: String
    private let value: Int16
    private let failAfterReads: Int?
    private let pace: DispatchSemaphore
    private let isMicrophone: Bool
    private let device = FakeCapture()
    private var reads = 0

    init(name: String, value: Int16, pace: DispatchSemaphore, isMicrophone: Bool, failAfterReads: Int? = nil) {
        sourceName = name
        self.value = value
        self.pace = pace
        self.isMicrophone = isMicrophone
        self.failAfterReads = failAfterReads
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RecorderError) {
        if isMicrophone {
            // A device's pace, kept by the fakes' one microphone: 2 ms a read, ten times real time.
            try device.read(into: buffer)
            pace.signal()
            pace.signal()
        } else {
            pace.wait()
        }
        reads += 1
        if let failAfterReads, reads > failAfterReads { throw .deviceLost("the output is gone") }
        buffer.bindMemory(to: Int16.self).update(repeating: value)
    }

    func timing() -> StreamTiming? { nil }
}

/// A call's two ends: the microphone always at 1000, the system audio at 3000, its first
/// stream failing after `systemReads` reads and the next `refusedReopens` opens refused.
private final class CallBackend: RecordingBackend, Sendable {
    let sink = FakeSink(keepsSamples: true)
    let systemOpens = Mutex(0)
    /// Where the pipeline said the system side records, in order.
    let outputs = Mutex<[String?]>([])
    /// Made at 0 and signalled for a fragment's reads: a semaphore released below its starting
    /// value traps, and a closed reader's stream may still wait on this one.
    private let pace = DispatchSemaphore(value: 0)
    private let systemReads: Int?
    private let refusedReopens: Int

    init(systemReads: Int? = nil, refusedReopens: Int = 0) {
        self.systemReads = systemReads
        self.refusedReopens = refusedReopens
        pace.signal()
        pace.signal()
    }

    func makeFileSink(path: String, request: RecordingRequest, tags: MemoTags) throws(RecorderError) -> AudioFileSink {
        sink
    }

    func openCapture(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture {
        ConstantCapture(name: "mic", value: 1000, pace: pace, isMicrophone: true)
    }

    func openSystemAudio(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture {
        let open = systemOpens.withLock { count -> Int in
            count += 1
            return count
        }
        if open == 1 {
            return ConstantCapture(
                name: "speaker", value: 3000, pace: pace, isMicrophone: false, failAfterReads: systemReads)
        }
        if open - 1 <= refusedReopens { throw .audioServer("no output") }
        return ConstantCapture(name: "headphones", value: 3000, pace: pace, isMicrophone: false)
    }
}

@Suite("Capturing a call")
struct CallCaptureTests {
    private let queue = DispatchQueue(label: "call-test")

    private func call() throws -> RecordingRequest {
        try RecordingRequest(
            defaults: RecorderDefaults(), options: ["system-audio": .boolean(true), "channels": .uint32(1)], now: 0)
    }

    /// Starts a pipeline for `backend`, which collects where the system side records.
    private func start(_ backend: CallBackend) throws -> CapturePipeline {
        let pipeline = CapturePipeline(request: try call(), backend: backend, sink: backend.sink, callbackQueue: queue)
        {
            if case .systemAudioChanged(let output, _) = $0 { backend.outputs.withLock { $0.append(output) } }
        }
        queue.sync { pipeline.start() }
        return pipeline
    }

    @Test func bothInputsAreMixedAtHalfEach() throws {
        let backend = CallBackend()
        let pipeline = try start(backend)
        try waitUntil(timeout: .seconds(5)) { backend.sink.frames >= 20 * 960 }
        queue.sync { pipeline.stop() }
        try waitUntil(timeout: .seconds(5)) { backend.sink.isClosed }
        // The system side is placed once it has delivered (the memo begins with the microphone
        // alone for a fragment or two); from then on both are in every sample.
        let samples = backend.sink.samples
        let placed = try #require(samples.firstIndex(of: 2000))
        #expect(placed <= 3 * 960)
        #expect(Set(samples[placed...]) == [2000], "(1000 + 3000) / 2 in every sample")
        #expect(backend.outputs.withLock { $0 } == ["speaker"])
    }

    /// The system side fails: the memo goes on with the microphone alone (half of it, the
    /// other half silence) for exactly as long as the side is gone, then both again.
    @Test func aLostSystemSideIsSilenceUntilItOpensAgain() throws {
        let backend = CallBackend(systemReads: 30, refusedReopens: 2)
        let pipeline = try start(backend)
        try waitUntil(timeout: .seconds(10)) { backend.outputs.withLock { $0 } == ["speaker", nil, "headphones"] }
        let reopened = backend.sink.frames
        try waitUntil(timeout: .seconds(5)) { backend.sink.frames >= reopened + 10 * 960 }
        queue.sync { pipeline.stop() }
        try waitUntil(timeout: .seconds(5)) { backend.sink.isClosed }
        let samples = backend.sink.samples.drop { $0 == 500 }
        #expect(Set(samples) == [2000, 500], "both, or the microphone with silence")
        let firstLoss = try #require(samples.firstIndex(of: 500))
        let lastLoss = try #require(samples.lastIndex(of: 500))
        #expect(samples[..<firstLoss].count >= 7 * 960, "the first stream's audio is in the memo")
        #expect(samples[firstLoss...lastLoss].allSatisfy { $0 == 500 }, "one stretch of silence")
        #expect(samples.last == 2000, "both sides again")
        #expect(backend.systemOpens.withLock { $0 } == 4, "opened, refused twice, opened")
    }

    /// A reopen (the default output changed) costs the system side the time its new stream
    /// takes to deliver, and the microphone nothing.
    @Test func aReopenRequestOpensTheSystemSideAgain() throws {
        let backend = CallBackend()
        let pipeline = try start(backend)
        try waitUntil(timeout: .seconds(5)) { backend.sink.frames >= 5 * 960 }
        queue.sync { pipeline.reopenSystemAudio() }
        try waitUntil(timeout: .seconds(5)) { backend.outputs.withLock { $0 } == ["speaker", "headphones"] }
        // Ten fragments more: the new stream is placed after its third read, and a stop
        // before that would end the memo in the gap this test measures.
        let reopened = backend.sink.frames
        try waitUntil(timeout: .seconds(5)) { backend.sink.frames >= reopened + 10 * 960 }
        queue.sync { pipeline.stop() }
        try waitUntil(timeout: .seconds(5)) { backend.sink.isClosed }
        // The new stream is placed once it has delivered: until then its side is silence.
        let samples = backend.sink.samples.drop { $0 == 500 }
        #expect(samples.filter { $0 == 500 }.count <= 3 * 960, "a fragment or so without the system side")
        #expect(samples.last == 2000 && Set(samples).isSubset(of: [500, 2000]))
    }
}
