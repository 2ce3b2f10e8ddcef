import Bus

/// Every member of `org.example.VoiceMemo.Memo`, the interface of each memo object, with
/// its signature as `data/org.example.VoiceMemo.xml` publishes it.
public enum MemoMember {
    // MARK: Methods

    public static let play = BusMethodDeclaration("Play")
    public static let rename = BusMethodDeclaration("Rename", in: [BusArgument("title", "s")])
    public static let delete = BusMethodDeclaration("Delete")
    public static let deletePermanently = BusMethodDeclaration("DeletePermanently")
    public static let peaks = BusMethodDeclaration(
        "Peaks", in: [BusArgument("count", "u")], out: [BusArgument("peaks", "ad")])
    public static let trim = BusMethodDeclaration("Trim", in: [BusArgument("start", "d"), BusArgument("end", "d")])
    public static let trimSilence = BusMethodDeclaration("TrimSilence")
    /// Queues the memo for transcription (again, if it has a transcript).
    public static let transcribe = BusMethodDeclaration("Transcribe")
    /// The transcript's segments: start and end in seconds, and the words said.
    public static let transcriptSegments = BusMethodDeclaration(
        "TranscriptSegments", out: [BusArgument("segments", "a(dds)")])

    // MARK: Properties

    public static let id = BusPropertyDeclaration("Id", "s", changeSignal: .constant)
    /// Writable; a write renames the memo like `Rename`.
    public static let title = BusPropertyDeclaration("Title", "s", access: .readWrite)
    public static let path = BusPropertyDeclaration("Path", "s")
    public static let format = BusPropertyDeclaration("Format", "s", changeSignal: .constant)
    public static let created = BusPropertyDeclaration("Created", "x", changeSignal: .constant)
    public static let duration = BusPropertyDeclaration("Duration", "d")
    public static let sampleRate = BusPropertyDeclaration("SampleRate", "u")
    public static let channels = BusPropertyDeclaration("Channels", "u")
    public static let size = BusPropertyDeclaration("Size", "t")
    /// `none`, `queued`, `running`, `done` or `failed` (`TranscriptStatus` in the core).
    public static let transcriptStatus = BusPropertyDeclaration("TranscriptStatus", "s")
    /// The transcript's words, `""` until one is done.
    public static let transcript = BusPropertyDeclaration("Transcript", "s")

    // MARK: The whole interface

    /// Every method, in the published order.
    public static let methods = [
        play, rename, delete, deletePermanently, peaks, trim, trimSilence, transcribe, transcriptSegments,
    ]
    /// The interface has no signals.
    public static let signals: [BusSignalDeclaration] = []
    /// Every property, in the published order.
    public static let properties = [
        id, title, path, format, created, duration, sampleRate, channels, size, transcriptStatus, transcript,
    ]
}
