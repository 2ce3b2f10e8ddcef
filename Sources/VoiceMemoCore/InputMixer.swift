/// How a call memo's channels hold its two inputs, the microphone and the system audio.
public enum ChannelLayout: String, CaseIterable, Sendable {
    /// Both inputs on every channel, each at half gain (−6.02 dB), so their sum never clips.
    case mix
    /// Two channels, one input on each: the microphone left, the system audio right, each
    /// downmixed to mono, so the two sides of a call can be heard, edited or transcribed apart.
    case split
}

/// Turns one fragment of each of a call's two inputs into one fragment of the memo: the step
/// between reading the streams and everything that looks at the memo's audio.
///
/// Both streams are opened at `inputChannels`, so the server upmixes a mono source by
/// duplicating it, and the mean of the two copies gives it back exactly. The stereo-to-mono
/// downmix of `split` is ours rather than the server's because PulseAudio's and PipeWire's
/// downmix matrices differ, and a memo's levels must not depend on the server that recorded it.
///
/// Every output sample is the mean of two input samples, summed in a wider type: a full-scale
/// pair stays full scale instead of clipping or wrapping, and each input of a `mix` loses
/// exactly 6.02 dB. Integers halve by an arithmetic shift, which rounds toward −∞: a bias of
/// half a least significant bit, far below any input's noise, for no division per sample.
///
/// Runs on every captured fragment of a call, so, like `SampleSums`, it allocates nothing and
/// walks its samples in one tight loop per sample type.
public struct InputMixer: Sendable {
    /// How the memo's channels hold the two inputs.
    public let layout: ChannelLayout
    /// Channels of the memo this writes.
    public let channels: Int
    /// The sample type of both inputs and of the memo.
    public let sampleType: SampleType

    /// A mixer into memos of `channels` channels of `sampleType`; a `split` memo has two.
    public init(layout: ChannelLayout, channels: Int, sampleType: SampleType) {
        precondition(channels >= 1, "a memo has at least one channel")
        precondition(layout == .mix || channels == 2, "a split memo has two channels")
        self.layout = layout
        self.channels = channels
        self.sampleType = sampleType
    }

    /// Channels each input is captured with: the memo's for `mix`, two for `split` (each side
    /// downmixed here, see the type's comment).
    public var inputChannels: Int {
        switch layout {
        case .mix: channels
        case .split: 2
        }
    }

    /// Writes `frames` frames of the memo into `memo` from the first `frames` frames of each
    /// input, both interleaved at `inputChannels`.
    ///
    /// Nothing past `frames` frames is read or written, so the buffers may be larger than the
    /// fragment (the last one of a memo cut short). `memo` must not overlap either input.
    public func mix(
        microphone: UnsafeRawBufferPointer, system: UnsafeRawBufferPointer, frames: Int,
        into memo: UnsafeMutableRawBufferPointer
    ) {
        precondition(frames >= 0, "a negative frame count")
        guard frames > 0 else { return }
        let inputBytes = frames * inputChannels * sampleType.byteCount
        precondition(
            microphone.count >= inputBytes && system.count >= inputBytes, "an input holds fewer frames than mixed")
        precondition(memo.count >= frames * channels * sampleType.byteCount, "the memo holds fewer frames than mixed")
        switch sampleType {
        case .int16: run(Self.int16Means, microphone: microphone, system: system, frames: frames, into: memo)
        case .int32: run(Self.int32Means, microphone: microphone, system: system, frames: frames, into: memo)
        case .float32: run(Self.floatMeans, microphone: microphone, system: system, frames: frames, into: memo)
        }
    }

    /// Lays the layout's runs of means over the buffers, typed as `Sample`. `means` takes the
    /// two samples' first positions, the output's, the count and one stride for all three.
    private func run<Sample>(
        _ means: (UnsafePointer<Sample>, UnsafePointer<Sample>, UnsafeMutablePointer<Sample>, Int, Int) -> Void,
        microphone: UnsafeRawBufferPointer, system: UnsafeRawBufferPointer, frames: Int,
        into memo: UnsafeMutableRawBufferPointer
    ) {
        let microphone = microphone.bindMemory(to: Sample.self).baseAddress!
        let system = system.bindMemory(to: Sample.self).baseAddress!
        let memo = memo.bindMemory(to: Sample.self).baseAddress!
        switch layout {
        case .mix:
            // Same positions in all three buffers: one run over every sample of the fragment.
            means(microphone, system, memo, frames * channels, 1)
        case .split:
            // Each side's left and right into its own channel of the memo.
            means(microphone, microphone + 1, memo, frames, 2)
            means(system, system + 1, memo + 1, frames, 2)
        }
    }

    /// Means of 16-bit samples, summed in 32 bits: the halved sum of any two is back in range.
    private static func int16Means(
        _ first: UnsafePointer<Int16>, _ second: UnsafePointer<Int16>, _ output: UnsafeMutablePointer<Int16>,
        count: Int, stride: Int
    ) {
        for index in 0..<count {
            let position = index &* stride
            output[position] = Int16(truncatingIfNeeded: (Int32(first[position]) &+ Int32(second[position])) >> 1)
        }
    }

    /// As `int16Means`, summed in 64 bits.
    private static func int32Means(
        _ first: UnsafePointer<Int32>, _ second: UnsafePointer<Int32>, _ output: UnsafeMutablePointer<Int32>,
        count: Int, stride: Int
    ) {
        for index in 0..<count {
            let position = index &* stride
            output[position] = Int32(truncatingIfNeeded: (Int64(first[position]) &+ Int64(second[position])) >> 1)
        }
    }

    /// Means of floats: a float's range has room for any sum of audio, and multiplying by 0.5
    /// only lowers the exponent.
    private static func floatMeans(
        _ first: UnsafePointer<Float>, _ second: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
        count: Int, stride: Int
    ) {
        for index in 0..<count {
            let position = index &* stride
            output[position] = (first[position] + second[position]) * 0.5
        }
    }
}
