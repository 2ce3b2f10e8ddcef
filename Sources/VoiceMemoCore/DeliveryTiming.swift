/// A stream's timing (`StreamTiming`) told from when its reads were delivered, rather than
/// from the server's latency report: PipeWire's pulse server reports many a monitor stream's
/// latency as 0 one read and 20 ms the next, which left a call's two sides 6 to 20 ms apart.
///
/// A frame is delivered after it was captured, so a read that brings the stream to
/// `framesRead` frames at `clock` says frame 0 was captured by `clock − framesRead / rate`.
/// The earliest such bound among recent reads is the tightest: the server delivers in
/// blocks, and the read that ends with a block, as it arrives, bounds it within the
/// delivery's own delay, which two streams of one server cycle share. The latest read's
/// latency is how much later it came than that earliest delivery.
///
/// The earliest is kept over the last half second to second (two buckets of half a second):
/// a stream that loses audio (a stall, a server reconfiguring its graph) is timed right
/// again within a second, and each bucket holds many reads, among them one whose end meets
/// a block's end (with 20 ms reads and 1024-frame blocks, every 15 blocks).
public struct DeliveryTiming: Sendable {
    /// How long each of the two buckets collects reads, in nanoseconds.
    public static let bucketNanoseconds: UInt64 = 500_000_000

    private let sampleRate: Double
    /// The earliest delivery in the current bucket, which began at `bucketStart`.
    private var current: StreamTiming?
    private var bucketStart: UInt64 = 0
    /// The earliest delivery in the bucket before it.
    private var previous: StreamTiming?
    /// The latest read.
    private var latest: StreamTiming?

    /// Timing of a stream of `sampleRate` frames per second.
    public init(sampleRate: UInt32) {
        precondition(sampleRate > 0, "a stream has a sample rate")
        self.sampleRate = Double(sampleRate)
    }

    /// Records a read that brought the stream to `framesRead` frames at `clock` (monotonic
    /// nanoseconds).
    public mutating func record(framesRead: Int, clock: UInt64) {
        if current == nil || clock &- bucketStart >= Self.bucketNanoseconds {
            // A bucket is only a neighbour if it ended just now: after a pause in reading, the
            // one before says nothing of the stream as it is.
            previous = clock &- bucketStart < 2 * Self.bucketNanoseconds ? current : nil
            current = nil
            bucketStart = clock
        }
        let delivery = StreamTiming(framesRead: framesRead, latency: 0, clock: clock)
        latest = delivery
        if current.map({ lag(of: delivery, behind: $0) < 0 }) ?? true {
            current = delivery
        }
    }

    /// The latest read's timing, its latency being how much later it came than the recent
    /// delivery that bounds frame 0's capture most tightly; nil before a read.
    public var timing: StreamTiming? {
        guard var latest, let current else { return nil }
        let earliest = previous.map { lag(of: $0, behind: current) < 0 ? $0 : current } ?? current
        latest.latency = lag(of: latest, behind: earliest)
        return latest
    }

    /// How much later, in seconds, `delivery` came than `earlier` says frames come: negative
    /// when it puts frame 0 earlier.
    private func lag(of delivery: StreamTiming, behind earlier: StreamTiming) -> Double {
        // The clocks' difference first: nanoseconds of uptime lose precision as a Double.
        let seconds = Double(Int64(bitPattern: delivery.clock &- earlier.clock)) / 1e9
        return seconds - Double(delivery.framesRead - earlier.framesRead) / sampleRate
    }
}
