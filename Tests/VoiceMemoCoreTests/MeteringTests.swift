import Foundation
import Testing
import VoiceMemoCore

@Suite("Metering")
struct MeteringTests {
    /// One metering window of a sine on each channel, interleaved, at the given amplitudes.
    func sine(amplitudes: [Double], frames: Int = 4800) -> [Float] {
        (0..<frames).flatMap { frame in
            amplitudes.map { Float($0 * sin(2 * Double.pi * 440 * Double(frame) / 48000)) }
        }
    }

    func measure(_ samples: [Float], channels: Int) -> Levels? {
        var meter = LevelMeter(channels: channels, sampleRate: 48000)
        return samples.withUnsafeBytes { meter.add($0, frameCount: samples.count / channels, type: .float32) }
    }

    @Test func aSineReadsItsPeakAndRMS() throws {
        let levels = try #require(measure(sine(amplitudes: [0.5]), channels: 1))
        #expect(abs(levels.peak[0] - (-6.0206)) < 0.01)
        #expect(abs(levels.average[0] - (-6.0206 - 3.0103)) < 0.01)
    }

    @Test func channelsAreMeasuredApart() throws {
        let levels = try #require(measure(sine(amplitudes: [1, 0.1]), channels: 2))
        #expect(abs(levels.peak[0]) < 0.01)
        #expect(abs(levels.peak[1] - (-20)) < 0.01)
        #expect(levels.average.count == 2)
    }

    @Test func oneChannelsSumsAreThatChannelsAlone() {
        let samples = sine(amplitudes: [1, 0.1])
        let both = samples.withUnsafeBytes {
            SampleSums(of: $0, frameCount: samples.count / 2, channels: 2, type: .float32)
        }
        let right = both.channel(1)
        #expect(right.channels == 1 && right.frameCount == both.frameCount)
        #expect(right.levels.peak == [both.levels.peak[1]] && right.levels.average == [both.levels.average[1]])
    }

    @Test func digitalSilenceReadsTheFloor() throws {
        let levels = try #require(measure([Float](repeating: 0, count: 9600), channels: 2))
        #expect(levels == Levels.silence(channels: 2))
        #expect(levels.peak == [-160, -160])
    }

    @Test func integerSamplesUseTheirFullScale() throws {
        var meter = LevelMeter(channels: 1, sampleRate: 8000)
        let samples = [Int16](repeating: -16384, count: 800)
        let levels = try #require(samples.withUnsafeBytes { meter.add($0, frameCount: 800, type: .int16) })
        #expect(abs(levels.peak[0] - (-6.0206)) < 0.01)
        #expect(abs(levels.average[0] - (-6.0206)) < 0.01)
    }

    /// 16-bit audio is summed eight samples at a time where the channel count allows it, and
    /// one channel at a time where it does not: both give each channel its own exact sums,
    /// with a partial vector at the end, an offset start and the one sample whose magnitude
    /// has no positive 16-bit twin.
    @Test(arguments: [1, 2, 3, 4, 6, 8])
    func int16SumsMatchSampleBySample(channels: Int) {
        var generator = SystemRandomNumberGenerator()
        let frames = 963
        var samples = (0..<(frames * channels)).map { _ in Int16.random(in: .min ... .max, using: &generator) }
        samples[5 * channels + channels - 1] = .min
        let skipped = 3
        let sums = samples.withUnsafeBytes {
            SampleSums(of: $0, frameCount: frames, channels: channels, type: .int16)
        }
        var tail = SampleSums(channels: channels)
        samples.withUnsafeBytes { tail.add($0, frames: skipped..<frames, type: .int16) }
        for channel in 0..<channels {
            let values = stride(from: channel, to: samples.count, by: channels).map { Double(samples[$0]) / 32768 }
            let expectedSum = values.reduce(0) { $0 + $1 * $1 }
            let expectedPeak = values.map(abs).max()!
            #expect(abs(sums.sumOfSquares[channel] - expectedSum) < 1e-9 * expectedSum, "channel \(channel)")
            #expect(sums.peaks[channel] == expectedPeak, "channel \(channel)")
            let tailValues = values.dropFirst(skipped)
            let expectedTail = tailValues.reduce(0) { $0 + $1 * $1 }
            #expect(abs(tail.sumOfSquares[channel] - expectedTail) < 1e-9 * expectedTail, "channel \(channel)")
            #expect(tail.peaks[channel] == tailValues.map(abs).max()!, "channel \(channel)")
        }
        #expect(sums.peaks[channels - 1] == 1, "-32768 reads as full scale")
        #expect(sums.frameCount == frames && tail.frameCount == frames - skipped)
    }

    @Test func aWindowIsATenthOfASecond() {
        var meter = LevelMeter(channels: 1, sampleRate: 48000)
        let half = [Float](repeating: 0.5, count: 2400)
        #expect(half.withUnsafeBytes { meter.add($0, frameCount: 2400, type: .float32) } == nil)
        #expect(half.withUnsafeBytes { meter.add($0, frameCount: 2400, type: .float32) } != nil)
    }

    /// Fragments that straddle window ends: each window holds exactly its own frames.
    @Test func fragmentsSplitAcrossWindowsMeasureEachWindowAlone() throws {
        let loud = [Int16](repeating: 16384, count: 2 * 4800)
        let quiet = [Int16](repeating: -1638, count: 2 * 4800)
        let stereo = loud + quiet
        var meter = LevelMeter(channels: 2, sampleRate: 48000)
        var windows: [Levels] = []
        var frame = 0
        for count in [1000, 3000, 1500, 2900, 1200] {
            let bytes = stereo[(frame * 2)..<((frame + count) * 2)]
            if let levels = bytes.withUnsafeBytes({ meter.add($0, frameCount: count, type: .int16) }) {
                windows.append(levels)
            }
            frame += count
        }
        try #require(windows.count == 2)
        #expect(windows[0].peak == [Levels.decibels(amplitude: 0.5), Levels.decibels(amplitude: 0.5)])
        #expect(windows[0].average == windows[0].peak)
        #expect(
            windows[1].peak == [Levels.decibels(amplitude: 1638 / 32768), Levels.decibels(amplitude: 1638 / 32768)])
        #expect(windows[1].average == windows[1].peak)
    }

    @Test(arguments: [(-60.0, 0.0), (-90, 0), (-160, 0), (0, 1), (3, 1)])
    func meterTableEdges(decibels: Double, value: Double) {
        #expect(MeterTable().value(forDecibels: decibels) == value)
    }

    @Test func meterTableFollowsTheFormulaAtMinus20() {
        let minimum = pow(10.0, -60.0 / 20)
        let expected = (pow(10.0, -20.0 / 20) - minimum) / (1 - minimum)
        #expect(abs(MeterTable().value(forDecibels: -20) - expected) < 1e-12)
        #expect(abs(MeterTable(root: 2).value(forDecibels: -20) - expected.squareRoot()) < 1e-12)
    }

    @Test func meterTableIsMonotonic() {
        let values = stride(from: -70.0, through: 0, by: 0.25).map { MeterTable().value(forDecibels: $0) }
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(zip(values, values.dropFirst()).filter { $0 < $1 }.count >= 239)
    }

    @Test func decibelsClampToTheContractRange() {
        #expect(Levels.decibels(amplitude: 0) == -160)
        #expect(Levels.decibels(amplitude: 1e-12) == -160)
        #expect(Levels.decibels(amplitude: 2) == 0)
    }
}
