/// How a recording's capture ended, as the runtime reports it to the rules.
public enum CaptureEnding: Equatable, Sendable {
    /// Stopped on request; the file is complete.
    case stopped
    /// The requested duration was reached; the file is complete.
    case durationReached
    /// The input stayed below the silence threshold for the requested time; the file is complete.
    case silenceReached
    /// The capture stream failed; the file holds everything captured before.
    case captureFailed(RecorderError)
    /// Writing failed; the file holds everything written before.
    case writeFailed(RecorderError)
}
