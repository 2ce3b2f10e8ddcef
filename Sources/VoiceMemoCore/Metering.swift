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

    /// What digital silence (or no input at all) reads as.
    public static let floor = -160.0

    /// Silence on `channels` channels.
    public static func silence(channels: Int) -> Levels {
        Levels(average: Array(repeating: floor, count: channels), peak: Array(repeating: floor, count: channels))
    }

    /// Converts a linear amplitude (full scale 1) to dBFS, clamped to −160 … 0.
    public static func decibels(amplitude: Double) -> Double {
        guard amplitude > 0 else { return floor }
        return min(0, Swift.max(floor, 20 * log10(amplitude)))
    }
}

/// Accumulates interleaved samples into per-channel sums, one metering window at a time.
///
/// Lives on the capture thread; `add` is allocation-free so it can run on every fragment.
public struct LevelMeter: Sendable {
    public let channels: Int
    /// Frames per window (about 100 ms).
    public let windowFrames: Int
    private var sumOfSquares: [Double]
    private var peaks: [Double]
    private var frames = 0

    public init(channels: Int, sampleRate: Int) {
        self.channels = channels
        windowFrames = max(1, sampleRate / 10)
        sumOfSquares = Array(repeating: 0, count: channels)
        peaks = Array(repeating: 0, count: channels)
    }

    /// Adds `frameCount` interleaved frames of `type`; returns the levels of each window that
    /// this completes (normally none or one).
    public mutating func add(_ buffer: UnsafeRawBufferPointer, frameCount: Int, type: SampleType) -> Levels? {
        switch type {
        case .int16: accumulate(buffer.bindMemory(to: Int16.self), frameCount: frameCount) { Double($0) / 32768 }
        case .int32: accumulate(buffer.bindMemory(to: Int32.self), frameCount: frameCount) { Double($0) / 2_147_483_648 }
        case .float32: accumulate(buffer.bindMemory(to: Float.self), frameCount: frameCount) { Double($0) }
        }
    }

    /// Adds frames of any sample type; `fullScale` maps a sample to ±1.
    private mutating func accumulate<Sample>(
        _ samples: UnsafeBufferPointer<Sample>, frameCount: Int, fullScale: (Sample) -> Double
    ) -> Levels? {
        var completed: Levels?
        for frame in 0..<frameCount {
            for channel in 0..<channels {
                add(fullScale(samples[frame * channels + channel]), channel: channel)
            }
            if let levels = endFrame() { completed = levels }
        }
        return completed
    }

    private mutating func add(_ value: Double, channel: Int) {
        sumOfSquares[channel] += value * value
        peaks[channel] = max(peaks[channel], abs(value))
    }

    private mutating func endFrame() -> Levels? {
        frames += 1
        guard frames == windowFrames else { return nil }
        let levels = Levels(
            average: sumOfSquares.map { Levels.decibels(amplitude: ($0 / Double(windowFrames)).squareRoot()) },
            peak: peaks.map { Levels.decibels(amplitude: $0) })
        reset()
        return levels
    }

    /// Drops a partly filled window (after a pause, so old audio does not leak into new levels).
    public mutating func reset() {
        frames = 0
        for channel in 0..<channels {
            sumOfSquares[channel] = 0
            peaks[channel] = 0
        }
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
