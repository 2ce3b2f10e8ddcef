/// A memo's waveform at its base resolution: the peak absolute sample (over all channels)
/// of each run of `framesPerBin` frames, quantized to 16 bits. Any `Peaks(count)` up to
/// `maximumCount` is derived from it, so the file is decoded once for every count.
public struct PeakBins: Equatable, Sendable {
    /// The most values `Peaks` returns, and the most bins kept.
    public static let maximumCount = 4096
    /// Frames the bins cover (the memo's length).
    public var frameCount: Int
    /// Frames per bin; the last bin may hold fewer.
    public var framesPerBin: Int
    /// Quantized peaks (see `quantize`), one per bin.
    public var values: [UInt16]

    public init(frameCount: Int, framesPerBin: Int, values: [UInt16]) {
        precondition(frameCount >= 0 && framesPerBin >= 1, "bins need a length and a positive width")
        self.frameCount = frameCount
        self.framesPerBin = framesPerBin
        self.values = values
    }

    /// A peak (0…1 full scale; louder clips to 1) as 16 bits: steps of 1/65535, fine enough
    /// to tell −90 dBFS from silence.
    public static func quantize(_ peak: Double) -> UInt16 {
        guard peak > 0 else { return 0 }  // also NaN
        return UInt16((min(peak, 1) * 65535).rounded())
    }

    /// The peak a quantized value stands for.
    public static func dequantize(_ value: UInt16) -> Double { Double(value) / 65535 }

    /// `count` peaks, one per equal slice of the memo: slice `i` is frames
    /// `i·frameCount/count ..< (i+1)·frameCount/count`, and its value is the largest bin that
    /// slice touches (a bin across a slice border counts for both, so no peak is lost). A
    /// slice shorter than a frame takes the frame it starts in; an empty memo is all zeros.
    public func peaks(count: Int) -> [Double] {
        precondition(count >= 1, "at least one peak")
        guard frameCount > 0, !values.isEmpty else { return Array(repeating: 0, count: count) }
        let lastBin = values.count - 1
        return (0..<count).map { slice in
            let start = slice * frameCount / count
            let end = max(start + 1, (slice + 1) * frameCount / count)
            let first = min(start / framesPerBin, lastBin)
            let last = min((end - 1) / framesPerBin, lastBin)
            return Self.dequantize(values[first...last].max()!)
        }
    }
}
