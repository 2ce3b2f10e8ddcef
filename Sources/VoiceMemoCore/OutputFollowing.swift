/// When a call's system side must be opened again to keep recording what the computer plays:
/// the default output is another one now (headphones plugged in mid-call), or the server moved
/// the stream off the monitor of the output it records (its output vanished, and PulseAudio's
/// rescue put the stream on another source, the microphone perhaps).
///
/// The stream names its monitor, so neither server moves it when the default changes:
/// following is the recorder's to do, the same on both.
public enum OutputFollowing {
    /// Whether to open the system side again, given the output it records (`activeOutput`;
    /// nil while it is lost: it opens again by itself), the server's default output, the
    /// source the stream is on as the server lists it (nil: not listed yet, or gone) and the
    /// monitor of each output (`monitor`, nil for an output that has none or is gone).
    public static func needsReopen(
        activeOutput: String?, defaultOutput: String, streamSource: String?, monitor: (String) -> String?
    ) -> Bool {
        guard let activeOutput else { return false }
        if let streamSource, streamSource != monitor(activeOutput) { return true }
        return !defaultOutput.isEmpty && defaultOutput != activeOutput && monitor(defaultOutput) != nil
    }
}
