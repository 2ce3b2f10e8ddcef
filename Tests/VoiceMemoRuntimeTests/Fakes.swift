import Dispatch
import Foundation
import Synchronization
import VoiceMemoCore
import VoiceMemoRuntime

/// A capture stream that produces a counting ramp about ten times faster than real time,
/// turning to digital silence after `silentAfterReads` reads if given, or hanging in a read
/// (for `hangSeconds`) after `hangAfterReads`, as PipeWire does when every source is gone.
final class FakeCapture: AudioCapture {
    let sourceName = "fake_mic"
    private var next: Int16 = 0
    private var reads = 0
    private let silentAfterReads: Int?
    private let failAfterReads: Int?
    private let hangAfterReads: Int?
    private let hangSeconds: Double
    /// How long each read takes.
    private let readSeconds: Double
    /// Told the frames of each read as it completes.
    private let onRead: @Sendable (Int) -> Void
    /// Asked before each read whether it is sound (the ramp) or silence; nil: always sound.
    private let isLoud: (@Sendable () -> Bool)?
    /// Told when a read begins to hang, and when it returns.
    private let onHang: @Sendable (Bool) -> Void

    init(
        silentAfterReads: Int? = nil, failAfterReads: Int? = nil, hangAfterReads: Int? = nil,
        hangSeconds: Double = 3600, readSeconds: Double = 0.002,
        isLoud: (@Sendable () -> Bool)? = nil, onRead: @escaping @Sendable (Int) -> Void = { _ in },
        onHang: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.isLoud = isLoud
        self.onHang = onHang
        self.silentAfterReads = silentAfterReads
        self.failAfterReads = failAfterReads
        self.hangAfterReads = hangAfterReads
        self.hangSeconds = hangSeconds
        self.readSeconds = readSeconds
        self.onRead = onRead
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RecorderError) {
        // A device's pace and a device's hang are time itself, which no condition stands for:
        // a read takes `readSeconds` (2 ms: ten times real time), the one that hangs its seconds.
        let hangs = reads == hangAfterReads
        if hangs { onHang(true) }
        Thread.sleep(forTimeInterval: hangs ? hangSeconds : readSeconds)
        if hangs { onHang(false) }
        reads += 1
        if let failAfterReads, reads > failAfterReads { throw .audioServer("Connection terminated") }
        let silent = (silentAfterReads.map { reads > $0 } ?? false) || isLoud?() == false
        let samples = buffer.bindMemory(to: Int16.self)
        for index in samples.indices {
            samples[index] = silent ? 0 : next
            next &+= 1
        }
        onRead(samples.count)  // mono: a sample per frame
    }

    /// A fake has no server to say when its audio was captured.
    func timing() -> StreamTiming? { nil }
}

/// A file sink that keeps what was written in memory.
final class FakeSink: AudioFileSink, Sendable {
    private let state = Mutex<(frames: Int, closed: Bool, failAfter: Int?, syncedFrames: Int)>((0, false, nil, 0))
    /// Every sample written, when the backend keeps them (mono 16-bit requests only).
    private let keptSamples: Mutex<[Int16]>?

    init(failAfterFrames: Int? = nil, keepsSamples: Bool = false) {
        keptSamples = keepsSamples ? Mutex([]) : nil
        state.withLock { $0.failAfter = failAfterFrames }
    }

    /// The samples written so far (empty unless kept).
    var samples: [Int16] { keptSamples?.withLock { $0 } ?? [] }

    var frames: Int { state.withLock { $0.frames } }
    var isClosed: Bool { state.withLock { $0.closed } }
    /// The frames written when `synchronize()` was last called.
    var syncedFrames: Int { state.withLock { $0.syncedFrames } }

    func write(_ frames: UnsafeRawBufferPointer, frameCount: Int) throws(RecorderError) {
        let failed = state.withLock { state -> Bool in
            precondition(!state.closed, "write after close")
            if let limit = state.failAfter, state.frames + frameCount > limit { return true }
            state.frames += frameCount
            return false
        }
        if failed { throw .storage("No space left on device") }
        keptSamples?.withLock { $0.append(contentsOf: frames.bindMemory(to: Int16.self).prefix(frameCount)) }
    }

    func synchronize() throws(RecorderError) {
        state.withLock { $0.syncedFrames = $0.frames }
    }

    func close() throws(RecorderError) {
        state.withLock { $0.closed = true }
    }
}

/// Hands out fake ends and remembers them; files are created for real so the recorder's
/// directory rules (unique names, cancel deletes) are exercised.
final class FakeBackend: RecordingBackend, Sendable {
    let sinks = Mutex<[String: FakeSink]>([:])
    /// When each file was created (Unix seconds), by path.
    let creationTimes = Mutex<[String: Double]>([:])
    let refuseCapture: Bool
    let failAfterFrames: Int?
    let silentAfterReads: Int?
    /// The first capture stream fails after this many reads (the server "dies").
    let loseServerAfterReads: Int?
    /// Opens refused after the first one: the server's downtime (Int.max: it never returns).
    let refusedReconnects: Int
    /// The first capture stream hangs in a read after this many reads, for `hangSeconds`.
    let hangAfterReads: Int?
    let hangSeconds: Double
    /// How long each read takes: 2 ms by default, ten times faster than a device, which
    /// squeezes the recorder's own deadlines (as the second a file may take) tenfold.
    let readSeconds: Double
    let opens = Mutex(0)
    /// Whether the microphone hears sound at each read, counted over every stream (a room
    /// that goes on while streams come and go); nil: always sound.
    let loudness: (@Sendable (Int) -> Bool)?
    private let roomReads = Mutex(0)
    /// Frames every capture stream has delivered so far (the fakes record mono).
    let framesRead = Mutex(0)
    /// Whether a read is hanging now (see `hangAfterReads`).
    let isHanging = Mutex(false)

    init(
        refuseCapture: Bool = false, failAfterFrames: Int? = nil, silentAfterReads: Int? = nil,
        loseServerAfterReads: Int? = nil, refusedReconnects: Int = 0, hangAfterReads: Int? = nil,
        hangSeconds: Double = 3600, readSeconds: Double = 0.002, loudness: (@Sendable (Int) -> Bool)? = nil
    ) {
        self.loudness = loudness
        self.refuseCapture = refuseCapture
        self.failAfterFrames = failAfterFrames
        self.silentAfterReads = silentAfterReads
        self.loseServerAfterReads = loseServerAfterReads
        self.refusedReconnects = refusedReconnects
        self.hangAfterReads = hangAfterReads
        self.hangSeconds = hangSeconds
        self.readSeconds = readSeconds
    }

    func makeFileSink(path: String, request: RecordingRequest, tags: MemoTags) throws(RecorderError) -> AudioFileSink {
        guard FileManager.default.createFile(atPath: path, contents: Data()) else {
            throw .storage("cannot create \(path)")
        }
        let sink = FakeSink(failAfterFrames: failAfterFrames, keepsSamples: loudness != nil)
        sinks.withLock { $0[path] = sink }
        creationTimes.withLock { $0[path] = Date().timeIntervalSince1970 }
        return sink
    }

    func openCapture(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture {
        if refuseCapture { throw .audioServer("Connection refused") }
        let attempt = opens.withLock { count -> Int in
            count += 1
            return count
        }
        let onRead: @Sendable (Int) -> Void = { [self] frames in framesRead.withLock { $0 += frames } }
        var isLoud: (@Sendable () -> Bool)?
        if let loudness { isLoud = { @Sendable [self] in loudness(nextRoomRead()) } }
        if attempt == 1 {
            return FakeCapture(
                silentAfterReads: silentAfterReads, failAfterReads: loseServerAfterReads,
                hangAfterReads: hangAfterReads,
                hangSeconds: hangSeconds, readSeconds: readSeconds, isLoud: isLoud, onRead: onRead,
                onHang: { [self] hanging in isHanging.withLock { $0 = hanging } })
        }
        if attempt - 1 <= refusedReconnects { throw .audioServer("Connection refused") }
        return FakeCapture(silentAfterReads: silentAfterReads, readSeconds: readSeconds, isLoud: isLoud, onRead: onRead)
    }

    /// The fakes have no output to monitor.
    func openSystemAudio(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture {
        throw .audioServer("recording system audio needs an output device, and the fake server has none")
    }

    /// The index of the next read in the room, over every stream.
    private func nextRoomRead() -> Int {
        roomReads.withLock { count -> Int in
            defer { count += 1 }
            return count
        }
    }

    func sink(for memo: MemoReference) -> FakeSink? { sinks.withLock { $0[memo.path] } }
}

/// Collects what the recorder reports. The recorder calls it on its queue while a test
/// reads it from its own task, so what it holds is behind a mutex.
final class RecordingObserver: Sendable {
    private struct Log {
        var states: [RecorderState] = []
        var stateTimes: [Double] = []
        var finished: [(MemoReference, Bool)] = []
        var encodeErrors: [String] = []
        var interruptions: [(InterruptionReason, Bool)] = []
        var routes: [(RouteChangeReason, String, String)] = []
        var measured: [(Levels, Double)] = []
    }

    private let log = Mutex(Log())

    var states: [RecorderState] { log.withLock { $0.states } }
    /// When each state in `states` was entered (Unix seconds).
    var stateTimes: [Double] { log.withLock { $0.stateTimes } }
    var finished: [(MemoReference, Bool)] { log.withLock { $0.finished } }
    var encodeErrors: [String] { log.withLock { $0.encodeErrors } }
    var interruptions: [(InterruptionReason, Bool)] { log.withLock { $0.interruptions } }
    var routes: [(RouteChangeReason, String, String)] { log.withLock { $0.routes } }
    var measured: [(Levels, Double)] { log.withLock { $0.measured } }

    /// Listens to everything `recorder` reports.
    func listen(to recorder: Recorder) {
        recorder.notifications.observe { [self, unowned recorder] in hear($0, state: recorder.state) }
    }

    private func hear(_ notification: RecorderNotification, state: RecorderState) {
        log.withLock { log in
            switch notification {
            case .changed(let properties) where properties.contains(.state):
                log.states.append(state)
                log.stateTimes.append(Date().timeIntervalSince1970)
            case .changed: break
            case .finished(let memo, let successfully): log.finished.append((memo, successfully))
            case .encodeFailed(_, let message): log.encodeErrors.append(message)
            case .interruption(let reason, let began, _): log.interruptions.append((reason, began))
            case .routeChanged(let reason, let previous, let current): log.routes.append((reason, previous, current))
            case .levels(let levels, _, let time): log.measured.append((levels, time))
            }
        }
    }
}

/// A temporary directory removed when the test's value goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/voicememo-unit-\(UInt64.random(in: 0...UInt64.max))"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// A mono speed changer that keeps each frame's value: at speed s it plays each frame 1/s
/// times on average (frames dropped when faster, repeated when slower) and holds the newest
/// `heldFrames` back until more come or a flush, as libsonic holds pitch periods.
/// `@unchecked Sendable`: only the playback thread calls it; tests read its atomics, and
/// its buffers only after the playback ended.
final class FakeSpeedChanger: SpeedChanger, @unchecked Sendable {
    var speed: Double = 1
    let heldFrames = 50
    /// Frames it was given in all.
    let framesWritten = Atomic<Int>(0)
    private var input: [Float] = []
    private var ready: [Float] = []
    private var credit = 0.0

    func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError) {
        framesWritten.add(frames.count, ordering: .relaxed)
        input.append(contentsOf: frames)
        change(keeping: heldFrames)
    }

    func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount: Int) -> Int {
        let count = min(frameCount, ready.count)
        for index in 0..<count { buffer[index] = ready[index] }
        ready.removeFirst(count)
        return count
    }

    func flush() throws(RecorderError) { change(keeping: 0) }

    func clear() throws(RecorderError) {
        input = []
        ready = []
        credit = 0
    }

    private func change(keeping kept: Int) {
        let count = max(0, input.count - kept)
        for value in input.prefix(count) {
            credit += 1 / speed
            while credit >= 1 {
                ready.append(value)
                credit -= 1
            }
        }
        input.removeFirst(count)
    }
}
