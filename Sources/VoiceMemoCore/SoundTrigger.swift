/// When a recording that waits for sound begins, and how much audio from before that it
/// keeps: the rules of `start-on-sound`, apart from the capture thread that applies them.
///
/// Each captured fragment (20 ms) is measured on its own, so the start is found within one
/// fragment of the sound; the fragments before it, up to the pre-roll, are kept in a ring
/// and begin the memo, so a first syllable that rises slowly through the threshold is whole.
public struct SoundTrigger: Sendable {
    /// The RMS level, in dBFS, that any channel of a fragment must reach.
    public let threshold: Double
    /// Fragments from before the crossing one that the memo begins with.
    public let preRollFragments: Int
    private var meter: LevelMeter
    private let sampleType: SampleType

    public init(request: RecordingRequest, framesPerRead: Int) {
        threshold = request.soundThreshold
        preRollFragments = Int((request.preRoll * Double(request.sampleRate) / Double(framesPerRead)).rounded(.up))
        meter = LevelMeter(channels: Int(request.channels), windowFrames: framesPerRead)
        sampleType = request.format.sampleType(for: request.quality)
    }

    /// Whether the fragment of `frameCount` frames in `fragment` is sound: the memo starts with it.
    public mutating func hearsSound(in fragment: UnsafeRawBufferPointer, frameCount: Int) -> Bool {
        guard let levels = meter.add(fragment, frameCount: frameCount, type: sampleType) else { return false }
        return Self.isSound(levels, threshold: threshold)
    }

    /// Whether levels reach `threshold` on any channel (RMS: a click's peak is not speech).
    public static func isSound(_ levels: Levels, threshold: Double) -> Bool {
        levels.average.contains { $0 >= threshold }
    }
}
