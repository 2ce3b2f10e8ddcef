import TestSupport
import Testing
import VoiceMemoCore

/// A stream read as the pump reads one: the server delivers blocks of a graph cycle each, late
/// by a delay that varies, and each read of a fragment returns as soon as its last frame has
/// arrived. The timing must tell when frame 0 was captured from those returns alone.
@Suite("Delivery timing")
struct DeliveryTimingTests {
    static let rate = 48_000.0

    @Test func nothingIsKnownBeforeARead() {
        #expect(DeliveryTiming(sampleRate: 48_000).timing == nil)
    }

    @Test(arguments: [(480, 1024), (441, 1024), (960, 960), (480, 2048)])
    func twoStreamsOfOneServerCycleAreTimedAlike(fragment: Int, block: Int) {
        // The microphone's 20 ms reads and another stream's, delivered the same blocks at the
        // same moments: their frame 0s, captured together, are timed within 1.5 ms.
        var microphone = Stream(fragment: 960, block: block)
        var other = Stream(fragment: fragment, block: block)
        microphone.read(seconds: 1)
        other.read(seconds: 1)
        let (first, second) = (microphone.timing.timing!, other.timing.timing!)
        #expect(first.latency >= 0 && second.latency >= 0, "no read comes before the earliest")
        #expect(abs(microphone.error(first) - other.error(second)) < 0.0015)
        // Neither is timed before the truth, nor later than a delivery's longest delay.
        for (stream, timing) in [(microphone, first), (other, second)] {
            #expect(stream.error(timing) >= Stream.leastDelay - 1e-6)
            #expect(stream.error(timing) < Stream.leastDelay + Stream.jitter + 0.0015)
        }
    }

    @Test func aStreamThatLostAudioIsTimedRightWithinASecond() {
        var stream = Stream(fragment: 960, block: 1024)
        stream.read(seconds: 2)
        // 36 ms of audio never reached the client: its frame 0 now seems 36 ms later.
        stream.captureStart += 0.036
        stream.read(seconds: 0.2)
        #expect(stream.error(stream.timing.timing!) < -0.030, "the earlier deliveries still count")
        stream.read(seconds: 1)
        let error = stream.error(stream.timing.timing!)
        #expect(error >= Stream.leastDelay - 1e-6 && error < Stream.leastDelay + Stream.jitter + 0.0015)
    }

    @Test func aPauseInReadingForgetsWhatCameBefore() {
        var stream = Stream(fragment: 960, block: 1024)
        stream.read(seconds: 1)
        stream.captureStart += 0.050
        // A second without reads, then one read: the buckets before it are stale.
        stream.skip(seconds: 1)
        stream.read(seconds: 0.05)
        #expect(stream.error(stream.timing.timing!) > 0)
    }
}

/// A server delivering `block`-frame cycles to a reader of `fragment`-frame reads. Block k
/// arrives `leastDelay` plus up to `jitter` after its last frame was captured, the same for
/// every stream of the server.
private struct Stream {
    static let leastDelay = 0.002
    static let jitter = 0.003
    let fragment: Int
    let block: Int
    var timing = DeliveryTiming(sampleRate: 48_000)
    /// When frame 0 was captured, in seconds of the monotonic clock.
    var captureStart = 1_000.0
    var framesRead = 0
    /// Frames delivered to the client so far, and when the last block arrived.
    var framesDelivered = 0
    var lastArrival = 0.0
    var now = 1_000.0

    init(fragment: Int, block: Int) {
        self.fragment = fragment
        self.block = block
    }

    var rate: Double { DeliveryTimingTests.rate }

    /// Reads for `seconds` of audio.
    mutating func read(seconds: Double) {
        let end = framesRead + Int(seconds * rate)
        while framesRead < end {
            while framesDelivered < framesRead + fragment {
                framesDelivered += block
                var noise = SeededGenerator(seed: UInt64(framesDelivered))
                let delay = Self.leastDelay + Double.random(in: 0...Self.jitter, using: &noise)
                lastArrival = max(lastArrival, captureStart + Double(framesDelivered) / rate + delay)
                now = max(now, lastArrival)
            }
            framesRead += fragment
            now += 0.000_1
            timing.record(framesRead: framesRead, clock: UInt64((now * 1e9).rounded()))
        }
    }

    /// Lets `seconds` pass without reading; the audio of that time is lost.
    mutating func skip(seconds: Double) {
        now += seconds
        captureStart += seconds
    }

    /// How much later than the truth `timing` puts frame 0's capture, in seconds.
    func error(_ timing: StreamTiming) -> Double {
        let frameZero = Double(timing.clock) / 1e9 - timing.latency - Double(timing.framesRead) / rate
        return frameZero - captureStart
    }
}
