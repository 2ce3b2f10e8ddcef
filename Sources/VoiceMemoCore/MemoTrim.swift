/// What `Trim` and `TrimSilence` keep of a memo, in frames: the rules, apart from the files.
public enum MemoTrim {
    /// `TrimSilence` cuts stretches whose 10 ms peaks all stay below this level (dBFS)…
    public static let silenceThreshold = -50.0
    /// …judged 10 ms at a time…
    public static let silenceBlockSeconds = 0.01
    /// …and keeps this much of the silence next to the sound, so a word is not clipped.
    public static let keptSilenceSeconds = 0.2

    /// The frames `Trim(start, end)` keeps of a memo of `frameCount` frames: seconds become
    /// frames rounded to the nearest. `end` may be the memo's length; anything that is not
    /// a stretch inside the memo is `InvalidArgument`, saying what would be.
    public static func frames(
        start: Double, end: Double, sampleRate: Int, frameCount: Int
    ) throws(RecorderError) -> Range<Int> {
        let duration = Double(frameCount) / Double(max(sampleRate, 1))
        let length = ClockText.text(duration, rounding: .toNearestOrAwayFromZero)
        guard start.isFinite, end.isFinite, start >= 0, end >= 0 else {
            throw .invalidArgument(
                "start and end must be seconds from the memo's beginning, 0 or more; got \(start) and \(end)")
        }
        // Compared as Doubles first: a huge value must not trap converting to Int.
        let (first, last) = ((start * Double(sampleRate)).rounded(), (end * Double(sampleRate)).rounded())
        guard last <= Double(frameCount) else {
            throw .invalidArgument(
                "end \(end) s is past the memo's end (\(duration) s, \(length)); at most \(duration)")
        }
        guard first < last else {
            throw .invalidArgument("start (\(start) s) must come before end (\(end) s): nothing would be left")
        }
        return Int(first)..<Int(last)
    }

    /// The frames `TrimSilence` keeps, from the peak (absolute, 0…1, all channels) of each
    /// `framesPerPeak` frames: from `keptSilenceSeconds` before the first peak that reaches
    /// `silenceThreshold` to as long after the last. Nil when no peak does: a memo that is
    /// silence throughout has nothing to keep.
    public static func framesWithoutSilence(
        peaks: [Float], framesPerPeak: Int, frameCount: Int, sampleRate: Int
    ) -> Range<Int>? {
        let threshold = Float(Levels.amplitude(decibels: silenceThreshold))
        guard let first = peaks.firstIndex(where: { $0 >= threshold }),
            let last = peaks.lastIndex(where: { $0 >= threshold })
        else { return nil }
        let kept = Int((keptSilenceSeconds * Double(sampleRate)).rounded())
        let soundStart = first * framesPerPeak
        let soundEnd = min((last + 1) * framesPerPeak, frameCount)
        return max(0, soundStart - kept)..<min(frameCount, soundEnd + kept)
    }
}
