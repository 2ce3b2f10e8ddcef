/// When a recording that waits for sound begins, and how much audio from before that it
/// keeps: the rules of `start-on-sound`.
///
/// Each captured fragment (20 ms) is judged on its own, so the start is found within one
/// fragment of the sound; the fragments before it, up to the pre-roll, are kept and begin
/// the memo, so a first syllable that rises slowly through the threshold is whole.
public struct SoundTrigger: Sendable {
    /// The RMS level, in dBFS, that any channel of a fragment must reach.
    public let threshold: Double
    /// Fragments from before the crossing one that the memo begins with.
    public let preRollFragments: Int
    private let channels: Int
    private let sampleType: SampleType

    public init(request: RecordingRequest, framesPerRead: Int) {
        threshold = request.soundThreshold
        preRollFragments = Int((request.preRoll * Double(request.sampleRate) / Double(framesPerRead)).rounded(.up))
        channels = Int(request.channels)
        sampleType = request.format.sampleType(for: request.quality)
    }

    /// Whether a fragment whose samples sum to `sums` is sound: the memo starts with it.
    public func hears(_ sums: SampleSums) -> Bool {
        Self.isSound(sums.levels, threshold: threshold)
    }

    /// Whether the fragment of `frameCount` frames in `fragment` is sound.
    public func hearsSound(in fragment: UnsafeRawBufferPointer, frameCount: Int) -> Bool {
        hears(SampleSums(of: fragment, frameCount: frameCount, channels: channels, type: sampleType))
    }

    /// Whether levels reach `threshold` on any channel (RMS: a click's peak is not speech).
    public static func isSound(_ levels: Levels, threshold: Double) -> Bool {
        levels.average.contains { $0 >= threshold }
    }
}
