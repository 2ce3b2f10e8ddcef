/// Builds `PeakBins` from samples as they are decoded, in constant memory: at most
/// `PeakBins.maximumCount` bins, and when a stream runs longer than its header said (or
/// said nothing), pairs of bins are merged and the width doubles.
public struct PeakAccumulator: Sendable {
    public let channels: Int
    private(set) var framesPerBin: Int
    /// Completed bins, full scale.
    private var bins: [Float] = []
    /// The peak and length of the bin being filled.
    private var current: Float = 0
    private var framesInCurrent = 0
    private var frameCount = 0

    /// Bins sized so that `expectedFrameCount` frames fill `PeakBins.maximumCount` of them
    /// (one frame per bin for shorter memos).
    public init(channels: Int, expectedFrameCount: Int) {
        precondition(channels >= 1, "at least one channel")
        self.channels = channels
        let expected = max(expectedFrameCount, 0)
        framesPerBin = max(1, (expected + PeakBins.maximumCount - 1) / PeakBins.maximumCount)
        bins.reserveCapacity(PeakBins.maximumCount)
    }

    /// Adds `frameCount` interleaved frames.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>, frameCount: Int) {
        precondition(samples.count >= frameCount * channels, "fewer samples than frames counted")
        var frame = 0
        while frame < frameCount {
            // Up to the end of the current bin, in one tight loop.
            let count = min(frameCount - frame, framesPerBin - framesInCurrent)
            var peak = current
            for index in (frame * channels)..<((frame + count) * channels) {
                peak = max(peak, abs(samples[index]))
            }
            current = peak.isNaN ? 1 : peak
            frame += count
            framesInCurrent += count
            self.frameCount += count
            if framesInCurrent == framesPerBin { completeBin() }
        }
    }

    private mutating func completeBin() {
        bins.append(current)
        current = 0
        framesInCurrent = 0
        guard bins.count == PeakBins.maximumCount else { return }
        bins = (0..<(bins.count / 2)).map { max(bins[2 * $0], bins[2 * $0 + 1]) }
        framesPerBin *= 2
    }

    /// The bins so far, the partly filled last one included.
    public var result: PeakBins {
        var values = bins.map { PeakBins.quantize(Double($0)) }
        if framesInCurrent > 0 { values.append(PeakBins.quantize(Double(current))) }
        return PeakBins(frameCount: frameCount, framesPerBin: framesPerBin, values: values)
    }
}
