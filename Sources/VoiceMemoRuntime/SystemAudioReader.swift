import Dispatch
import Synchronization
import VoiceMemoCore

/// The system side of a call, read on a thread of its own into a first-in first-out buffer.
///
/// `pa_simple` has no read that returns what is there: a read waits for a whole fragment. A
/// stream the server is moving to another output, or one whose output vanished, can keep a
/// read waiting for seconds, and the microphone, read on the capture thread, is the memo's
/// clock: it must never wait on the system side. So this thread does the waiting, and the
/// capture thread takes what has arrived (see `take`), waiting for frames that are due only
/// while the side delivers, and not at all on a side that has stopped delivering.
///
/// Frames are counted from the stream's first: the buffer holds frames `first ..< read`.
/// `@unchecked Sendable`: the stream is the reader thread's alone; everything else the two
/// threads share is in `state`.
final class SystemAudioReader: @unchecked Sendable {
    /// The output whose monitor the stream records.
    let name: String
    private let stream: AudioCapture
    /// Whether the stream's timing costs nothing to take (see `AudioCapture.isTimingFree`);
    /// read once here, as the stream is then the reader thread's.
    let isTimingFree: Bool
    private let bytesPerFrame: Int
    private let framesPerRead: Int
    private let capacity: Int
    private let storage: UnsafeMutableRawBufferPointer

    private struct State {
        /// The stream's frame the buffer's oldest is; older ones were taken or dropped.
        var first = 0
        /// Frames read from the stream so far.
        var read = 0
        /// The stream's timing after its latest read.
        var timing: StreamTiming?
        /// Why the stream ended, once it has.
        var failure: RecorderError?
        var isClosed = false
        /// When the latest read completed (monotonic nanoseconds).
        var lastDelivery: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Signalled after every fragment appended, for a `take` waiting on it.
    private let delivered = DispatchSemaphore(value: 0)

    /// How long `take` waits for frames not yet there. A monitor may deliver in bursts (a
    /// null sink renders as much as its players buffer ahead), so this is far longer than a
    /// fragment; the microphone's audio waits meanwhile in its own stream, nothing is lost.
    static let arrivalWait = 0.5
    /// A side that delivered nothing for this long is not waited for: it is stalled or gone,
    /// and its side is silence until it delivers again.
    static let liveness = 0.5

    /// A reader of `stream` (frames of `bytesPerFrame` bytes, read `framesPerRead` at a time)
    /// that keeps up to `seconds` of audio at `sampleRate` the capture thread has not taken.
    init(stream: AudioCapture, bytesPerFrame: Int, framesPerRead: Int, sampleRate: UInt32, seconds: Double = 4) {
        name = stream.sourceName
        self.stream = stream
        isTimingFree = stream.isTimingFree
        self.bytesPerFrame = bytesPerFrame
        self.framesPerRead = framesPerRead
        capacity = max(framesPerRead * 2, Int(seconds * Double(sampleRate)))
        storage = .allocate(byteCount: capacity * bytesPerFrame, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    /// Starts reading, until `close()` or a failed read.
    func start() {
        DedicatedThread.start(name: "vm-system-audio") { [self] in run() }
    }

    /// Asks the thread to end after the read in progress; it lets go of the stream then.
    func close() {
        state.withLock { $0.isClosed = true }
    }

    /// The stream's timing after its latest read; nil before the first or when the server
    /// gives none.
    var timing: StreamTiming? { state.withLock { $0.timing } }

    /// Frames read from the stream so far.
    var framesRead: Int { state.withLock { $0.read } }

    /// Why the stream ended; nil while it reads.
    var failure: RecorderError? { state.withLock { $0.failure } }

    /// Copies the stream's frames `frames` into `buffer` (frame `frames.lowerBound` first);
    /// those it does not hold (before the stream began, taken already, or not yet arrived) are
    /// silence. Every frame before `frames.upperBound` is let go.
    func take(_ frames: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) {
        waitForArrival(of: frames.upperBound)
        let held = state.withLock { state in
            let first = max(frames.lowerBound, state.first)
            let end = min(frames.upperBound, state.read)
            let held = first < end ? (first - frames.lowerBound)..<(end - frames.lowerBound) : 0..<0
            if !held.isEmpty {
                copy(first..<end, into: buffer.baseAddress! + held.lowerBound * bytesPerFrame)
            }
            state.first = max(state.first, min(frames.upperBound, state.read))
            return held
        }
        // Only what the stream did not deliver is silenced.
        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(frames.count * bytesPerFrame)])
        UnsafeMutableRawBufferPointer(rebasing: bytes[..<(held.lowerBound * bytesPerFrame)])
            .initializeMemory(as: UInt8.self, repeating: 0)
        UnsafeMutableRawBufferPointer(rebasing: bytes[(held.upperBound * bytesPerFrame)...])
            .initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Waits up to `arrivalWait` for the stream to reach `frame`, if it is delivering.
    private func waitForArrival(of frame: Int) {
        let start = DispatchTime.now()
        let deadline = start + Self.arrivalWait
        while true {
            let (hasArrived, lastDelivery) = state.withLock { ($0.read >= frame || $0.failure != nil, $0.lastDelivery) }
            let isLive = start.uptimeNanoseconds < lastDelivery + UInt64(Self.liveness * 1e9)
            guard !hasArrived, isLive, delivered.wait(timeout: deadline) == .success else { return }
        }
    }

    private func run() {
        let fragment = UnsafeMutableRawBufferPointer.allocate(byteCount: framesPerRead * bytesPerFrame, alignment: 16)
        defer { fragment.deallocate() }
        while !state.withLock({ $0.isClosed }) {
            do {
                try stream.read(into: fragment)
            } catch {
                state.withLock { $0.failure = error }
                delivered.signal()
                return
            }
            let timing = stream.timing()
            state.withLock { state in
                append(fragment, to: &state)
                state.timing = timing
                state.lastDelivery = DispatchTime.now().uptimeNanoseconds
            }
            delivered.signal()
        }
    }

    /// Appends a fragment; when the buffer is full its oldest frames go (the capture thread
    /// has not come for them in `seconds`: they would be too old to place anyway).
    private func append(_ fragment: UnsafeMutableRawBufferPointer, to state: inout State) {
        let start = state.read % capacity
        let first = min(framesPerRead, capacity - start)
        (storage.baseAddress! + start * bytesPerFrame).copyMemory(
            from: fragment.baseAddress!, byteCount: first * bytesPerFrame)
        if first < framesPerRead {
            storage.baseAddress!.copyMemory(
                from: fragment.baseAddress! + first * bytesPerFrame, byteCount: (framesPerRead - first) * bytesPerFrame)
        }
        state.read += framesPerRead
        state.first = max(state.first, state.read - capacity)
    }

    /// Copies the stream's frames `frames`, which the ring holds, to `destination`: one run,
    /// or two where they wrap around the end of the storage.
    private func copy(_ frames: Range<Int>, into destination: UnsafeMutableRawPointer) {
        let start = frames.lowerBound % capacity
        let first = min(frames.count, capacity - start)
        destination.copyMemory(from: storage.baseAddress! + start * bytesPerFrame, byteCount: first * bytesPerFrame)
        if first < frames.count {
            (destination + first * bytesPerFrame).copyMemory(
                from: storage.baseAddress!, byteCount: (frames.count - first) * bytesPerFrame)
        }
    }
}
