import Bus

/// Every member of `org.example.VoiceMemo`, the recorder object's interface, with its
/// signature as `data/org.example.VoiceMemo.xml` publishes it: the one place each is spelled.
public enum RecorderMember {
    // MARK: Methods

    public static let record = BusMethodDeclaration("Record", out: [memo])
    public static let recordWithOptions = BusMethodDeclaration(
        "RecordWithOptions", in: [BusArgument("options", "a{sv}")], out: [memo])
    public static let pause = BusMethodDeclaration("Pause")
    public static let resume = BusMethodDeclaration("Resume")
    public static let stop = BusMethodDeclaration("Stop", out: [memo])
    public static let cancel = BusMethodDeclaration("Cancel")
    public static let toggle = BusMethodDeclaration("Toggle", out: [BusArgument("state", "s")])
    public static let stopPlayback = BusMethodDeclaration("StopPlayback")
    public static let getLevels = BusMethodDeclaration("GetLevels", out: [averageDecibels, peakDecibels])
    /// Each input's levels, the loudest of its channels: for a panel with a bar per input.
    public static let getInputLevels = BusMethodDeclaration("GetInputLevels", out: [averageDecibels, peakDecibels])
    public static let watchLevels = BusMethodDeclaration("WatchLevels")
    public static let unwatchLevels = BusMethodDeclaration("UnwatchLevels")
    /// A page of the library with each memo's properties, for a panel that shows a few.
    public static let listMemos = BusMethodDeclaration(
        "ListMemos", in: [BusArgument("offset", "u"), BusArgument("count", "u"), BusArgument("order", "s")],
        out: [BusArgument("memos", "a(oa{sv})")])
    public static let findMemos = BusMethodDeclaration(
        "FindMemos", in: [BusArgument("text", "s")], out: [BusArgument("memos", "ao")])

    // MARK: Signals

    public static let recordingFinished = BusSignalDeclaration("RecordingFinished", [memo, successfully])
    public static let encodeError = BusSignalDeclaration("EncodeError", [memo, message])
    public static let playbackFinished = BusSignalDeclaration("PlaybackFinished", [memo, successfully])
    public static let decodeError = BusSignalDeclaration("DecodeError", [memo, message])
    public static let interruption = BusSignalDeclaration(
        "Interruption", [BusArgument("type", "s"), BusArgument("reason", "s"), BusArgument("should_resume", "b")])
    public static let routeChanged = BusSignalDeclaration(
        "RouteChanged",
        [BusArgument("reason", "s"), BusArgument("previous_source", "s"), BusArgument("current_source", "s")])
    public static let levels = BusSignalDeclaration(
        "Levels", [averageDecibels, peakDecibels, currentTimeArgument])
    /// Follows each `Levels` while a call records: the microphone's, then the system audio's.
    public static let inputLevels = BusSignalDeclaration(
        "InputLevels", [averageDecibels, peakDecibels, currentTimeArgument])

    // MARK: Properties

    public static let state = BusPropertyDeclaration("State", "s")
    public static let currentMemo = BusPropertyDeclaration("CurrentMemo", "o")
    /// Changes continuously while recording, so it is read, never announced.
    public static let currentTime = BusPropertyDeclaration("CurrentTime", "d", changeSignal: .none)
    public static let playing = BusPropertyDeclaration("Playing", "o")
    public static let format = BusPropertyDeclaration("Format", "s", access: .readWrite)
    public static let sampleRate = BusPropertyDeclaration("SampleRate", "u", access: .readWrite)
    public static let channels = BusPropertyDeclaration("Channels", "u", access: .readWrite)
    public static let quality = BusPropertyDeclaration("Quality", "s", access: .readWrite)
    public static let source = BusPropertyDeclaration("Source", "s", access: .readWrite)
    public static let activeSource = BusPropertyDeclaration("ActiveSource", "s")
    /// The sink whose monitor the open memo records as system audio; empty when none.
    public static let activeOutput = BusPropertyDeclaration("ActiveOutput", "s")
    public static let meteringEnabled = BusPropertyDeclaration("MeteringEnabled", "b", access: .readWrite)
    public static let notificationsEnabled = BusPropertyDeclaration("NotificationsEnabled", "b", access: .readWrite)
    public static let trayEnabled = BusPropertyDeclaration("TrayEnabled", "b", access: .readWrite)
    public static let skipSilence = BusPropertyDeclaration("SkipSilence", "b", access: .readWrite)
    /// The playback speed, pitch kept; the MPRIS player's `Rate` is the same value.
    public static let playbackRate = BusPropertyDeclaration("PlaybackRate", "d", access: .readWrite)
    /// The default of `RecordWithOptions`' `system-audio`, and so of `Record` and `Toggle`.
    public static let systemAudio = BusPropertyDeclaration("SystemAudio", "b", access: .readWrite)
    public static let noiseSuppression = BusPropertyDeclaration("NoiseSuppression", "b", access: .readWrite)
    public static let autoGain = BusPropertyDeclaration("AutoGain", "b", access: .readWrite)
    /// Whether each finished memo is queued for transcription.
    public static let transcribeNewMemos = BusPropertyDeclaration("TranscribeNewMemos", "b", access: .readWrite)
    /// The installed engine, its version and model, or `""` when none is installed.
    public static let transcriptionEngine = BusPropertyDeclaration("TranscriptionEngine", "s")
    /// The speech model transcripts are made with.
    public static let transcriptionModel = BusPropertyDeclaration("TranscriptionModel", "s", access: .readWrite)
    public static let directory = BusPropertyDeclaration("Directory", "s", changeSignal: .constant)
    /// How many memos the library holds, so a pager knows its end without listing.
    public static let memoCount = BusPropertyDeclaration("MemoCount", "u")

    // MARK: The whole interface

    /// Every method, in the published order.
    public static let methods = [
        record, recordWithOptions, pause, resume, stop, cancel, toggle, stopPlayback, getLevels, getInputLevels,
        watchLevels, unwatchLevels, listMemos, findMemos,
    ]
    /// Every signal, in the published order.
    public static let signals = [
        recordingFinished, encodeError, playbackFinished, decodeError, interruption, routeChanged, levels,
        inputLevels,
    ]
    /// Every property, in the published order.
    public static let properties = [
        state, currentMemo, currentTime, playing, format, sampleRate, channels, quality, source, activeSource,
        activeOutput, meteringEnabled, notificationsEnabled, trayEnabled, skipSilence, playbackRate, systemAudio,
        noiseSuppression, autoGain, transcribeNewMemos, transcriptionEngine, transcriptionModel, directory, memoCount,
    ]

    // Arguments several members share.
    private static let memo = BusArgument("memo", "o")
    private static let successfully = BusArgument("successfully", "b")
    private static let message = BusArgument("message", "s")
    private static let averageDecibels = BusArgument("average_db", "ad")
    private static let peakDecibels = BusArgument("peak_db", "ad")
    private static let currentTimeArgument = BusArgument("current_time", "d")
}
