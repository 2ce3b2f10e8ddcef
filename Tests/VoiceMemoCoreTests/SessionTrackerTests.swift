import Testing
import VoiceMemoCore

/// The session monitor's decisions, fed logind's signals and the recorder's changes by hand:
/// when the sleep delay lock is held, and when sleep and session switches interrupt.
@Suite("Session tracker: logind's sleep lock, sleep and session switches")
struct SessionTrackerTests {
    /// A tracker that logind answered, with a recording under way and its lock held.
    private func recordingUnderLock() -> SessionTracker {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        #expect(tracker.handle(.recorderStateChanged(.recording)) == [.takeLock])
        #expect(tracker.handle(.lockGranted) == [])
        #expect(tracker.lock == .held)
        return tracker
    }

    @Test func whenTheLaptopSleepsMidRecordingTheLockIsReleasedAfterTheFileIsSynced() {
        var tracker = recordingUnderLock()
        #expect(tracker.handle(.sleepAnnounced(isMemoOpen: true)) == [.pauseForSleep, .flushOpenMemo])
        // Paused for sleep, still flushing: the lock keeps the machine awake.
        #expect(tracker.handle(.recorderStateChanged(.interrupted)) == [])
        #expect(tracker.lock == .held)
        #expect(tracker.handle(.fileSynced) == [.releaseLock])
        #expect(tracker.lock == .released)
        #expect(tracker.sleep == .sleeping)
        // On waking the lock is taken again before the recording goes on.
        #expect(tracker.handle(.wokeUp) == [.takeLock, .resumeAfterSleep])
        #expect(tracker.sleep == .awake)
    }

    @Test func aFlushThatNeverCompletesReleasesTheLockWhenItTimesOut() {
        var tracker = recordingUnderLock()
        _ = tracker.handle(.sleepAnnounced(isMemoOpen: true))
        #expect(tracker.handle(.flushTimedOut) == [.releaseLock])
        #expect(tracker.sleep == .sleeping)
        // The flush that finally finishes changes nothing.
        #expect(tracker.handle(.fileSynced) == [])
        #expect(tracker.lock == .released)
    }

    @Test func aSleepThatArrivesBeforeLogindAnsweredIsIgnored() {
        var tracker = SessionTracker()
        #expect(tracker.handle(.recorderStateChanged(.recording)) == [])
        #expect(tracker.handle(.sleepAnnounced(isMemoOpen: true)) == [])
        #expect(tracker.handle(.wokeUp) == [])
        #expect(tracker.sleep == .awake)
        #expect(!tracker.isFollowingLogind)
        // Once logind answers, the open memo gets its lock.
        #expect(tracker.handle(.logindAnswered) == [.takeLock])
        #expect(tracker.isFollowingLogind)
    }

    @Test func noLockIsTakenUntilLogindAnswers() {
        var tracker = SessionTracker()
        #expect(tracker.handle(.recorderStateChanged(.recording)) == [])
        #expect(tracker.lock == .released)
        #expect(tracker.handle(.logindAnswered) == [.takeLock])
        #expect(tracker.lock == .requested)
    }

    @Test(arguments: [RecorderState.recording, .paused, .interrupted])
    func theLockIsWantedWhileAMemoIsOpen(_ state: RecorderState) {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        #expect(tracker.handle(.recorderStateChanged(state)) == [.takeLock])
        #expect(tracker.handle(.lockGranted) == [])
        #expect(tracker.handle(.recorderStateChanged(.idle)) == [.releaseLock])
    }

    @Test func aScheduledMemoHasNoLock() {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        #expect(tracker.handle(.recorderStateChanged(.scheduled)) == [])
        #expect(!tracker.wantsLock)
    }

    @Test func aLockAskedForTwiceIsAskedOnce() {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        #expect(tracker.handle(.recorderStateChanged(.recording)) == [.takeLock])
        #expect(tracker.handle(.recorderStateChanged(.paused)) == [])
        #expect(tracker.lock == .requested)
    }

    @Test func aLockGrantedAfterTheRecordingEndedIsReleasedAtOnce() {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        _ = tracker.handle(.recorderStateChanged(.recording))
        #expect(tracker.handle(.recorderStateChanged(.idle)) == [])
        #expect(tracker.handle(.lockGranted) == [.releaseLock])
        #expect(tracker.lock == .released)
    }

    @Test func aRefusedLockIsAskedForAgainAtTheRecordersNextChange() {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        _ = tracker.handle(.recorderStateChanged(.recording))
        #expect(tracker.handle(.lockRefused) == [])
        #expect(tracker.lock == .released)
        #expect(tracker.handle(.recorderStateChanged(.paused)) == [.takeLock])
    }

    @Test func aSleepWithNoMemoOpenPausesAndFlushesWithoutALock() {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        #expect(tracker.handle(.sleepAnnounced(isMemoOpen: false)) == [.pauseForSleep, .flushOpenMemo])
        #expect(tracker.sleep == .sleeping)
        #expect(tracker.handle(.fileSynced) == [])
        #expect(tracker.handle(.wokeUp) == [.resumeAfterSleep])
    }

    @Test func aRecordingThatStartsWhileTheMachineSleepsGetsNoLockUntilItWakes() {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        _ = tracker.handle(.sleepAnnounced(isMemoOpen: false))
        #expect(tracker.handle(.recorderStateChanged(.recording)) == [])
        #expect(tracker.handle(.wokeUp) == [.takeLock, .resumeAfterSleep])
    }

    @Test func aRepeatedSleepOrWakeIsIgnored() {
        var tracker = recordingUnderLock()
        #expect(tracker.handle(.wokeUp) == [])
        _ = tracker.handle(.sleepAnnounced(isMemoOpen: true))
        #expect(tracker.handle(.sleepAnnounced(isMemoOpen: true)) == [])
        #expect(tracker.sleep == .flushing)
    }

    @Test func aLockAskedForBeforeLogindWentAwayIsReleasedWhenGranted() {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        _ = tracker.handle(.recorderStateChanged(.recording))
        #expect(tracker.handle(.logindMissing) == [])
        #expect(tracker.handle(.lockGranted) == [.releaseLock])
    }

    @Test func whenLogindGoesAwayTheLockIsReleasedAndItsSignalsNoLongerCount() {
        var tracker = recordingUnderLock()
        #expect(tracker.handle(.logindMissing) == [.releaseLock])
        #expect(tracker.logind == .off)
        #expect(!tracker.isFollowingLogind)
        #expect(tracker.handle(.sleepAnnounced(isMemoOpen: true)) == [])
        #expect(tracker.handle(.recorderStateChanged(.paused)) == [])
        // An answer that comes late does not turn it on again, nor does a second loss repeat.
        #expect(tracker.handle(.logindAnswered) == [])
        #expect(tracker.handle(.logindMissing) == [])
    }

    @Test func anInactiveSessionPausesTheRecordingAndAnActiveOneResumesIt() {
        var tracker = recordingUnderLock()
        #expect(tracker.handle(.sessionActiveChanged(false)) == [.pauseForInactiveSession])
        #expect(tracker.handle(.recorderStateChanged(.interrupted)) == [])
        #expect(tracker.handle(.sessionActiveChanged(true)) == [.resumeForActiveSession])
        #expect(tracker.isSessionActive)
    }

    @Test func aRecordingStartedWhileAnotherSessionHasTheSeatWaitsForOurs() {
        var tracker = SessionTracker()
        _ = tracker.handle(.logindAnswered)
        _ = tracker.handle(.sessionActiveChanged(false))
        #expect(tracker.handle(.recorderStateChanged(.recording)) == [.takeLock, .pauseForInactiveSession])
    }

    @Test func aSessionSwitchIsActedOnWhateverLogindsState() {
        // The monitor asks for the session's state only after logind answered; what it hears
        // is acted on even if logind is lost meanwhile.
        var tracker = SessionTracker()
        _ = tracker.handle(.logindMissing)
        #expect(tracker.handle(.sessionActiveChanged(false)) == [.pauseForInactiveSession])
    }
}
