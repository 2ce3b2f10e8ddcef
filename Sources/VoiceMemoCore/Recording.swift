/// One memo from the moment it is named until its file is closed, as the rules see it.
public struct Recording: Equatable, Sendable {
    public let number: RecordingNumber
    public let memo: MemoReference
    public let request: RecordingRequest
    /// Whether its capture has begun (false while it waits for its start time).
    public internal(set) var isCapturing = false
    /// The source feeding it; empty until its capture stream is open.
    public internal(set) var activeSource = ""
    /// Whether it still waits for sound: no file yet, `State` is `scheduled`.
    public internal(set) var isWaitingForSound = false
    /// Why its capture stream is lost, while the runtime reconnects.
    public internal(set) var lostCapture: InterruptionReason?
    var interruptions = Interruptions()
    var isStoppedByUser = false
    var isCancelled = false
    /// The caller of the command that started it: a `Toggle` is answered once the capture
    /// stream is open, a `Record` once audio flows (or the stream is lost or ends first).
    var startReply: PendingReply?
    /// Why its capture stream could not be opened; the start is answered with it.
    var startFailure: RecorderError?
    /// Callers answered once its file is closed.
    var replies: [PendingReply] = []

    init(number: RecordingNumber, memo: MemoReference, request: RecordingRequest, startReply: PendingReply?) {
        self.number = number
        self.memo = memo
        self.request = request
        self.startReply = startReply
    }

    /// The memo's file name inside the memo directory.
    public var fileName: String { memo.fileName }
}

/// The interruptions in effect on a recording and the state to return to after them.
struct Interruptions: Equatable, Sendable {
    /// Each reason in effect, and whether it stops writing.
    var reasons: [InterruptionReason: Bool] = [:]
    /// The state to return to once none is left.
    var stateBefore: RecorderState = .recording

    /// Whether any interruption in effect stops writing.
    var pausesCapture: Bool { reasons.values.contains(true) }
}

extension RecorderProperty {
    /// The properties that mirror `RecorderDefaults`.
    static let defaultsProperties: [RecorderProperty] = [
        .format, .sampleRate, .channels, .quality, .source, .meteringEnabled, .notificationsEnabled, .trayEnabled,
        .skipSilence,
    ]

    /// This property's value in `defaults`, for change detection.
    func value(in defaults: RecorderDefaults) -> String? {
        switch self {
        case .format: defaults.format.rawValue
        case .sampleRate: String(defaults.sampleRate)
        case .channels: String(defaults.channels)
        case .quality: defaults.quality.rawValue
        case .source: defaults.source
        case .meteringEnabled: String(defaults.isMeteringEnabled)
        case .notificationsEnabled: String(defaults.areNotificationsEnabled)
        case .trayEnabled: String(defaults.isTrayEnabled)
        case .skipSilence: String(defaults.skipsSilence)
        case .state, .currentMemo, .activeSource: nil
        }
    }
}
