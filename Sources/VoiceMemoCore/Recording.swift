/// One memo from the moment it is named until its file is closed, as the rules see it.
public struct Recording: Equatable, Sendable {
    public let number: RecordingNumber
    public let memo: MemoReference
    public let request: RecordingRequest
    /// Where it is: scheduled, recording, paused or interrupted, with what each needs.
    public internal(set) var phase: RecordingPhase
    /// The source feeding it; empty until its capture stream is open.
    public internal(set) var activeSource = ""
    /// The sink whose monitor feeds its system audio; nil without system audio, or until
    /// that stream is open. Whoever sets it also calls the machine's `announce()`, which
    /// announces `ActiveOutput` once per change, opening and closing included.
    public internal(set) var activeOutput: String?
    /// Whoever started it, and how far its capture stream got for them.
    var start: StartProgress

    init(
        number: RecordingNumber, memo: MemoReference, request: RecordingRequest, phase: RecordingPhase,
        start: StartProgress
    ) {
        self.number = number
        self.memo = memo
        self.request = request
        self.phase = phase
        self.start = start
    }

    /// The memo's file name inside the memo directory.
    public var fileName: String { memo.fileName }

    /// Whether its capture has begun (false while it waits for its start time).
    public var isCapturing: Bool { if case .scheduled(.at) = phase { false } else { true } }

    /// Whether it still waits for sound: no file yet, `State` is `scheduled` (or `interrupted`).
    public var isWaitingForSound: Bool { if case .listening? = phase.sound { true } else { false } }

    /// Why its capture stream is lost, while the runtime reconnects.
    public var lostCapture: InterruptionReason? {
        if case .interrupted(let interruption) = phase { interruption.lostCapture } else { nil }
    }
}

/// Where an open recording is. `State` is derived from it, so no state can disagree with
/// the data it needs (a start time, a sound to wait for, the interruptions to wait out).
public enum RecordingPhase: Equatable, Sendable {
    /// Not recording yet: waiting for a time, or for sound.
    case scheduled(Schedule)
    case recording
    case paused
    case interrupted(Interruption)

    /// The contract's `State` for this phase.
    public var state: RecorderState {
        switch self {
        case .scheduled: .scheduled
        case .recording: .recording
        case .paused: .paused
        case .interrupted: .interrupted
        }
    }

    /// Where it stands with the sound it waits for, if it waits for one (interrupted too).
    var sound: SoundWait? {
        switch self {
        case .scheduled(.onSound(let wait)): wait
        case .interrupted(let interruption): interruption.returnTo.sound
        case .scheduled(.at), .recording, .paused: nil
        }
    }
}

/// What a scheduled recording waits for.
public enum Schedule: Equatable, Sendable {
    /// Its start time (Unix seconds): nothing is captured and no file exists before it.
    case at(Int64)
    /// Sound: it captures, keeping a pre-roll, but writes no file until the input rises.
    case onSound(SoundWait)
}

/// A recording that waits for sound, before and just after it comes.
public enum SoundWait: Equatable, Sendable {
    /// Listening for the input to reach `threshold` dBFS, keeping `preRoll` seconds.
    case listening(threshold: Double, preRoll: Double)
    /// The sound came: the file it begins is being created.
    case heard
}

/// The interruptions in effect on a recording and where it goes once none is left.
public struct Interruption: Equatable, Sendable {
    /// Where a recording goes when its interruptions end: never back to a start time.
    public enum Return: Equatable, Sendable {
        case onSound(SoundWait)
        case recording
        case paused

        /// The phase it returns to.
        var phase: RecordingPhase {
            switch self {
            case .onSound(let wait): .scheduled(.onSound(wait))
            case .recording: .recording
            case .paused: .paused
            }
        }

        var sound: SoundWait? { if case .onSound(let wait) = self { wait } else { nil } }
    }

    /// Each reason in effect, and whether it stops writing.
    public internal(set) var reasons: [InterruptionReason: Bool]
    /// Where the recording goes once none is left.
    public internal(set) var returnTo: Return

    /// Whether any interruption in effect stops writing.
    var pausesCapture: Bool { reasons.values.contains(true) }

    /// Why the capture stream is lost, if it is: a loss is one of the reasons, so it lasts
    /// exactly as long as the interruption it causes.
    public var lostCapture: InterruptionReason? { reasons.keys.first(where: \.isCaptureLoss) }
}

extension InterruptionReason {
    /// Whether this reason is the capture stream itself lost (the machine's own, never a session's).
    var isCaptureLoss: Bool { self == .serverLost || self == .deviceLost }
}

extension RecordingRequest {
    /// What a recording that starts on sound listens for.
    var soundTrigger: SoundWait { .listening(threshold: soundThreshold, preRoll: preRoll) }
}

/// The caller that started a recording, and how far the capture stream got for them.
enum StartProgress: Equatable, Sendable {
    /// Nobody waits (answered already, or a start nobody asked for: a re-arm).
    case answered
    /// The caller waits: a `Toggle` until the stream opens, a `Record` until audio flows
    /// (or the stream is lost or ends first).
    case awaited(PendingReply)
    /// The stream could not be opened; whoever still waits hears why once the file is gone.
    case failed(RecorderError, reply: PendingReply?)

    /// The caller still waiting, if any.
    var reply: PendingReply? {
        switch self {
        case .answered: nil
        case .awaited(let reply), .failed(_, let reply?): reply
        case .failed(_, nil): nil
        }
    }
}

/// A recording stopped by its user, or by its own ending, whose file is being finalized.
public struct ClosingRecording: Equatable, Sendable {
    /// Why the user closed it: kept as a memo, or cancelled (its file removed).
    enum Reason: Equatable, Sendable {
        case stoppedByUser
        case cancelled
    }

    public internal(set) var recording: Recording
    var reason: Reason
    /// Whether it still waits for a lost stream (so the reconnect timeout is still set).
    var awaitsLostCapture: Bool
    /// Callers answered once its file is closed.
    var replies: [PendingReply] = []
}

/// Where one recording is in its life, from its start to its end: the machine keeps one of
/// these per recording it still has to do with.
public enum RecordingLife: Equatable, Sendable {
    /// Starting now: its file is being created, and it opens once the file exists.
    case starting(Recording)
    /// The open recording, in its phase: scheduled, waiting for sound, recording, paused or
    /// interrupted.
    case open(Recording)
    /// A hands-free recording whose memo ended on silence while its next memo is being
    /// named; meanwhile the recorder goes on showing `shownState`, the state it last
    /// announced, and the next memo, once named, announces its own.
    case rearming(shownState: RecorderState)
    /// Closed by its user (or by a failed file), its file being finalized.
    case closing(ClosingRecording)
    /// Cancelled once its capture ended: its file is being removed, and its callers are
    /// answered once it is gone.
    case removing(ClosingRecording)

    /// The recording, while it is open.
    public var open: Recording? {
        if case .open(let recording) = self { recording } else { nil }
    }

    /// The recording, while it is being finalized.
    public var closing: ClosingRecording? {
        if case .closing(let closed) = self { closed } else { nil }
    }

    /// The state the recorder shows while this recording re-arms.
    var rearmingState: RecorderState? {
        if case .rearming(let shownState) = self { shownState } else { nil }
    }
}

extension RecorderProperty {
    /// The properties that mirror `RecorderDefaults`.
    static let defaultsProperties: [RecorderProperty] = [
        .format, .sampleRate, .channels, .quality, .source, .meteringEnabled, .notificationsEnabled, .trayEnabled,
        .skipSilence, .playbackRate, .systemAudio, .noiseSuppression, .autoGain, .transcribeNewMemos,
        .transcriptionModel,
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
        case .playbackRate: String(defaults.playbackRate)
        case .systemAudio: String(defaults.systemAudio)
        case .noiseSuppression: String(defaults.noiseSuppression)
        case .autoGain: String(defaults.autoGain)
        case .transcribeNewMemos: String(defaults.transcribeNewMemos)
        case .transcriptionModel: defaults.transcriptionModel
        case .state, .currentMemo, .activeSource, .activeOutput: nil
        }
    }
}
