/// What logind and the recorder tell the session monitor, in the order they happen.
public enum SessionEvent: Equatable, Sendable {
    /// logind answered the first call: its signals count from now on.
    case logindAnswered
    /// The system bus or logind is missing or went away: sleep and session handling is off.
    case logindMissing
    /// The recorder's state changed.
    case recorderStateChanged(RecorderState)
    /// `PrepareForSleep(true)`: the machine is about to sleep. `isMemoOpen`: whether the
    /// recorder has a memo whose file must reach the disk first.
    case sleepAnnounced(isMemoOpen: Bool)
    /// `PrepareForSleep(false)`: the machine woke up.
    case wokeUp
    /// The open memo's file is on disk, as asked by `SessionEffect.flushOpenMemo`.
    case fileSynced
    /// The flush took longer than logind may be kept waiting; the machine sleeps anyway.
    case flushTimedOut
    /// logind granted the lock asked for by `SessionEffect.takeLock`.
    case lockGranted
    /// logind refused the lock, or its answer carried no lock.
    case lockRefused
    /// Our session became the active one on its seat (true) or another took the seat.
    case sessionActiveChanged(Bool)
}

/// What the session monitor does about an event.
public enum SessionEffect: Equatable, Sendable {
    /// Ask logind for a sleep delay lock; answer with `lockGranted` or `lockRefused`.
    case takeLock
    /// Close the lock held (or just granted and no longer wanted), letting a pending sleep go on.
    case releaseLock
    /// Interrupt the recording for system sleep, pausing its capture.
    case pauseForSleep
    /// Get the open memo's file onto disk; answer with `fileSynced`, or `flushTimedOut`
    /// once the time logind allows is up.
    case flushOpenMemo
    /// End the sleep interruption (the recorder resumes or stays paused, per its settings).
    case resumeAfterSleep
    /// Interrupt the recording while another session has the seat, pausing its capture.
    case pauseForInactiveSession
    /// End the session interruption.
    case resumeForActiveSession
}

/// The session monitor's decisions: when to hold logind's sleep delay lock, and when system
/// sleep and session switches interrupt the recording. Pure, so every sequence of logind's
/// signals and the recorder's changes can be replayed in a test; the monitor only does the
/// bus calls.
///
/// The lock is wanted while logind follows along, a memo is open, and the machine is awake
/// or still flushing the memo before it sleeps: after a sleep is announced the lock is kept
/// until the file is synced (or the flush times out), then released so the machine sleeps.
public struct SessionTracker: Sendable {
    /// Whether logind's signals count.
    public enum Logind: Equatable, Sendable {
        /// Asked, not answered yet: signals are ignored.
        case waiting
        /// Answered: signals count.
        case following
        /// Missing or gone, for good.
        case off
    }

    /// The sleep delay lock.
    public enum Lock: Equatable, Sendable {
        case released
        /// Asked for; logind has not answered.
        case requested
        case held
    }

    /// Where the machine is between `PrepareForSleep(true)` and `PrepareForSleep(false)`.
    public enum Sleep: Equatable, Sendable {
        case awake
        /// Sleep announced; the open memo's file is being flushed, under the lock.
        case flushing
        /// Sleep announced and nothing left to flush: the lock is released.
        case sleeping
    }

    public private(set) var logind = Logind.waiting
    public private(set) var lock = Lock.released
    public private(set) var sleep = Sleep.awake
    public private(set) var recorderState = RecorderState.idle
    /// Whether our session has its seat; assumed until logind says otherwise.
    public private(set) var isSessionActive = true

    public init() {}

    /// Whether logind's signals are to be handled.
    public var isFollowingLogind: Bool { logind == .following }

    /// Whether the lock should be held now.
    public var wantsLock: Bool {
        logind == .following && recorderState.hasOpenMemo && sleep != .sleeping
    }

    /// Takes in `event` and says what to do, in order.
    public mutating func handle(_ event: SessionEvent) -> [SessionEffect] {
        switch event {
        case .logindAnswered:
            guard logind == .waiting else { return [] }
            logind = .following
            return updateLock()
        case .logindMissing:
            guard logind != .off else { return [] }
            logind = .off
            return lock == .held ? release() : []
        case .recorderStateChanged(let state):
            recorderState = state
            // A recording started while another session has the seat waits for ours.
            return updateLock() + (!isSessionActive && state == .recording ? [.pauseForInactiveSession] : [])
        case .sleepAnnounced(let isMemoOpen):
            guard logind == .following, sleep == .awake else { return [] }
            sleep = isMemoOpen ? .flushing : .sleeping
            return updateLock() + [.pauseForSleep, .flushOpenMemo]
        case .wokeUp:
            guard logind == .following, sleep != .awake else { return [] }
            sleep = .awake
            return updateLock() + [.resumeAfterSleep]
        case .fileSynced, .flushTimedOut:
            guard sleep == .flushing else { return [] }
            sleep = .sleeping
            return updateLock()
        case .lockGranted:
            guard lock == .requested else { return [] }
            // The recording may have ended, or logind gone, while the call was out.
            lock = .held
            return updateLock()
        case .lockRefused:
            guard lock == .requested else { return [] }
            // Not asked again at once, only at the recorder's next change.
            lock = .released
            return []
        case .sessionActiveChanged(let active):
            isSessionActive = active
            return active ? [.resumeForActiveSession] : [.pauseForInactiveSession]
        }
    }

    /// Takes or releases the lock to match `wantsLock`.
    private mutating func updateLock() -> [SessionEffect] {
        switch (lock, wantsLock) {
        case (.released, true):
            lock = .requested
            return [.takeLock]
        case (.held, false):
            return release()
        default:
            // A lock asked for is settled when logind answers.
            return []
        }
    }

    private mutating func release() -> [SessionEffect] {
        lock = .released
        return [.releaseLock]
    }
}
