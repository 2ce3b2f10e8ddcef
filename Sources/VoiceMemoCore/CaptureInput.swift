/// One input of a recording: the microphone, and for a call also what the computer plays.
///
/// The raw value is the input's position in `CapturedFragment.inputs`, so the microphone,
/// which every recording has, comes first.
public enum CaptureInput: Int, CaseIterable, Sendable {
    /// The source the recording was asked for, or the default input. It is the clock of the
    /// memo's timeline: it never loses a frame to keep the inputs aligned.
    case microphone
    /// The monitor of the default output: what the computer plays.
    case systemAudio
}
