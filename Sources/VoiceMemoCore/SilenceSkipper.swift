/// Which blocks of a memo `SkipSilence` plays: a stretch below `threshold` longer than
/// `minimumSkipped` is cut down to `keptAtEachEdge` after the sound that ends it and
/// `keptAtEachEdge` before the sound that follows, so words on either side do not run
/// together; shorter pauses are played whole.
///
/// Streaming, block by block, for the playback thread: the first `keptAtEachEdge` of a
/// silence plays at once; what follows is held until the silence turns out short (then it
/// all plays) or long (then only its newest `keptAtEachEdge` is kept, to play before the
/// sound that ends it). `Block` is whatever the player holds: audio and its place in the memo.
public struct SilenceSkipper<Block> {
    /// A block whose peak is below this level, in dBFS, is silent.
    public static var threshold: Double { -50 }
    /// Silences up to this long (seconds) are played whole.
    public static var minimumSkipped: Double { 0.5 }
    /// Seconds of a long silence kept after the sound before it, and again before the sound after it.
    public static var keptAtEachEdge: Double { 0.2 }

    private let keptFrames: Int
    private let minimumFrames: Int
    /// Frames of the silence in progress, 0 during sound.
    private var silentFrames = 0
    /// Silent blocks past the played edge, not yet played, oldest first.
    private var held: [(block: Block, frames: Int)] = []
    private var heldFrames = 0

    public init(sampleRate: UInt32) {
        keptFrames = Int(Self.keptAtEachEdge * Double(sampleRate))
        minimumFrames = Int(Self.minimumSkipped * Double(sampleRate))
    }

    /// Whether the silence in progress is long enough to be cut.
    public var isSkipping: Bool { silentFrames > minimumFrames }

    /// Takes the next block of the memo; returns the blocks to play now, in order.
    public mutating func add(_ block: Block, frames: Int, isSilent: Bool) -> [Block] {
        guard isSilent else { return release() + [block] }
        let isEdge = silentFrames < keptFrames
        silentFrames += frames
        if isEdge { return [block] }
        held.append((block, frames))
        heldFrames += frames
        if isSkipping {
            // Keep only the newest edge's worth: the rest of the silence is skipped.
            while let oldest = held.first, heldFrames - oldest.frames >= keptFrames {
                held.removeFirst()
                heldFrames -= oldest.frames
            }
        }
        return []
    }

    /// The blocks held back, to play now (sound came, or skipping was turned off), and a
    /// fresh start: the next silent block begins a new silence.
    public mutating func release() -> [Block] {
        defer { reset() }
        return held.map(\.block)
    }

    /// At the end of the memo: a short silence plays out; the rest of a long one is skipped.
    public mutating func finish() -> [Block] {
        isSkipping ? [] : release()
    }

    /// Forgets the silence in progress without playing what is held (after a seek).
    public mutating func reset() {
        silentFrames = 0
        held = []
        heldFrames = 0
    }

    /// Whether interleaved float samples are silent: every one below `threshold` (the peak).
    public static func isSilent(_ samples: UnsafeBufferPointer<Float>) -> Bool {
        let limit = Float(Levels.amplitude(decibels: threshold))
        return !samples.contains { abs($0) >= limit }
    }
}
