import Foundation
import Testing
import VoiceMemoCore

@Suite("Waveform peaks")
struct PeaksTests {
    /// Accumulates `samples` (interleaved) in chunks of `chunk` frames, as a decoder delivers them.
    func accumulate(_ samples: [Float], channels: Int = 1, expected: Int? = nil, chunk: Int = 1000) -> PeakBins {
        let frames = samples.count / channels
        var accumulator = PeakAccumulator(channels: channels, expectedFrameCount: expected ?? frames)
        samples.withUnsafeBufferPointer { buffer in
            var frame = 0
            while frame < frames {
                let count = min(chunk, frames - frame)
                accumulator.add(UnsafeBufferPointer(rebasing: buffer[(frame * channels)...]), frameCount: count)
                frame += count
            }
        }
        return accumulator.result
    }

    /// Loud (a square wave of ±0.8) for the first half, silent for the second.
    func loudThenSilent(frames: Int) -> [Float] {
        (0..<frames).map { $0 < frames / 2 ? ($0 % 2 == 0 ? 0.8 : -0.8) : 0 }
    }

    @Test(arguments: [1, 7, 100, 2048, 4096])
    func loudThenSilentDividesAtTheMiddle(count: Int) {
        let bins = accumulate(loudThenSilent(frames: 480_000))
        // 118 frames a bin: as many as fit in the maximum.
        #expect(bins.framesPerBin == 118 && bins.values.count == 4068)
        let peaks = bins.peaks(count: count)
        #expect(peaks.count == count)
        let half = count / 2
        #expect(peaks[..<half].allSatisfy { abs($0 - 0.8) < 0.0001 })
        // The slice across the middle (odd counts), or beside it (a bin that straddles the
        // middle counts for both slices it touches), may be loud; none after.
        #expect(peaks[min(count, count - half + 1)...].allSatisfy { $0 == 0 })
        if count == 1 { #expect(peaks == [0.8].map { PeakBins.dequantize(PeakBins.quantize($0)) }) }
    }

    @Test func eachSliceHoldsItsOwnPeak() {
        // Ten slices with peaks 0.1, 0.2, … 1.0, on two channels (the louder one counts).
        let frames = 10_000
        let samples = (0..<frames).flatMap { frame -> [Float] in
            let level = Float(frame / 1000 + 1) / 10
            return [frame % 100 == 50 ? -level : 0, frame % 100 == 51 ? level / 2 : 0]
        }
        let peaks = accumulate(samples, channels: 2, chunk: 333).peaks(count: 10)
        for (index, peak) in peaks.enumerated() {
            #expect(abs(peak - Double(index + 1) / 10) < 0.0001, "slice \(index): \(peak)")
        }
    }

    @Test func aStreamLongerThanAnnouncedKeepsAtMostTheMaximumBins() {
        let frames = 100_000
        let samples = (0..<frames).map { $0 == frames - 1 ? Float(1) : Float(0.25) }
        let bins = accumulate(samples, expected: 1000)
        #expect(bins.values.count <= PeakBins.maximumCount)
        #expect(bins.values.count > PeakBins.maximumCount / 2 - 1)
        #expect(bins.frameCount == frames)
        let peaks = bins.peaks(count: 4)
        #expect(peaks.prefix(3).allSatisfy { abs($0 - 0.25) < 0.0001 })
        #expect(peaks[3] == 1, "the last frame's peak survives merging")
    }

    @Test func aStreamOfUnknownLengthIsBinnedAllTheSame() {
        let bins = accumulate(loudThenSilent(frames: 200_000), expected: 0)
        let peaks = bins.peaks(count: 100)
        #expect(peaks[..<50].allSatisfy { $0 > 0.79 })
        #expect(peaks[51...].allSatisfy { $0 == 0 })
    }

    @Test func moreSlicesThanFramesRepeatEachFrame() {
        let bins = accumulate([0.5, -1, 0])
        #expect(bins.framesPerBin == 1)
        let peaks = bins.peaks(count: 6)
        #expect(peaks.map { ($0 * 100).rounded() / 100 } == [0.5, 0.5, 1, 1, 0, 0])
    }

    @Test func anEmptyMemoIsFlat() {
        #expect(accumulate([]).peaks(count: 5) == [0, 0, 0, 0, 0])
    }

    @Test func quantizationClampsAndRoundTrips() {
        #expect(PeakBins.quantize(-0.5) == 0)
        #expect(PeakBins.quantize(.nan) == 0)
        #expect(PeakBins.quantize(1.5) == 65535)
        #expect(PeakBins.quantize(1) == 65535)
        for peak in [0.0, 0.00003, 0.01, 0.45, 0.999] {
            #expect(abs(PeakBins.dequantize(PeakBins.quantize(peak)) - peak) <= 0.5 / 65535)
        }
    }

    @Test func aClippedFloatFileReadsAsFullScale() {
        #expect(accumulate([3, -2, 0.5]).peaks(count: 1) == [1])
    }

    @Test func theCacheRecordRoundTrips() throws {
        let record = PeakCacheRecord(size: 123_456, modified: -42, bins: accumulate(loudThenSilent(frames: 48_000)))
        let bytes = record.encoded
        #expect(bytes.count == 44 + 2 * record.bins.values.count)
        #expect(PeakCacheRecord(decoding: bytes) == record)
        #expect(record.matches(size: 123_456, modified: -42))
        #expect(!record.matches(size: 123_456, modified: -41))
        #expect(!record.matches(size: 123_457, modified: -42))
    }

    @Test func aDamagedCacheRecordIsRefused() {
        let bytes = PeakCacheRecord(size: 1, modified: 2, bins: accumulate([0.5, 0.25])).encoded
        #expect(PeakCacheRecord(decoding: Array(bytes.dropLast())) == nil, "truncated")
        #expect(PeakCacheRecord(decoding: bytes + [0]) == nil, "trailing bytes")
        #expect(PeakCacheRecord(decoding: []) == nil)
        var wrongMagic = bytes
        wrongMagic[0] = UInt8(ascii: "X")
        #expect(PeakCacheRecord(decoding: wrongMagic) == nil)
        var wrongVersion = bytes
        wrongVersion[4] = 9
        #expect(PeakCacheRecord(decoding: wrongVersion) == nil)
        var zeroWidth = bytes
        for index in 32..<40 { zeroWidth[index] = 0 }
        #expect(PeakCacheRecord(decoding: zeroWidth) == nil, "frames per bin 0")
    }

    @Test(arguments: [UInt32(0), 4097, UInt32.max])
    func badCountsAreRefusedNamingTheRange(count: UInt32) {
        #expect(throws: RecorderError.self) { try Validation.peakCount(count, key: "count") }
        do {
            _ = try Validation.peakCount(count, key: "count")
        } catch {
            #expect(error.message.contains("'count' must be from 1 to 4096"))
            #expect(error.message.contains("got \(count)"))
        }
    }

    @Test(arguments: [UInt32(1), 200, 4096])
    func goodCountsAreTaken(count: UInt32) throws {
        #expect(try Validation.peakCount(count, key: "count") == Int(count))
    }

    @Test func theSparklineUsesEightBlocks() {
        #expect(Sparkline.line([0, 0.124, 0.125, 0.5, 0.99, 1, 7, -1, .nan]) == "▁▁▂▅███▁▁")
        #expect(Sparkline.line([]) == "")
    }
}
