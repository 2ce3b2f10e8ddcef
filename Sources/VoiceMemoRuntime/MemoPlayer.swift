import Dispatch
import Synchronization
import VoiceMemoCore

/// Plays one memo at a time on the default output, AVAudioPlayer-style: `play` replaces
/// what is playing, `pause` holds it (nothing is written, the position stays), `seek`
/// moves it, `stop` ends it, and the observer hears how each playback ended.
///
/// Confined to `queue` like the recorder, which every method checks (hence `@unchecked
/// Sendable`); each playback runs on a thread of its own.
public final class MemoPlayer: @unchecked Sendable {
    /// How a playback ended.
    public enum Ending: Equatable, Sendable {
        /// The end of the file was reached and heard.
        case finished
        /// `stop()` (or a newer `play`) ended it.
        case stopped
        /// The file could not be decoded; the message says why.
        case decodeFailed(String)
        /// The audio server refused or failed.
        case outputFailed(String)
    }

    /// Told on `queue` when the memo now playing changes (nil: nothing plays).
    public let playingChanged = Observers<MemoReference?>()
    /// Told on `queue` once per playback.
    public let ended = Observers<(memo: MemoReference, ending: Ending)>()
    /// Told on `queue` after anything a transport control shows changed: the memo
    /// playing, `isPaused`, or a jump of `position`.
    public let statusChanged = Observers<Void>()

    private let backend: PlaybackBackend
    private let queue: DispatchQueue
    private var current: Playback?
    private let skipsSilenceFlag = Atomic<Bool>(false)
    /// `rate`'s bit pattern: `Atomic` holds no `Double`.
    private let rateBits = Atomic<UInt64>(1.0.bitPattern)

    /// Whether long silences are skipped (`SilenceSkipper`'s rules); `position` stays in the
    /// memo's own time. Takes effect on the playback in progress within a block.
    public var skipsSilence: Bool {
        get { skipsSilenceFlag.load(ordering: .relaxed) }
        set { skipsSilenceFlag.store(newValue, ordering: .relaxed) }
    }

    /// How many times faster than recorded the memo plays, pitch kept (a speed changer's
    /// work; 1 bypasses it); `position` stays in the memo's own time. Takes effect on the
    /// playback in progress within a block.
    public var rate: Double {
        get { Double(bitPattern: rateBits.load(ordering: .relaxed)) }
        set {
            precondition(Validation.playbackRates.contains(newValue), "a rate the settings checked")
            rateBits.store(newValue.bitPattern, ordering: .relaxed)
        }
    }

    public init(backend: PlaybackBackend, queue: DispatchQueue) {
        self.backend = backend
        self.queue = queue
    }

    /// The memo playing, if any (also while it is paused).
    public var playing: MemoReference? { current?.memo }

    /// Whether the memo playing is paused.
    public var isPaused: Bool { current?.isPaused.load(ordering: .relaxed) ?? false }

    /// Seconds into the memo playing (what has been handed to the output), 0 when none.
    public var position: Double {
        guard let current else { return 0 }
        return Double(current.position) / Double(max(current.source.sampleRate, 1))
    }

    /// Starts `memo`, stopping whatever played; `paused` starts it held at the beginning.
    /// A file that cannot even be opened throws.
    public func play(_ memo: MemoReference, paused: Bool = false) throws(RecorderError) {
        dispatchPrecondition(condition: .onQueue(queue))
        let source = try backend.openSource(path: memo.path)
        stop()
        let playback = Playback(memo: memo, source: source)
        playback.isPaused.store(paused, ordering: .relaxed)
        current = playback
        playingChanged.notify(memo)
        statusChanged.notify()
        DedicatedThread.start(name: "vm-playback") { [self] in
            let ending = run(playback)
            queue.async { [self] in finish(playback, ending) }
        }
    }

    /// Stops the playback, if any; `ended` is told `.stopped`.
    public func stop() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let playback = current else { return }
        playback.isStopRequested.store(true, ordering: .relaxed)
        playback.wake.signal()
        current = nil
        playingChanged.notify(nil)
        statusChanged.notify()
    }

    /// Holds the playback where it is: the thread stops writing (what the server has
    /// buffered, under 0.1 s, still sounds) and `position` stays. No-op when paused or idle.
    public func pause() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let playback = current, !playback.isPaused.load(ordering: .relaxed) else { return }
        // A write in flight still counts its frames when it returns; the position must not.
        playback.heldPosition.store(playback.position, ordering: .relaxed)
        playback.isPaused.store(true, ordering: .relaxed)
        statusChanged.notify()
    }

    /// Continues a paused playback from its position. No-op unless paused.
    public func resume() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let playback = current, playback.isPaused.load(ordering: .relaxed) else { return }
        playback.isPaused.store(false, ordering: .relaxed)
        playback.heldPosition.store(-1, ordering: .relaxed)
        playback.wake.signal()
        statusChanged.notify()
    }

    /// Moves the playback to `seconds` from the start (clamped at 0); paused stays paused.
    /// `position` reports the target at once; the thread drops what was buffered.
    public func seek(to seconds: Double) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let playback = current else { return }
        let frame = Int((max(0, seconds) * Double(playback.source.sampleRate)).rounded())
        playback.pendingSeek.store(frame, ordering: .relaxed)
        statusChanged.notify()
    }

    private func finish(_ playback: Playback, _ ending: Ending) {
        dispatchPrecondition(condition: .onQueue(queue))
        if current === playback {
            current = nil
            playingChanged.notify(nil)
            statusChanged.notify()
        }
        ended.notify((playback.memo, playback.isStopRequested.load(ordering: .relaxed) ? .stopped : ending))
    }

    /// The playback thread: decode, skip silence, change the speed, write, and drain at the
    /// end so "finished" means heard.
    private func run(_ playback: Playback) -> Ending {
        let output: SpeedChangingOutput
        do {
            output = SpeedChangingOutput(
                try backend.openPlayback(sampleRate: playback.source.sampleRate, channels: playback.source.channels),
                speedChanger: try backend.openSpeedChanger(
                    sampleRate: playback.source.sampleRate, channels: playback.source.channels),
                channels: Int(playback.source.channels))
        } catch {
            return .outputFailed(error.message)
        }
        // 20 ms per write keeps a stop prompt.
        let frames = max(1, Int(playback.source.sampleRate) / 50)
        let channels = Int(playback.source.channels)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * channels)
        defer { buffer.deallocate() }
        var skipper = SilenceSkipper<HeldBlock>(sampleRate: playback.source.sampleRate)
        /// The memo frame the next read starts at.
        var decoded = 0
        /// Writes blocks the skipper let through; the position becomes the end of the last.
        func play(_ blocks: [HeldBlock]) throws(RecorderError) {
            for block in blocks {
                try block.samples.withUnsafeBufferPointer { (samples) throws(RecorderError) in
                    try output.write(samples, rate: rate)
                }
                playback.framesWritten.store(block.start + block.samples.count / channels, ordering: .relaxed)
            }
        }
        while !playback.isStopRequested.load(ordering: .relaxed) {
            if playback.isPaused.load(ordering: .relaxed) {
                // Corked by not writing; pause, resume and stop all signal `wake`.
                playback.wake.wait()
                continue
            }
            let target = playback.pendingSeek.load(ordering: .relaxed)
            if target >= 0 {
                do {
                    try playback.source.seek(toFrame: target)
                } catch {
                    output.flush()
                    return .decodeFailed(error.message)
                }
                do {
                    try output.flushClearingSpeedChanger()
                } catch {
                    return .outputFailed(error.message)
                }
                skipper.reset()
                decoded = target
                playback.framesWritten.store(target, ordering: .relaxed)
                // A newer seek that came meanwhile stays pending.
                _ = playback.pendingSeek.compareExchange(expected: target, desired: -1, ordering: .relaxed)
                continue
            }
            let read: Int
            do {
                read = try playback.source.read(into: buffer, frameCount: frames)
            } catch {
                output.flush()
                return .decodeFailed(error.message)
            }
            guard read > 0 else {
                do {
                    try play(skipper.finish())
                    try output.finish()
                } catch {
                    return .outputFailed(error.message)
                }
                return .finished
            }
            let samples = UnsafeBufferPointer(rebasing: buffer[0..<(read * channels)])
            do {
                if skipsSilence {
                    let block = HeldBlock(samples: Array(samples), start: decoded)
                    try play(skipper.add(block, frames: read, isSilent: SilenceSkipper<HeldBlock>.isSilent(samples)))
                } else {
                    try play(skipper.release())  // skipping was just turned off
                    try output.write(samples, rate: rate)
                    playback.framesWritten.store(decoded + read, ordering: .relaxed)
                }
            } catch {
                return .outputFailed(error.message)
            }
            decoded += read
        }
        output.flush()
        return .stopped
    }
}

/// A block of decoded audio the silence skipper may hold, with its first frame in the memo.
private struct HeldBlock {
    var samples: [Float]
    var start: Int
}

/// One memo being played. `@unchecked Sendable` for `source`, which only the playback's
/// thread reads from (the queue asks just its fixed `sampleRate`); the rest is atomics and
/// a semaphore.
private final class Playback: @unchecked Sendable {
    let memo: MemoReference
    let source: AudioFileSource
    let isStopRequested = Atomic<Bool>(false)
    let isPaused = Atomic<Bool>(false)
    /// Signalled on every pause, resume and stop, so a paused thread waits without polling.
    let wake = DispatchSemaphore(value: 0)
    /// Frames handed to the output, counted from the start of the file.
    let framesWritten = Atomic<Int>(0)
    /// The frame a seek asked for, or -1.
    let pendingSeek = Atomic<Int>(-1)
    /// The position when paused, or -1 while playing.
    let heldPosition = Atomic<Int>(-1)

    /// The position in frames: a pending seek's target, where it was paused, or what was written.
    var position: Int {
        let target = pendingSeek.load(ordering: .relaxed)
        if target >= 0 { return target }
        let held = heldPosition.load(ordering: .relaxed)
        return held >= 0 ? held : framesWritten.load(ordering: .relaxed)
    }

    init(memo: MemoReference, source: AudioFileSource) {
        self.memo = memo
        self.source = source
    }
}
