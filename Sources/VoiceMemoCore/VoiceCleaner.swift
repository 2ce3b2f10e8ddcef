/// Runs the microphone's fragments through one `VoiceChannelProcessor` per channel, in place,
/// before they are measured and written.
///
/// The processors take 16-bit samples of one channel: interleaved channels are taken apart
/// and put back, and 24-bit or float fragments (WAV at high or max quality) pass through 16
/// bits, which is what the cleaning keeps of them. Owned by one capture stream's thread.
public final class VoiceCleaner {
    private let processors: [VoiceChannelProcessor]
    private let sampleType: SampleType
    private let frames: Int
    /// One channel's samples, for the processor.
    private let channel: UnsafeMutableBufferPointer<Int16>

    /// A cleaner for fragments of `framesPerRead` frames of `channels` channels of
    /// `sampleType`, with one processor per channel from `makeProcessor`.
    public init(
        channels: Int, sampleType: SampleType, framesPerRead: Int,
        makeProcessor: () throws(RecorderError) -> VoiceChannelProcessor
    ) throws(RecorderError) {
        var processors: [VoiceChannelProcessor] = []
        for _ in 0..<channels { processors.append(try makeProcessor()) }
        self.processors = processors
        self.sampleType = sampleType
        frames = framesPerRead
        channel = .allocate(capacity: framesPerRead)
    }

    deinit {
        channel.deallocate()
    }

    /// Cleans one fragment of `frames` interleaved frames of the request's sample type.
    public func process(_ fragment: UnsafeMutableRawBufferPointer) {
        let channels = processors.count
        for (index, processor) in processors.enumerated() {
            switch sampleType {
            case .int16:
                let samples = fragment.assumingMemoryBound(to: Int16.self)
                guard channels > 1 else {
                    processor.process(UnsafeMutableBufferPointer(rebasing: samples[0..<frames]))
                    continue
                }
                for frame in 0..<frames { channel[frame] = samples[frame * channels + index] }
                processor.process(channel)
                for frame in 0..<frames { samples[frame * channels + index] = channel[frame] }
            case .int32:
                let samples = fragment.assumingMemoryBound(to: Int32.self)
                for frame in 0..<frames {
                    channel[frame] = Int16(truncatingIfNeeded: samples[frame * channels + index] >> 16)
                }
                processor.process(channel)
                for frame in 0..<frames { samples[frame * channels + index] = Int32(channel[frame]) << 16 }
            case .float32:
                let samples = fragment.assumingMemoryBound(to: Float.self)
                for frame in 0..<frames {
                    channel[frame] = Int16(
                        (samples[frame * channels + index] * 32768).rounded().clamped(to: -32768...32767))
                }
                processor.process(channel)
                for frame in 0..<frames { samples[frame * channels + index] = Float(channel[frame]) / 32768 }
            }
        }
    }
}

extension Float {
    fileprivate func clamped(to range: ClosedRange<Float>) -> Float {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
