internal import CSpeexDSP
public import VoiceMemoCore

/// speexdsp's preprocessor on one channel of voice: noise suppression and automatic gain
/// control, run in place on each fragment.
///
/// speexdsp's defaults fall short for memos: at -15 dB, gaps between words come out only
/// 12–14 dB quieter, and its gain control lifts a -35 dBFS voice only to about -29 dBFS.
/// `Tuning` says what is set instead, and why.
public final class VoicePreprocessor: VoiceChannelProcessor {
    /// What is set on top of speexdsp's defaults (measured on bursts of voice-like tones over
    /// white noise, 48 kHz; see "A cleaner voice" in voicememod(1)).
    public enum Tuning {
        /// speexdsp works on 10 ms: with 20 ms frames its speech-probability estimate stays
        /// high for about 18 frames after a word, 360 ms, so short pauses count as speech and
        /// are barely suppressed. Each 20 ms fragment is two runs.
        /// Two suppressing stages of -30 dB each, one after the other: one stage at -40 dB
        /// takes 23 dB out of the pauses of a 10 s test but only 16–17 dB once it has learned
        /// the noise over minutes; two keep about 22 dB, and leave the words within 0.3 dB.
        public static let noiseSuppressionStages = 2
        public static let noiseSuppression: Int32 = -30
        /// The gain control's target on speexdsp's scale (not an RMS level): with 10 ms frames,
        /// 15000 brings voice to about -22 dBFS (8000, the default, to about -27).
        public static let gainTarget: Float = 15000
        /// At most 15 dB more: enough for a -35 dBFS talker, while noise alone, without
        /// suppression, is not pumped up much past where it was.
        public static let maximumGain: Int32 = 15
        /// dB per second the gain may fall: fast (default -40), so a sudden loud voice after a
        /// quiet one spends 70 ms, not 230, above -6 dBFS.
        public static let gainDecrement: Int32 = -120
    }

    /// The stages, in order; the last one also controls the gain, if asked.
    private let stages: [OpaquePointer]
    private let frameCount: Int
    private let stageFrames: Int

    /// A preprocessor for fragments of `framesPerRead` samples (20 ms) at `sampleRate`.
    public init(_ processing: VoiceProcessing, sampleRate: UInt32, framesPerRead: Int) throws(RecorderError) {
        // Half of a 20 ms fragment; an odd count (22.05 kHz: 441) runs whole.
        let stageFrames = framesPerRead % 2 == 0 ? framesPerRead / 2 : framesPerRead
        guard processing.isEnabled, stageFrames > 0 else {
            throw .unsupported("speexdsp cannot clean \(framesPerRead)-sample fragments at \(sampleRate) Hz")
        }
        let count = processing.suppressesNoise ? Tuning.noiseSuppressionStages : 1
        var stages: [OpaquePointer] = []
        for index in 0..<count {
            guard let state = speex_preprocess_state_init(Int32(stageFrames), Int32(sampleRate)) else {
                stages.forEach(speex_preprocess_state_destroy)
                throw .unsupported("speexdsp cannot clean audio at \(sampleRate) Hz")
            }
            stages.append(state)
            Self.set(state, SPEEX_PREPROCESS_SET_DENOISE, Int32(processing.suppressesNoise ? 1 : 0))
            if processing.suppressesNoise {
                Self.set(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, Tuning.noiseSuppression)
            }
            let controlsGain = processing.controlsGain && index == count - 1
            // A fixed-point build refuses gain control (-1): say so rather than record unchanged.
            guard Self.set(state, SPEEX_PREPROCESS_SET_AGC, Int32(controlsGain ? 1 : 0)) == 0 else {
                stages.forEach(speex_preprocess_state_destroy)
                throw .unsupported("this speexdsp has no automatic gain control (a fixed-point build)")
            }
            if controlsGain {
                Self.set(state, SPEEX_PREPROCESS_SET_AGC_LEVEL, Tuning.gainTarget)
                Self.set(state, SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, Tuning.maximumGain)
                Self.set(state, SPEEX_PREPROCESS_SET_AGC_DECREMENT, Tuning.gainDecrement)
            }
        }
        self.stages = stages
        self.stageFrames = stageFrames
        frameCount = framesPerRead
    }

    deinit {
        stages.forEach(speex_preprocess_state_destroy)
    }

    public func process(_ samples: UnsafeMutableBufferPointer<Int16>) {
        precondition(samples.count == frameCount, "speexdsp takes the fragment size it was made for")
        for start in stride(from: 0, to: frameCount, by: stageFrames) {
            // The answer is the voice-activity guess, unused (VAD is off).
            for state in stages { _ = speex_preprocess_run(state, samples.baseAddress! + start) }
        }
    }

    /// Sets one of speexdsp's options; each takes a pointer to its own C type (the gain
    /// target a float, the rest 32-bit integers). 0 is success.
    @discardableResult
    private static func set<Value>(_ state: OpaquePointer, _ request: Int32, _ value: Value) -> Int32 {
        var value = value
        return withUnsafeMutablePointer(to: &value) { speex_preprocess_ctl(state, request, $0) }
    }
}
