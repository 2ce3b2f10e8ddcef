import FoundationEssentials

/// Which answer a command waits for; the runtime keeps the caller under this number.
public typealias ReplyID = Int

/// Which recording a fact is about: a number the rules give each recording, never reused,
/// so a late fact about a finished recording cannot touch a newer one with the same memo id.
public typealias RecordingNumber = Int

/// Everything that can happen to the recorder, as `RecorderMachine.handle(_:)` takes it:
/// commands from clients, facts the runtime reports back, facts about the session and the
/// audio server, and timers firing.
public enum RecorderEvent: Sendable {
    // MARK: Commands

    /// `Record` at `now`.
    case record(ReplyID, now: Date)
    /// `RecordWithOptions` at `now`, with the options as the client sent them.
    case recordWithOptions(ReplyID, [String: OptionValue], now: Date)
    /// `Pause`; answered once the file on disk holds every frame recorded before it.
    case pause(ReplyID)
    /// `Resume`; answered at once.
    case resume(ReplyID)
    /// `Stop`; answered once the file is finalized.
    case stop(ReplyID)
    /// `Cancel`; answered once nothing is left on disk.
    case cancel(ReplyID)
    /// `Toggle` at `now`: starts when idle, otherwise stops.
    case toggle(ReplyID, now: Date)
    /// The defaults were changed (validated and saved by the runtime).
    case defaultsChanged(RecorderDefaults)
    /// Someone watches the levels live (or no one does any more).
    case levelsWatched(Bool)

    // MARK: What the runtime did, as the rules asked

    /// The memo for a start was named (or the directory refused).
    case memoPrepared(RecordingStart, Result<MemoReference, RecorderError>)
    /// The file asked for by `RecorderEffect.createFile` exists (or could not be created).
    case fileCreated(RecordingNumber, FilePurpose, Result<Void, RecorderError>)
    /// A cancelled memo's file is gone (or could not be removed).
    case fileRemoved(RecordingNumber, Result<Void, RecorderError>)

    // MARK: Facts about a recording's capture

    /// The capture stream is open on `source`.
    case captureStarted(RecordingNumber, source: String)
    /// The capture stream delivered its first audio: what follows is in the memo.
    case audioFlowing(RecordingNumber)
    /// The capture stream could not be opened; the capture ends next.
    case captureFailedToStart(RecordingNumber, RecorderError)
    /// The stream failed mid-recording; the runtime keeps reconnecting.
    case captureLost(RecordingNumber, RecorderError)
    /// A lost (or reopened) stream delivers again, from `source`.
    case captureRestored(RecordingNumber, source: String)
    /// A call's system side records the output `output` now (nil: it is lost and records
    /// silence); `isStart` when the call has just begun, which is no route change.
    case systemAudioChanged(RecordingNumber, output: String?, isStart: Bool)
    /// A call's system side should record another output (see `OutputFollowing`).
    case outputChanged
    /// A recording waiting for sound heard it.
    case soundStarted(RecordingNumber)
    /// A metering window was written: the memo's levels and each input's.
    case levelsMeasured(RecordingNumber, Levels, inputs: [Levels], currentTime: Double)
    /// The capture is over and the file closed (`closeError` when closing failed), at `now`.
    case captureEnded(RecordingNumber, CaptureEnding, closeError: RecorderError?, recordedFrames: Int, now: Date)

    // MARK: Timers

    /// A recording scheduled with `start-at` reached its time.
    case startTimeReached(RecordingNumber)
    /// A lost server did not come back within the reconnect timeout.
    case reconnectTimedOut(RecordingNumber)

    // MARK: The session and the audio server

    /// An interruption from outside the capture path (sleep, session switch, muted input).
    case interruptionBegan(InterruptionReason, pausesCapture: Bool, shouldResume: Bool)
    /// That interruption ended; `resume` false leaves the recording paused.
    case interruptionEnded(InterruptionReason, resume: Bool)
    /// The server moved the open recording's stream to `source`; `reason` nil announces no route change.
    case routeChanged(RouteChangeReason?, source: String)
    /// The open recording's input is gone and nothing may stand in for it.
    case inputLost
    /// An input fit for the open recording is back.
    case inputReturned
    /// The input the open recording should follow changed without the server moving it.
    case inputChanged
}

/// A start the rules asked the runtime to name a memo for, handed back with the name.
public struct RecordingStart: Equatable, Sendable {
    public var request: RecordingRequest
    /// The caller waiting for the start, and what it is answered with; nil for a re-arm.
    public var reply: PendingReply?
    /// When the start was asked for.
    public var requestDate: Date

    /// Whether this start re-arms a hands-free recording after its memo ended on silence.
    public var isRearm: Bool { reply == nil }
}

/// Why a recording's file is created.
public enum FilePurpose: Equatable, Sendable {
    /// A recording starting now (its caller is answered once the capture stream is open or
    /// audio flows: see `RecorderMachine.captureStarted`).
    case start
    /// A recording scheduled with `start-at` reached its time.
    case scheduledStart
    /// A recording waiting for sound heard it.
    case soundHeard
}
