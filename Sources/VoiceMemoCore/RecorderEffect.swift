import FoundationEssentials

/// What the rules ask the runtime to do, in order. Each names the recording it is about;
/// effects that have an outcome the rules wait for are answered with an event
/// (`memoPrepared`, `fileCreated`, `fileRemoved`), applied once the other effects of the
/// same event are carried out and before any other event.
public enum RecorderEffect: Equatable, Sendable {
    /// Answer a waiting caller.
    case answer(ReplyID, Result<RecorderReply, RecorderError>)
    /// Name a new memo in the memo directory (creating it if needed), dated `date`, avoiding
    /// `reserved` ids; answered with `memoPrepared`.
    case prepareMemo(RecordingStart, date: Date, reserved: Set<String>)
    /// Journal and create the memo's file; answered with `fileCreated`.
    case createFile(RecordingNumber, MemoReference, RecordingRequest, FilePurpose)
    /// Remove a memo's file; `reportsTo` a recording answers with `fileRemoved`.
    case removeFile(MemoReference, reportsTo: RecordingNumber?)

    /// Open the capture stream and move its audio into the file created for the recording
    /// (or, waiting for sound, keep it until `attachFile`).
    case startCapture(RecordingNumber, RecordingRequest, isMetering: Bool)
    /// Hand the file created after the sound to the capture.
    case attachFile(RecordingNumber)
    /// Stop writing; `droppingHeldAudio` also drops audio held back (it may come from a stand-in).
    case pauseCapture(RecordingNumber, droppingHeldAudio: Bool)
    /// Write again, appending to the same file.
    case resumeCapture(RecordingNumber)
    /// Make the file on disk hold every frame written so far, then answer `reply` with `.done`.
    case synchronize(RecordingNumber, then: ReplyID)
    /// End the capture after the read in progress; `captureEnded` follows.
    case stopCapture(RecordingNumber)
    /// Stop waiting for a lost stream; `captureEnded` follows.
    case giveUpCapture(RecordingNumber)
    /// Open the capture stream again (`afterLoss`: without waiting for the read in progress).
    case reopenCapture(RecordingNumber, afterLoss: Bool)
    /// Open a call's system side again, on the default output, before its next fragment.
    case reopenSystemAudio(RecordingNumber)
    /// Report levels as they are measured, or stop.
    case setMetering(RecordingNumber, isEnabled: Bool)

    /// Fire `startTimeReached` at the Unix time `at`.
    case scheduleStart(RecordingNumber, at: Int64)
    /// Forget the start time of a recording stopped before it.
    case cancelStart(RecordingNumber)
    /// Fire `reconnectTimedOut` after `seconds`.
    case scheduleReconnectTimeout(RecordingNumber, seconds: Double)
    /// The stream is back, or the recording over: no timeout any more.
    case cancelReconnectTimeout(RecordingNumber)

    /// Stop memo playback: recording over it would capture it through the speakers, and a
    /// recording waiting for sound would start on it.
    case stopPlayback
    /// Tell whoever listens (the bus, the tray, the session and route monitors).
    case notify(RecorderNotification)
}

/// What a command is answered with.
public enum RecorderReply: Equatable, Sendable {
    case memo(MemoReference)
    case done
    /// The state a `Toggle` moved to.
    case state(RecorderState)
}

/// A caller waiting for a recording, and what it is answered with when the wait ends.
public struct PendingReply: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The recording's memo.
        case memo
        /// Nothing but success.
        case done
        /// The state a `Toggle` moved to.
        case state(RecorderState)
    }

    public var id: ReplyID
    public var kind: Kind

    public init(_ id: ReplyID, _ kind: Kind) {
        self.id = id
        self.kind = kind
    }

    /// The answer for `memo`'s wait ending with `outcome`.
    func answer(_ outcome: Result<Void, RecorderError>, memo: MemoReference) -> RecorderEffect {
        .answer(
            id,
            outcome.map {
                switch kind {
                case .memo: .memo(memo)
                case .done: .done
                case .state(let state): .state(state)
                }
            })
    }
}

/// What the recorder tells its listeners.
public enum RecorderNotification: Equatable, Sendable {
    /// Some observable values changed (each named once).
    case changed([RecorderProperty])
    /// A memo was finished; `successfully` is false when a failure ended it early.
    case finished(MemoReference, successfully: Bool)
    /// Writing a memo failed; what was written before stays on disk.
    case encodeFailed(MemoReference, message: String)
    /// An interruption began (`began` true) or ended; `shouldResume` tells whether the
    /// recording goes on by itself when it ends.
    case interruption(InterruptionReason, began: Bool, shouldResume: Bool)
    /// The source feeding the recording changed.
    case routeChanged(RouteChangeReason, from: String, to: String)
    /// A metering window was recorded (only while metering and recording): the memo's levels
    /// and each input's, in `CaptureInput` order.
    case levels(Levels, inputs: [Levels], currentTime: Double)
}
