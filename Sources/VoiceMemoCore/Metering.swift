#if canImport(Glibc)
    import Glibc  // pow, log10
#elseif canImport(Darwin)
    import Darwin
#endif

/// Per-channel average (RMS) and peak power in dBFS, as AVAudioRecorder reports them.
public struct Levels: Equatable, Sendable {
    /// RMS power of each channel, −160 … 0 dBFS.
    public var average: [Double]
    /// Peak power of each channel, −160 … 0 dBFS.
    public var peak: [Double]

    public init(average: [Double], peak: [Double]) {
        self.average = average
        self.peak = peak
    }

    /// What digital silence (or no input at all) reads as.
    public static let floor = -160.0

    /// Silence on `channels` channels.
    public static func silence(channels: Int) -> Levels {
        Levels(average: Array(repeating: floor, count: channels), peak: Array(repeating: floor, count: channels))
    }

    /// Converts dBFS to a linear amplitude (full scale 1).
    public static func amplitude(decibels: Double) -> Double {
        pow(10, decibels / 20)
    }

    /// Converts a linear amplitude (full scale 1) to dBFS, clamped to −160 … 0.
    public static func decibels(amplitude: Double) -> Double {
        guard amplitude > 0 else { return floor }
        return min(0, Swift.max(floor, 20 * log10(amplitude)))
    }
}

/// Per-channel sums of a run of interleaved frames: what its levels come from, and what adds
/// up over a longer run (a metering window of several capture fragments).
public struct SampleSums: Equatable, Sendable {
    /// The most channels one holds: a lane of the summing vectors each.
    public static let maximumChannels = 8

    /// Per channel (lane), in units of full scale squared, and the peaks in units of full
    /// scale; the lanes past `channels` stay 0. Vectors rather than arrays: sums are made for
    /// every 20 ms fragment, and two arrays each were most of the capture thread's
    /// allocations.
    private var squareLanes = SIMD8<Double>()
    private var peakLanes = SIMD8<Double>()
    public let channels: Int
    public private(set) var frameCount = 0

    /// Nothing summed yet, on `channels` channels.
    public init(channels: Int) {
        precondition((0...Self.maximumChannels).contains(channels), "at most eight channels are summed")
        self.channels = channels
    }

    /// Per channel, in units of full scale squared.
    public var sumOfSquares: [Double] { (0..<channels).map { squareLanes[$0] } }
    /// Per channel, in units of full scale.
    public var peaks: [Double] { (0..<channels).map { peakLanes[$0] } }

    /// The sums of `frameCount` interleaved frames of `type` on `channels` channels.
    public init(of buffer: UnsafeRawBufferPointer, frameCount: Int, channels: Int, type: SampleType) {
        self.init(channels: channels)
        add(buffer, frames: 0..<frameCount, type: type)
    }

    /// RMS and peak power of what was summed; silence for nothing.
    public var levels: Levels {
        guard frameCount > 0 else { return .silence(channels: channels) }
        return Levels(
            average: (0..<channels).map {
                Levels.decibels(amplitude: (squareLanes[$0] / Double(frameCount)).squareRoot())
            },
            peak: (0..<channels).map { Levels.decibels(amplitude: peakLanes[$0]) })
    }

    /// Adds the interleaved frames `frames` of `buffer`.
    ///
    /// Runs on every captured fragment, so it allocates nothing and walks each channel's
    /// samples in one tight loop with its sums in locals: the per-sample closure and
    /// array-indexed sums it replaced cost more CPU than writing the file.
    public mutating func add(_ buffer: UnsafeRawBufferPointer, frames: Range<Int>, type: SampleType) {
        guard buffer.baseAddress != nil, !frames.isEmpty else { return }
        precondition(
            frames.upperBound * channels * type.byteCount <= buffer.count, "the buffer holds fewer frames than counted")
        let first = frames.lowerBound * channels
        if type == .int16, 8 % channels == 0 {
            addInt16(buffer.bindMemory(to: Int16.self).baseAddress! + first, count: frames.count * channels)
        } else {
            for channel in 0..<channels {
                let (sum, peak) =
                    switch type {
                    case .int16:
                        Self.int16Sums(
                            buffer.bindMemory(to: Int16.self).baseAddress! + first + channel, count: frames.count,
                            stride: channels)
                    case .int32:
                        Self.int32Sums(
                            buffer.bindMemory(to: Int32.self).baseAddress! + first + channel, count: frames.count,
                            stride: channels)
                    case .float32:
                        Self.floatSums(
                            buffer.bindMemory(to: Float.self).baseAddress! + first + channel, count: frames.count,
                            stride: channels)
                    }
                squareLanes[channel] += sum
                peakLanes[channel] = max(peakLanes[channel], peak)
            }
        }
        frameCount += frames.count
    }

    /// The sums of channel `index` alone.
    public func channel(_ index: Int) -> SampleSums {
        var one = SampleSums(channels: 1)
        one.squareLanes[0] = squareLanes[index]
        one.peakLanes[0] = peakLanes[index]
        one.frameCount = frameCount
        return one
    }

    /// Adds another run's sums, as if its frames followed these.
    public mutating func add(_ other: SampleSums) {
        precondition(other.channels == channels, "sums of different channel counts")
        squareLanes += other.squareLanes
        peakLanes = pointwiseMax(peakLanes, other.peakLanes)
        frameCount += other.frameCount
    }

    /// The sums of the first `count` frames, estimated from the whole run's (a fragment cut
    /// short by a duration limit): the power is spread evenly, the peak kept.
    public func prefix(_ count: Int) -> SampleSums {
        guard count < frameCount else { return self }
        var cut = self
        let share = Double(count) / Double(frameCount)
        cut.squareLanes *= share
        cut.frameCount = count
        return cut
    }

    /// Back to nothing summed.
    public mutating func reset() {
        squareLanes = .zero
        peakLanes = .zero
        frameCount = 0
    }

    /// Adds `count` interleaved samples, eight at a time (lane k holds channel k % channels,
    /// which needs a channel count that divides eight): the common capture format, summed
    /// on every fragment, in vector instructions rather than one sample at a time.
    private mutating func addInt16(_ samples: UnsafePointer<Int16>, count: Int) {
        var squares = SIMD8<Int64>()
        var low = SIMD8<Int16>()
        var high = SIMD8<Int16>()
        let vectors = count / 8
        let raw = UnsafeRawPointer(samples)
        for index in 0..<vectors {
            let vector = raw.loadUnaligned(fromByteOffset: index &* 16, as: SIMD8<Int16>.self)
            let wide = SIMD8<Int32>(truncatingIfNeeded: vector)
            squares &+= SIMD8<Int64>(truncatingIfNeeded: wide &* wide)
            low = pointwiseMin(low, vector)
            high = pointwiseMax(high, vector)
        }
        // Each lane's sum is exact in Int64 and in Double (far below 2^53), and the scale is a
        // power of two: only adding the lanes of a channel rounds.
        for lane in 0..<8 {
            squareLanes[lane % channels] += Double(squares[lane]) / (32768 * 32768)
            let lanePeak = max(Int32(high[lane]), -Int32(low[lane]))
            peakLanes[lane % channels] = max(peakLanes[lane % channels], Double(lanePeak) / 32768)
        }
        // The samples after the last whole vector (it ends on a frame: 8 is whole frames).
        for index in (vectors * 8)..<count {
            let value = Int32(samples[index])
            squareLanes[index % channels] += Double(value &* value) / (32768 * 32768)
            peakLanes[index % channels] = max(peakLanes[index % channels], Double(abs(value)) / 32768)
        }
    }

    /// Sum of squares and peak of `count` samples `stride` apart, in units of full scale.
    /// Integer arithmetic: exact, and no conversion per sample (16-bit squares fit 31 bits).
    private static func int16Sums(_ sample: UnsafePointer<Int16>, count: Int, stride: Int) -> (Double, Double) {
        var sum: Int64 = 0
        var peak: Int32 = 0
        for index in 0..<count {
            let value = Int32(sample[index &* stride])
            sum &+= Int64(value &* value)
            peak = max(peak, abs(value))
        }
        return (Double(sum) / (32768 * 32768), Double(peak) / 32768)
    }

    /// As `int16Sums`, in Double: 32-bit squares would overflow an integer sum.
    private static func int32Sums(_ sample: UnsafePointer<Int32>, count: Int, stride: Int) -> (Double, Double) {
        var sum = 0.0
        var peak = 0.0
        for index in 0..<count {
            let value = Double(sample[index &* stride]) / 2_147_483_648
            sum += value * value
            peak = max(peak, abs(value))
        }
        return (sum, peak)
    }

    private static func floatSums(_ sample: UnsafePointer<Float>, count: Int, stride: Int) -> (Double, Double) {
        var sum = 0.0
        var peak = 0.0
        for index in 0..<count {
            let value = Double(sample[index &* stride])
            sum += value * value
            peak = max(peak, abs(value))
        }
        return (sum, peak)
    }
}

/// Accumulates interleaved samples into per-channel sums, one metering window at a time.
public struct LevelMeter: Sendable {
    public let channels: Int
    /// Frames per window (about 100 ms).
    public let windowFrames: Int
    private var window: SampleSums

    public init(channels: Int, sampleRate: Int) {
        self.init(channels: channels, windowFrames: sampleRate / 10)
    }

    /// A meter whose windows are `windowFrames` long (one capture fragment, to find a sound's start).
    public init(channels: Int, windowFrames: Int) {
        self.channels = channels
        self.windowFrames = max(1, windowFrames)
        window = SampleSums(channels: channels)
    }

    /// Adds `frameCount` interleaved frames of `type`; returns the levels of each window that
    /// this completes (normally none or one).
    public mutating func add(_ buffer: UnsafeRawBufferPointer, frameCount: Int, type: SampleType) -> Levels? {
        guard buffer.baseAddress != nil, frameCount > 0 else { return nil }
        var completed: Levels?
        var frame = 0
        while frame < frameCount {
            // Up to the end of the window, so a window's sums never mix in the next one's audio.
            let count = min(frameCount - frame, windowFrames - window.frameCount)
            window.add(buffer, frames: frame..<(frame + count), type: type)
            frame += count
            if window.frameCount == windowFrames {
                completed = window.levels
                window.reset()
            }
        }
        return completed
    }

    /// Drops a partly filled window (after a pause, so old audio does not leak into new levels).
    public mutating func reset() {
        window.reset()
    }
}

/// Maps dBFS to a 0…1 display value for level meters: linear amplitude rescaled so that
/// `minimumDecibels` and below show as 0 and 0 dB as 1 (the mapping of Apple's MeterTable
/// sample code, with `root` 1; a `root` of 2 gives its gentler curve).
public struct MeterTable: Sendable {
    public let minimumDecibels: Double
    public let root: Double
    private let minimumAmplitude: Double

    public init(minimumDecibels: Double = -60, root: Double = 1) {
        precondition(minimumDecibels < 0 && root > 0, "a meter table needs a negative floor and a positive root")
        self.minimumDecibels = minimumDecibels
        self.root = root
        minimumAmplitude = pow(10, minimumDecibels / 20)
    }

    /// The display value of `decibels`, 0 … 1.
    public func value(forDecibels decibels: Double) -> Double {
        guard decibels > minimumDecibels else { return 0 }
        guard decibels < 0 else { return 1 }
        let amplitude = pow(10, decibels / 20)
        let rescaled = (amplitude - minimumAmplitude) / (1 - minimumAmplitude)
        return pow(rescaled, 1 / root)
    }
}
