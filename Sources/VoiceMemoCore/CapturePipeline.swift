import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc  // usleep
#endif

/// Moves audio from a capture stream into a file on a thread of its own, so the bus never
/// waits on the audio server and the audio never waits on the bus.
///
/// Owned by the recorder's queue: `start`, `pause`, `resume` and `stop` are called there, and
/// every callback is delivered there. The capture thread only reads the atomics below.
public final class CapturePipeline: @unchecked Sendable {
    /// How a pipeline ended.
    public enum Ending: Equatable, Sendable {
        /// `stop()` was called; the file is complete.
        case stopped
        /// The requested duration was reached; the file is complete.
        case durationReached
        /// The input stayed below the silence threshold for the requested time; the file is complete.
        case silenceReached
        /// The capture stream failed; the file holds everything captured before.
        case captureFailed(RecorderError)
        /// Writing failed; the file holds everything written before.
        case writeFailed(RecorderError)
    }

    /// Called once the capture stream is connected (or failed to connect).
    public var onStarted: ((Result<String, RecorderError>) -> Void)?
    /// Called once after the file is closed.
    public var onEnded: ((Ending, RecorderError?) -> Void)?
    /// Called when the capture stream fails mid-recording; the file stays open and the
    /// pipeline keeps trying to reconnect until `giveUp()` or `stop()`.
    public var onCaptureLost: ((RecorderError) -> Void)?
    /// Called when a lost capture stream is connected again (with the new source's name);
    /// audio goes on into the same file.
    public var onCaptureRestored: ((String) -> Void)?
    /// Called after each metering window (about 100 ms) of written audio while
    /// `isMeteringEnabled`, with the levels and the recorded time at its end.
    public var onLevels: ((Levels, Double) -> Void)?

    private let request: RecordingRequest
    private let backend: RecordingBackend
    private let sink: AudioFileSink
    private let callbackQueue: DispatchQueue
    private let framesPerRead: Int
    private let syncInterval: Int

    private let isPaused = Atomic<Bool>(false)
    private let isStopRequested = Atomic<Bool>(false)
    private let isGivenUp = Atomic<Bool>(false)
    private let recordedFrameCount = Atomic<Int>(0)
    private let meteringFlag = Atomic<Bool>(false)
    private let lastLevels: Mutex<Levels>
    /// Callers of `synchronize(completion:)` waiting for the capture thread.
    private let synchronizations = Mutex<[@Sendable () -> Void]>([])

    /// Frames per read: 20 ms keeps stop and pause within a fragment of the request.
    public static func framesPerRead(sampleRate: UInt32) -> Int { Int(sampleRate) / 50 }

    public init(request: RecordingRequest, backend: RecordingBackend, sink: AudioFileSink, callbackQueue: DispatchQueue) {
        self.request = request
        self.backend = backend
        self.sink = sink
        self.callbackQueue = callbackQueue
        self.framesPerRead = Self.framesPerRead(sampleRate: request.sampleRate)
        // Sync every second: at most a second lost to a power failure, little disk churn.
        self.syncInterval = Int(request.sampleRate)
        self.lastLevels = Mutex(Levels.silence(channels: Int(request.channels)))
    }

    /// Whether `onLevels` is called; levels are measured either way, for `levels`.
    public var isMeteringEnabled: Bool {
        get { meteringFlag.load(ordering: .relaxed) }
        set { meteringFlag.store(newValue, ordering: .relaxed) }
    }

    /// The levels of the last metering window; silence while paused.
    public var levels: Levels { lastLevels.withLock { $0 } }

    /// Frames written to the file so far (pauses excluded).
    public var recordedFrames: Int { recordedFrameCount.load(ordering: .relaxed) }

    /// Seconds written to the file so far.
    public var currentTime: Double { Double(recordedFrames) / Double(request.sampleRate) }

    /// Opens the capture stream and starts moving audio, off the caller's queue.
    public func start() {
        // A queue of its own per recording: its one work item blocks in `read` for as long
        // as the recording lasts, which is what a dedicated thread is for.
        DispatchQueue(label: "voicememo.capture", qos: .userInteractive).async { [self] in run() }
    }

    /// Stops writing; captured audio is discarded until `resume()`.
    public func pause() {
        isPaused.store(true, ordering: .relaxed)
        lastLevels.withLock { $0 = .silence(channels: Int(request.channels)) }
    }

    /// Writes again, appending to the same file.
    public func resume() { isPaused.store(false, ordering: .relaxed) }

    /// Flushes everything written so far to disk (header included) on the capture thread,
    /// after the read in progress, then calls `completion` on the callback queue. Called
    /// after `pause()` it covers every frame the recording holds.
    public func synchronize(completion: @escaping @Sendable () -> Void) {
        synchronizations.withLock { $0.append(completion) }
    }

    /// Ends the recording after the read in progress; `onEnded` follows once the file is closed.
    public func stop() { isStopRequested.store(true, ordering: .relaxed) }

    /// Stops waiting for a lost capture stream: the recording ends with `.captureFailed`.
    public func giveUp() { isGivenUp.store(true, ordering: .relaxed) }

    private func run() {
        let capture: AudioCapture
        do {
            capture = try backend.openCapture(request: request, framesPerRead: framesPerRead)
        } catch {
            let closeError = closeSink()
            deliver { $0.onStarted?(.failure(error)) }
            deliver { $0.onEnded?(.captureFailed(error), closeError) }
            return
        }
        let sourceName = capture.sourceName
        deliver { $0.onStarted?(.success(sourceName)) }
        var current = capture
        var ending: Ending
        while true {
            ending = pump(from: current)
            // A lost stream is not the end of the memo: wait for the server (or device) to
            // come back and go on writing into the same, still valid, file.
            guard case .captureFailed(let error) = ending else { break }
            deliver { $0.onCaptureLost?(error) }
            guard let restored = reconnect() else { break }
            current = restored
            let name = restored.sourceName
            deliver { $0.onCaptureRestored?(name) }
        }
        let closeError = closeSink()
        // A closed file is as synchronized as it gets.
        for completion in synchronizations.withLock({ waiting in defer { waiting = [] }; return waiting }) {
            deliver { _ in completion() }
        }
        let finalEnding = ending
        deliver { $0.onEnded?(finalEnding, closeError) }
    }

    /// Opens a new capture stream with growing pauses (100 ms … 1 s) until it works, or
    /// returns nil once the recording is stopped or given up.
    private func reconnect() -> AudioCapture? {
        var pause = 100
        while !isStopRequested.load(ordering: .relaxed) && !isGivenUp.load(ordering: .relaxed) {
            if let capture = try? backend.openCapture(request: request, framesPerRead: framesPerRead) { return capture }
            // Sleep in short steps so a stop is honoured promptly.
            for _ in 0..<(pause / 20) where !isStopRequested.load(ordering: .relaxed) {
                usleep(20_000)
            }
            pause = min(pause * 2, 1000)
        }
        return nil
    }

    private func pump(from capture: AudioCapture) -> Ending {
        let sampleType = request.format.sampleType(for: request.quality)
        let bytesPerFrame = Int(request.channels) * sampleType.byteCount
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: framesPerRead * bytesPerFrame, alignment: 16)
        defer { buffer.deallocate() }
        let limit = request.frameLimit
        let silenceLimit = request.silenceFrameLimit
        var meter = LevelMeter(channels: Int(request.channels), sampleRate: Int(request.sampleRate))
        var silentFrames = 0
        var framesSinceSync = 0
        // A stop that arrives before the first write still waits for one fragment, so a
        // memo toggled off at once holds audio (an Opus stream with no packets is malformed).
        while !isStopRequested.load(ordering: .relaxed) || (recordedFrames == 0 && !isPaused.load(ordering: .relaxed)) {
            do {
                try capture.read(into: buffer)
            } catch {
                return .captureFailed(error)
            }
            // A read that completes after a pause or stop request holds mostly audio from
            // after the request, so it is dropped for pause but kept for stop.
            if isPaused.load(ordering: .relaxed) {
                meter.reset()
                // Entering a pause: bring the file on disk (header included) up to date, so
                // a paused memo is whole on disk for as long as the pause lasts.
                if framesSinceSync > 0 {
                    do { try sink.synchronize() } catch { return .writeFailed(error) }
                    framesSinceSync = 0
                }
                if synchronizeIfRequested() { framesSinceSync = 0 }
                continue
            }
            var frames = framesPerRead
            if let limit { frames = min(frames, limit - recordedFrames) }
            let written = UnsafeRawBufferPointer(rebasing: buffer[0..<(frames * bytesPerFrame)])
            do {
                try sink.write(written, frameCount: frames)
                framesSinceSync += frames
                if framesSinceSync >= syncInterval {
                    try sink.synchronize()
                    framesSinceSync = 0
                }
                if synchronizeIfRequested() { framesSinceSync = 0 }
            } catch {
                return .writeFailed(error)
            }
            recordedFrameCount.add(frames, ordering: .relaxed)
            if let levels = meter.add(written, frameCount: frames, type: sampleType) {
                publish(levels)
                silentFrames = (levels.average.max() ?? Levels.floor) < request.silenceThreshold ? silentFrames + meter.windowFrames : 0
                if let silenceLimit, silentFrames >= silenceLimit { return .silenceReached }
            }
            if let limit, recordedFrames >= limit { return .durationReached }
        }
        return .stopped
    }

    /// Syncs the file if someone asked to, and tells them; whether it synced.
    private func synchronizeIfRequested() -> Bool {
        let waiting = synchronizations.withLock { waiting in
            defer { waiting = [] }
            return waiting
        }
        guard !waiting.isEmpty else { return false }
        try? sink.synchronize()
        for completion in waiting { deliver { _ in completion() } }
        return true
    }

    private func publish(_ levels: Levels) {
        lastLevels.withLock { $0 = levels }
        guard isMeteringEnabled else { return }
        let time = currentTime
        deliver { $0.onLevels?(levels, time) }
    }

    private func closeSink() -> RecorderError? {
        do {
            try sink.close()
            return nil
        } catch {
            return error
        }
    }

    private func deliver(_ body: @escaping @Sendable (CapturePipeline) -> Void) {
        callbackQueue.async { body(self) }
    }
}
