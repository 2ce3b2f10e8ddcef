import Dispatch
import Synchronization

/// Plays one memo at a time on the default output, AVAudioPlayer-style: `play` replaces
/// what is playing, `stop` ends it, and the observer hears how each playback ended.
///
/// Confined to `queue` like the recorder; each playback runs on a thread of its own.
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

    /// Called on `queue` when the memo now playing changes (nil: nothing plays).
    public var onPlayingChanged: ((MemoReference?) -> Void)?
    /// Called on `queue` once per playback.
    public var onEnded: ((MemoReference, Ending) -> Void)?

    private let backend: PlaybackBackend
    private let queue: DispatchQueue
    private var current: Playback?

    public init(backend: PlaybackBackend, queue: DispatchQueue) {
        self.backend = backend
        self.queue = queue
    }

    /// The memo playing, if any.
    public var playing: MemoReference? { current?.memo }

    /// Starts `memo`, stopping whatever played. A file that cannot even be opened throws.
    public func play(_ memo: MemoReference) throws(RecorderError) {
        dispatchPrecondition(condition: .onQueue(queue))
        let source = try backend.openSource(path: memo.path)
        stop()
        let playback = Playback(memo: memo, source: source)
        current = playback
        onPlayingChanged?(memo)
        DispatchQueue(label: "voicememo.playback", qos: .userInitiated).async { [self] in
            let ending = run(playback)
            queue.async { [self] in finish(playback, ending) }
        }
    }

    /// Stops the playback, if any; `onEnded` follows with `.stopped`.
    public func stop() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let playback = current else { return }
        playback.isStopRequested.store(true, ordering: .relaxed)
        current = nil
        onPlayingChanged?(nil)
    }

    private func finish(_ playback: Playback, _ ending: Ending) {
        if current === playback {
            current = nil
            onPlayingChanged?(nil)
        }
        onEnded?(playback.memo, playback.isStopRequested.load(ordering: .relaxed) ? .stopped : ending)
    }

    /// The playback thread: decode, write, and drain at the end so "finished" means heard.
    private func run(_ playback: Playback) -> Ending {
        let output: AudioPlayback
        do {
            output = try backend.openPlayback(sampleRate: playback.source.sampleRate, channels: playback.source.channels)
        } catch {
            return .outputFailed(error.message)
        }
        // 20 ms per write keeps a stop prompt.
        let frames = max(1, Int(playback.source.sampleRate) / 50)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * Int(playback.source.channels))
        defer { buffer.deallocate() }
        while !playback.isStopRequested.load(ordering: .relaxed) {
            let read: Int
            do {
                read = try playback.source.read(into: buffer, frameCount: frames)
            } catch {
                output.flush()
                return .decodeFailed(error.message)
            }
            guard read > 0 else {
                do { try output.drain() } catch { return .outputFailed(error.message) }
                return .finished
            }
            do {
                try output.write(UnsafeBufferPointer(rebasing: buffer[0..<(read * Int(playback.source.channels))]))
            } catch {
                return .outputFailed(error.message)
            }
        }
        output.flush()
        return .stopped
    }
}

/// One memo being played.
private final class Playback: @unchecked Sendable {
    let memo: MemoReference
    let source: AudioFileSource
    let isStopRequested = Atomic<Bool>(false)

    init(memo: MemoReference, source: AudioFileSource) {
        self.memo = memo
        self.source = source
    }
}
