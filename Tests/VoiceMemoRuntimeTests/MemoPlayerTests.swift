import Dispatch
import Foundation
import IntegrationSupport
import Synchronization
import Testing
import VoiceMemoCore
import VoiceMemoRuntime

/// A mono source whose sample at frame n is n (so what was written tells where it came from).
private final class CountingSource: AudioFileSource {
    let sampleRate: UInt32 = 1000
    let channels: UInt32 = 1
    let frameCount: Int
    private var next = 0

    init(seconds: Int) { frameCount = seconds * 1000 }

    func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount count: Int) throws(RecorderError) -> Int {
        let frames = min(count, frameCount - next)
        for index in 0..<frames { buffer[index] = Float(next + index) }
        next += frames
        return frames
    }

    func seek(toFrame frame: Int) throws(RecorderError) { next = frame }
}

/// An output that keeps every sample written, at about real time.
private final class RecordingOutput: AudioPlayback, Sendable {
    let written = Mutex<[Float]>([])

    func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError) {
        written.withLock { $0.append(contentsOf: frames) }
        // A sound card's pace, a frame a millisecond: what is played takes its time, which no
        // condition stands for.
        Thread.sleep(forTimeInterval: Double(frames.count) / 1000)
    }

    func drain() throws(RecorderError) {}
    func flush() {}
}

/// An output whose writes block until the test opens the gate, like a full server buffer.
private final class GatedOutput: AudioPlayback, Sendable {
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let writes = Atomic<Int>(0)

    func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError) {
        entered.signal()
        gate.wait()
        writes.add(1, ordering: .relaxed)
    }

    func drain() throws(RecorderError) {}
    func flush() {}

    /// Waits until the next write has begun; a player that never writes fails the test
    /// here (and the rest of it is skipped) instead of hanging the suite.
    func waitForWrite(_ comment: Comment) throws {
        try #require(entered.wait(timeout: .now() + .seconds(5)) == .success, comment)
    }
}

/// 1 s of sound, 4 s of digital silence, 1 s of sound at 1000 Hz; each sound sample tells its frame.
private final class ToneGapToneSource: AudioFileSource {
    let sampleRate: UInt32 = 1000
    let channels: UInt32 = 1
    private var next = 0

    func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount count: Int) throws(RecorderError) -> Int {
        let frames = min(count, 6000 - next)
        for index in 0..<frames {
            let frame = next + index
            buffer[index] = (1000..<5000).contains(frame) ? 0 : 0.1 + Float(frame) / 10000
        }
        next += frames
        return frames
    }

    func seek(toFrame frame: Int) throws(RecorderError) { next = frame }
}

/// An output that keeps what is written and calls `onWrite` before each write.
/// `@unchecked Sendable`: `onWrite` is set before the playback starts; after that only the
/// playback's thread reads it.
private final class WatchedOutput: AudioPlayback, @unchecked Sendable {
    let written = Mutex<[Float]>([])
    var onWrite: @Sendable () -> Void = {}
    /// The player writing and its queue, for an `onWrite` that changes its rate (an atomic)
    /// or seeks (on the queue).
    weak var player: MemoPlayer?
    var queue: DispatchQueue?

    func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError) {
        onWrite()
        written.withLock { $0.append(contentsOf: frames) }
    }

    func drain() throws(RecorderError) {}
    func flush() {}
}

private struct FakePlaybackBackend: PlaybackBackend {
    let output: any AudioPlayback & Sendable
    var source: @Sendable () -> AudioFileSource = { CountingSource(seconds: 10) }
    var speedChanger: FakeSpeedChanger = FakeSpeedChanger()

    func openSource(path: String) throws(RecorderError) -> AudioFileSource { source() }
    func openPlayback(sampleRate: UInt32, channels: UInt32) throws(RecorderError) -> AudioPlayback { output }
    func openSpeedChanger(sampleRate: UInt32, channels: UInt32) throws(RecorderError) -> SpeedChanger { speedChanger }
}

@Suite("Memo player: pause and seek")
struct MemoPlayerTests {
    /// `SkipSilence` is saved with the recorder's defaults; the recorder tells the player.
    @Test func theRecorderKeepsThePlayerSkippingSilenceAsItsDefaultsSay() throws {
        let queue = DispatchQueue(label: "player-test")
        let directory = TemporaryDirectory()
        let player = MemoPlayer(backend: FakePlaybackBackend(output: RecordingOutput()), queue: queue)
        var defaults = RecorderDefaults()
        defaults.skipsSilence = true
        let recorder = Recorder(
            directory: MemoDirectory(path: directory.path + "/memos"), defaults: defaults, settings: nil,
            backend: FakeBackend(), player: player, queue: queue)
        #expect(player.skipsSilence, "from the start")
        let turnedOff = queue.sync {
            Result { () throws(RecorderError) in try recorder.updateDefaults { $0.skipsSilence = false } }
        }
        try turnedOff.get()
        #expect(!player.skipsSilence, "after a change")
    }

    /// `PlaybackRate` is saved with the recorder's defaults too; the recorder tells the player.
    @Test func theRecorderKeepsThePlayerRateAsItsDefaultsSay() throws {
        let queue = DispatchQueue(label: "player-test")
        let directory = TemporaryDirectory()
        let player = MemoPlayer(backend: FakePlaybackBackend(output: RecordingOutput()), queue: queue)
        var defaults = RecorderDefaults()
        defaults.playbackRate = 1.5
        let recorder = Recorder(
            directory: MemoDirectory(path: directory.path + "/memos"), defaults: defaults, settings: nil,
            backend: FakeBackend(), player: player, queue: queue)
        #expect(player.rate == 1.5, "from the start")
        let changed = queue.sync {
            Result { () throws(RecorderError) in try recorder.updateDefaults { $0.playbackRate = 0.5 } }
        }
        try changed.get()
        #expect(player.rate == 0.5, "after a change")
    }

    /// Plays `seconds` of `CountingSource` to the end through `backend`'s output; what was
    /// written and the position before each write.
    private func playToTheEnd(
        _ output: WatchedOutput, _ backend: FakePlaybackBackend, rate: Double, skipsSilence: Bool = false
    ) throws -> (written: [Float], positions: [Double]) {
        let queue = DispatchQueue(label: "player-test")
        output.queue = queue
        let player = MemoPlayer(backend: backend, queue: queue)
        let positions = Mutex<[Double]>([])
        let previous = output.onWrite
        output.onWrite = {
            previous()
            positions.withLock { $0.append(queue.sync { player.position }) }
        }
        let ended = Mutex<MemoPlayer.Ending?>(nil)
        queue.sync {
            player.ended.observe { event in ended.withLock { $0 = event.ending } }
            player.rate = rate
            player.skipsSilence = skipsSilence
        }
        output.player = player
        try queue.sync { try player.play(MemoReference(id: "m", path: "/nonexistent")) }
        try waitUntil(timeout: .seconds(5)) { ended.withLock { $0 != nil } }
        #expect(ended.withLock { $0 } == .finished)
        return (output.written.withLock { $0 }, positions.withLock { $0 })
    }

    @Test func atDoubleSpeedTheChangerPlaysAndItsHeldFramesComeOutAtTheEnd() throws {
        let backend = FakePlaybackBackend(output: WatchedOutput(), source: { CountingSource(seconds: 1) })
        let (written, positions) = try playToTheEnd(backend.output as! WatchedOutput, backend, rate: 2)
        #expect(backend.speedChanger.framesWritten.load(ordering: .relaxed) == 1000)
        // Every second frame, in order, to the last, which the changer held until the end.
        #expect(written == stride(from: 1, through: 999, by: 2).map(Float.init))
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(positions.last == 1.0, "the position is the memo's own time: all of it, at the end")
    }

    @Test func atSpeedOneTheChangerIsBypassed() throws {
        let backend = FakePlaybackBackend(output: WatchedOutput(), source: { CountingSource(seconds: 1) })
        let (written, _) = try playToTheEnd(backend.output as! WatchedOutput, backend, rate: 1)
        #expect(backend.speedChanger.framesWritten.load(ordering: .relaxed) == 0)
        #expect(written == (0..<1000).map(Float.init))
    }

    @Test func goingBackToSpeedOnePlaysOutWhatTheChangerHeldFirst() throws {
        let output = WatchedOutput()
        let backend = FakePlaybackBackend(output: output, source: { CountingSource(seconds: 1) })
        let writes = Atomic<Int>(0)
        output.onWrite = { [unowned output] in
            // Ten writes at double speed, then back to 1.
            if writes.add(1, ordering: .relaxed).newValue == 10 { output.player?.rate = 1 }
        }
        let (written, _) = try playToTheEnd(output, backend, rate: 2)
        #expect(zip(written, written.dropFirst()).allSatisfy { $0 < $1 }, "nothing reordered")
        let firstEven = try #require(written.firstIndex { Int($0) % 2 == 0 }, "speed 1 was reached")
        #expect(written[..<firstEven].allSatisfy { Int($0) % 2 == 1 }, "double speed before")
        #expect(written[firstEven] - written[firstEven - 1] <= 2, "what the changer held was played out")
        #expect(
            written[firstEven...] == ArraySlice((Int(written[firstEven])...999).map(Float.init)), "every frame after")
    }

    @Test func aSeekAtDoubleSpeedDropsWhatTheChangerHeld() throws {
        let output = WatchedOutput()
        let backend = FakePlaybackBackend(output: output, source: { CountingSource(seconds: 1) })
        let writes = Atomic<Int>(0)
        let handedOnAtSeek = Atomic<Int>(-1)
        output.onWrite = { [unowned output] in
            guard writes.add(1, ordering: .relaxed).newValue == 5, let player = output.player else { return }
            output.queue?.sync {
                handedOnAtSeek.store(Int((player.position * 1000).rounded()), ordering: .relaxed)
                player.seek(to: 0.5)
            }
        }
        let (written, _) = try playToTheEnd(output, backend, rate: 2)
        let seekFrom = handedOnAtSeek.load(ordering: .relaxed)
        try #require(seekFrom > 0 && seekFrom < 500, "sought from early in the memo")
        let before = written.prefix { $0 < 500 }
        #expect(before.max() ?? 0 < Float(seekFrom), "nothing the changer held before the seek was played")
        #expect(written.dropFirst(before.count) == ArraySlice(stride(from: 501, through: 999, by: 2).map(Float.init)))
    }

    @Test func silenceIsSkippedBeforeTheSpeedChanges() throws {
        let backend = FakePlaybackBackend(output: WatchedOutput(), source: { ToneGapToneSource() })
        let (written, positions) = try playToTheEnd(
            backend.output as! WatchedOutput, backend, rate: 2, skipsSilence: true)
        #expect(backend.speedChanger.framesWritten.load(ordering: .relaxed) == 2400, "1 s + 0.2 s + 0.2 s + 1 s")
        #expect(written.count == 1200, "at double speed")
        #expect(positions.last == 6.0, "the position is the memo's own time")
    }

    @Test func aPausedPlaybackWritesNothingAndResumesAtTheSeekTarget() async throws {
        let queue = DispatchQueue(label: "player-test")
        let output = RecordingOutput()
        let player = MemoPlayer(backend: FakePlaybackBackend(output: output), queue: queue)
        let memo = MemoReference(id: "m", path: "/nonexistent")

        try queue.sync { try player.play(memo, paused: true) }
        // Anything written while paused would also be the first frames below, not the target's.
        #expect(output.written.withLock { $0.isEmpty }, "started paused: nothing is written")
        queue.sync {
            #expect(player.isPaused)
            player.seek(to: 2.5)
            #expect(player.position == 2.5, "the position reports the target at once")
            #expect(player.isPaused, "seeking keeps it paused")
            player.resume()
        }
        try waitUntil { output.written.withLock { $0.count >= 40 } }
        #expect(output.written.withLock { $0.first } == 2500, "resumed at the seek target")
        queue.sync {
            #expect(!player.isPaused)
            #expect(player.position >= 2.5)
            player.stop()
            #expect(player.playing == nil)
            #expect(player.position == 0)
        }
    }

    @Test func aWriteInFlightWhenPausedDoesNotMoveThePosition() async throws {
        let queue = DispatchQueue(label: "player-test")
        let output = GatedOutput()
        let player = MemoPlayer(backend: FakePlaybackBackend(output: output), queue: queue)
        try queue.sync { try player.play(MemoReference(id: "m", path: "/nonexistent")) }
        defer {
            // Also when a wait failed: stop, and let the write in flight (or one begun after
            // the resume) return, so no playback thread is left blocked.
            queue.sync { player.stop() }
            output.gate.signal()
        }
        try output.waitForWrite("the first write begins")
        output.gate.signal()  // the first write returns: 20 frames played
        try output.waitForWrite("the second write begins")  // and is in flight
        let held = queue.sync {
            player.pause()
            return player.position
        }
        #expect(held == 0.02)
        output.gate.signal()  // the write in flight returns after the pause
        try waitUntil { output.writes.load(ordering: .relaxed) >= 2 }
        // A write that should not happen has no event to wait for: give a wrong one the time
        // of one 20 ms fragment to begin.
        try await Task.sleep(for: .milliseconds(20))
        queue.sync {
            #expect(output.writes.load(ordering: .relaxed) == 2, "paused: no further write")
            #expect(player.position == held, "paused: the position stays")
            player.resume()
            #expect(player.position >= held, "resumed: the position goes on from the frames written")
        }
    }

    @Test func skippingSilencePlaysTheEdgesAndThePositionStaysInTheMemosTime() async throws {
        let queue = DispatchQueue(label: "player-test")
        let output = WatchedOutput()
        let player = MemoPlayer(
            backend: FakePlaybackBackend(output: output, source: { ToneGapToneSource() }), queue: queue)
        let positions = Mutex<[Double]>([])
        output.onWrite = { positions.withLock { $0.append(queue.sync { player.position }) } }
        let ended = Mutex<MemoPlayer.Ending?>(nil)
        queue.sync {
            player.ended.observe { event in ended.withLock { $0 = event.ending } }
            player.skipsSilence = true
        }
        try queue.sync { try player.play(MemoReference(id: "m", path: "/nonexistent")) }
        try waitUntil(timeout: .seconds(5)) { ended.withLock { $0 != nil } }
        #expect(ended.withLock { $0 } == .finished)
        let written = output.written.withLock { $0 }
        #expect(written.count == 2400, "1 s + 0.2 s + 0.2 s + 1 s")
        // The first sound whole, then 0.2 s of silence, then the last 0.2 s of it, then the second sound whole.
        #expect(written[0..<1000].enumerated().allSatisfy { $1 == 0.1 + Float($0) / 10000 })
        #expect(written[1000..<1400].allSatisfy { $0 == 0 })
        #expect(written[1400..<2400].enumerated().allSatisfy { $1 == 0.1 + Float(5000 + $0) / 10000 })
        // Positions before each write: the memo's own time, jumping over the skipped 3.6 s.
        let seen = positions.withLock { $0 }
        #expect(seen.count == 120)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(seen[60] == 1.2 && seen[61] == 4.82, "after the first edge the next block is 4.8 s into the memo")
        #expect(seen.last == 5.98)
    }
}

@Suite("Observers")
struct ObserversTests {
    @Test func everyListenerHearsEveryEventInTheOrderTheyCame() {
        let observers = Observers<Int>()
        var heard: [String] = []
        observers.observe { heard.append("first \($0)") }
        observers.observe { heard.append("second \($0)") }
        observers.notify(1)
        observers.notify(2)
        #expect(heard == ["first 1", "second 1", "first 2", "second 2"])
    }
}
