import Foundation
import Testing
import VoiceMemoCore

/// Every sample type a memo is captured in.
private let sampleTypes: [SampleType] = [.int16, .int32, .float32]

/// Interleaved samples of one type, written and read as fractions of full scale (an int16 sample
/// of 16384 reads 0.5), so each test reads the same for every type. Writing clamps: 1 is the
/// type's largest sample, −1 its smallest.
private struct Samples {
    private enum Storage {
        case int16([Int16])
        case int32([Int32])
        case float32([Float])
    }

    private var storage: Storage

    init(_ values: [Double], type: SampleType) {
        switch type {
        case .int16: storage = .int16(values.map { Int16(clamping: Int64(($0 * 32768).rounded())) })
        case .int32: storage = .int32(values.map { Int32(clamping: Int64(($0 * 2_147_483_648).rounded())) })
        case .float32: storage = .float32(values.map { Float($0) })
        }
    }

    var values: [Double] {
        switch storage {
        case .int16(let samples): samples.map { Double($0) / 32768 }
        case .int32(let samples): samples.map { Double($0) / 2_147_483_648 }
        case .float32(let samples): samples.map { Double($0) }
        }
    }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storage {
        case .int16(let samples): samples.withUnsafeBytes(body)
        case .int32(let samples): samples.withUnsafeBytes(body)
        case .float32(let samples): samples.withUnsafeBytes(body)
        }
    }

    mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        switch storage {
        case .int16(var samples):
            defer { storage = .int16(samples) }
            return samples.withUnsafeMutableBytes(body)
        case .int32(var samples):
            defer { storage = .int32(samples) }
            return samples.withUnsafeMutableBytes(body)
        case .float32(var samples):
            defer { storage = .float32(samples) }
            return samples.withUnsafeMutableBytes(body)
        }
    }
}

/// The largest sample of `type`, as a fraction of full scale.
private func largest(_ type: SampleType) -> Double {
    Samples([1], type: type).values[0]
}

/// Runs `mixer` over `frames` frames of both inputs into a memo buffer of `memoFrames` frames
/// (`frames` unless given), each sample set to `fill` beforehand; returns the whole buffer.
private func mix(
    _ mixer: InputMixer, microphone: [Double], system: [Double], frames: Int, memoFrames: Int? = nil,
    fill: Double = 0
) -> [Double] {
    let microphone = Samples(microphone, type: mixer.sampleType)
    let system = Samples(system, type: mixer.sampleType)
    var memo = Samples(
        Array(repeating: fill, count: (memoFrames ?? frames) * mixer.channels), type: mixer.sampleType)
    microphone.withUnsafeBytes { microphone in
        system.withUnsafeBytes { system in
            memo.withUnsafeMutableBytes { mixer.mix(microphone: microphone, system: system, frames: frames, into: $0) }
        }
    }
    return memo.values
}

/// The memo the layout promises, in exact arithmetic: `mix` the mean of the two inputs' samples
/// at each position; `split` per frame the mean of the microphone's two channels, then the
/// system's.
private func expected(_ mixer: InputMixer, microphone: [Double], system: [Double], frames: Int) -> [Double] {
    switch mixer.layout {
    case .mix:
        (0..<(frames * mixer.channels)).map { (microphone[$0] + system[$0]) / 2 }
    case .split:
        (0..<frames).flatMap { frame -> [Double] in
            let left = (microphone[2 * frame] + microphone[2 * frame + 1]) / 2
            let right = (system[2 * frame] + system[2 * frame + 1]) / 2
            return [left, right]
        }
    }
}

/// `count` samples of a sine of `period` samples, on the grid of even 16-bit steps: every such
/// sample, the sum of two and its half are exact in each sample type. A period that is not a
/// whole number of frames gives each interleaved channel different samples.
private func grid(count: Int, period: Double, amplitude: Double = 0.9) -> [Double] {
    (0..<count).map { 2 * (amplitude * sin(2 * Double.pi * Double($0) / period) * 16384).rounded() / 32768 }
}

/// `frames` frames of a 440 Hz sine at 48 kHz, the same on each of `channels` channels.
private func sine(frames: Int, channels: Int, amplitude: Double) -> [Double] {
    (0..<frames).flatMap { frame in
        Array(repeating: amplitude * sin(2 * Double.pi * 440 * Double(frame) / 48000), count: channels)
    }
}

/// Peak and RMS level, in dBFS, of one channel of interleaved samples.
private func levels(_ samples: [Double], channel: Int, of channels: Int) -> (peak: Double, average: Double) {
    let channelSamples = Swift.stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    let peak = channelSamples.map { abs($0) }.max() ?? 0
    let power = channelSamples.reduce(0) { $0 + $1 * $1 } / Double(max(1, channelSamples.count))
    return (Levels.decibels(amplitude: peak), Levels.decibels(amplitude: power.squareRoot()))
}

/// A mixer of `layout` into a stereo memo (the channels a `split` memo has).
private func stereoMixer(_ layout: ChannelLayout, _ type: SampleType) -> InputMixer {
    InputMixer(layout: layout, channels: 2, sampleType: type)
}

@Suite("Input mixer")
struct InputMixerTests {
    @Test(arguments: sampleTypes, ChannelLayout.allCases)
    func halvingIsExact(type: SampleType, layout: ChannelLayout) {
        let mixer = stereoMixer(layout, type)
        let frames = 480
        let microphone = grid(count: frames * mixer.inputChannels, period: 37.3)
        let system = grid(count: frames * mixer.inputChannels, period: 11.7, amplitude: 0.7)
        let memo = mix(mixer, microphone: microphone, system: system, frames: frames)
        #expect(memo == expected(mixer, microphone: microphone, system: system, frames: frames))
        #expect(memo.contains { $0 != 0 })
    }

    /// Two full-scale samples of one sign are the type's extreme, not a wrapped or clipped sum;
    /// opposite ones meet in the middle (integers round toward −∞: one step below zero).
    @Test(arguments: sampleTypes, ChannelLayout.allCases)
    func fullScalePairsStayInRange(type: SampleType, layout: ChannelLayout) {
        let mixer = stereoMixer(layout, type)
        let top = largest(type)
        let middle = type == .float32 ? 0 : -(1 - top)
        let microphone = [top, top, -1, -1, top, -1]
        let memo: [Double]
        switch layout {
        case .mix:
            memo = mix(mixer, microphone: microphone, system: [top, top, -1, -1, -1, top], frames: 3)
            #expect(memo == [top, top, -1, -1, middle, middle])
        case .split:
            memo = mix(mixer, microphone: microphone, system: [-1, -1, top, top, -1, top], frames: 3)
            #expect(memo == [top, -1, -1, top, middle, middle])
        }
        #expect(memo.allSatisfy { (-1...top).contains($0) })
    }

    /// Each input alone comes out 6.02 dB down on every channel; the same signal on both comes
    /// out as it went in.
    @Test(arguments: sampleTypes, [1, 2, 6])
    func eachInputOfAMixIsSixDecibelsDown(type: SampleType, channels: Int) {
        let mixer = InputMixer(layout: .mix, channels: channels, sampleType: type)
        let frames = 4800
        let speech = sine(frames: frames, channels: channels, amplitude: 0.5)
        let silence = Array(repeating: 0.0, count: speech.count)
        let input = Samples(speech, type: type).values
        for (microphone, system) in [(speech, silence), (silence, speech)] {
            let memo = mix(mixer, microphone: microphone, system: system, frames: frames)
            for channel in 0..<channels {
                let before = levels(input, channel: channel, of: channels)
                let after = levels(memo, channel: channel, of: channels)
                #expect(abs(after.peak - before.peak + 6.0206) < 0.001)
                #expect(abs(after.average - before.average + 6.0206) < 0.001)
            }
        }
        #expect(mix(mixer, microphone: speech, system: speech, frames: frames) == input)
    }

    /// Left is the microphone's downmix and right the system's: a mono source the server
    /// duplicated onto both channels comes back sample for sample, and a stereo one is the mean
    /// of its channels.
    @Test(arguments: sampleTypes)
    func splitPutsEachInputsDownmixOnItsOwnSide(type: SampleType) {
        let mixer = InputMixer(layout: .split, channels: 2, sampleType: type)
        let frames = 4800
        let voice = Samples(sine(frames: frames, channels: 2, amplitude: 0.5), type: type).values
        // The far end on the left channel only, nothing on the right.
        let farEnd = (0..<frames).flatMap { frame -> [Double] in [voice[2 * frame], 0] }
        let memo = mix(mixer, microphone: voice, system: farEnd, frames: frames)
        #expect((0..<frames).allSatisfy { memo[2 * $0] == voice[2 * $0] })
        let far = levels(farEnd, channel: 0, of: 2)
        let right = levels(memo, channel: 1, of: 2)
        #expect(abs(right.peak - far.peak + 6.0206) < 0.001)
        #expect(abs(right.average - far.average + 6.0206) < 0.001)

        let swapped = mix(mixer, microphone: farEnd, system: voice, frames: frames)
        #expect((0..<frames).allSatisfy { swapped[2 * $0 + 1] == voice[2 * $0] })
        #expect(abs(levels(swapped, channel: 0, of: 2).peak - far.peak + 6.0206) < 0.001)
    }

    @Test(arguments: sampleTypes)
    func aMonoMemoMixesSampleBySample(type: SampleType) {
        let mixer = InputMixer(layout: .mix, channels: 1, sampleType: type)
        #expect(mixer.inputChannels == 1)
        let memo = mix(
            mixer, microphone: [0.5, -0.5, 0.25, 0, -1], system: [0.5, 0.5, -0.75, 0.125, -1], frames: 5)
        #expect(memo == [0.5, 0, -0.25, 0.0625, -1])
    }

    /// Frame counts that fit no vector width or pairing: every frame is mixed, the last too.
    @Test(arguments: sampleTypes, [1, 3, 7, 481])
    func oddFrameCountsMixEveryFrame(type: SampleType, frames: Int) {
        let mixers = [
            InputMixer(layout: .mix, channels: 1, sampleType: type),
            InputMixer(layout: .mix, channels: 2, sampleType: type),
            InputMixer(layout: .split, channels: 2, sampleType: type),
        ]
        for mixer in mixers {
            let microphone = grid(count: frames * mixer.inputChannels, period: 5.3, amplitude: 0.8)
            let system = grid(count: frames * mixer.inputChannels, period: 3.1, amplitude: 0.6)
            let memo = mix(mixer, microphone: microphone, system: system, frames: frames, fill: 0.75)
            #expect(memo == expected(mixer, microphone: microphone, system: system, frames: frames))
        }
    }

    /// Buffers larger than the fragment: only `frames` frames are read and written, the rest of
    /// the memo's buffer keeps what it held.
    @Test(arguments: sampleTypes, ChannelLayout.allCases)
    func nothingIsWrittenPastTheFrameCount(type: SampleType, layout: ChannelLayout) {
        let mixer = stereoMixer(layout, type)
        let frames = 7
        let room = 12
        let microphone = grid(count: room * mixer.inputChannels, period: 9.7)
        let system = grid(count: room * mixer.inputChannels, period: 4.3)
        let memo = mix(mixer, microphone: microphone, system: system, frames: frames, memoFrames: room, fill: 0.75)
        let written = frames * mixer.channels
        #expect(Array(memo[..<written]) == expected(mixer, microphone: microphone, system: system, frames: frames))
        #expect(memo[written...].allSatisfy { $0 == 0.75 })

        let untouched = mix(mixer, microphone: microphone, system: system, frames: 0, memoFrames: room, fill: 0.75)
        #expect(untouched.allSatisfy { $0 == 0.75 })
    }

    @Test func aSplitMemoHasTwoChannelsAndTakesStereoInputs() {
        #expect(InputMixer(layout: .split, channels: 2, sampleType: .int16).inputChannels == 2)
        #expect(InputMixer(layout: .mix, channels: 6, sampleType: .int16).inputChannels == 6)
        #expect(ChannelLayout(rawValue: "split") == .split)
        #expect(ChannelLayout.allCases.map(\.rawValue) == ["mix", "split"])
    }
}
