import Dispatch
import Synchronization
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc  // usleep
#endif

/// Watches one capture thread's reads, so a read that hangs neither hangs the recording nor
/// keeps its file from being synced or closed.
///
/// A source can vanish without the server failing the stream: PipeWire then leaves
/// `pa_simple_read` waiting forever. But a read that is late is not lost: inputs that deliver
/// in bursts (a sine or pipe source, a network tunnel) keep a read waiting for seconds. So the
/// watch only says how long the read has waited; the pipeline decides what that means. While
/// a read waits the thread leaves the file alone, so the recorder's queue may borrow it (to
/// sync) or take it over for good (to close it) and let the thread leave whenever its read
/// returns.
final class ReadWatch: Sendable {
    private enum Phase {
        /// Between reads: the capture thread owns the file.
        static let working = 0
        /// Waiting in a read: the file is untouched until it returns.
        static let reading = 1
        /// The queue syncs the file while the read hangs; the thread waits for it.
        static let borrowed = 2
        /// The queue took the file while the read hung; the thread must not touch it again.
        static let abandoned = 3
    }

    private let phase = Atomic<Int>(Phase.working)
    /// When the read in progress began, in monotonic nanoseconds.
    private let readStart = Atomic<UInt64>(0)
    private let stalled = Atomic<Bool>(false)

    /// Whether the read in progress has been declared hung.
    var isStalled: Bool { stalled.load(ordering: .relaxed) }

    // MARK: Capture thread

    /// Runs `read`, marking the file untouched meanwhile; nil when the queue abandoned this
    /// thread (before or during the read). `endedStall` says the read had been declared hung.
    func watch<Value>(_ read: () -> Value) -> (value: Value, endedStall: Bool)? {
        readStart.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        guard
            phase.compareExchange(expected: Phase.working, desired: Phase.reading, ordering: .acquiringAndReleasing)
                .exchanged
        else { return nil }
        let value = read()
        while !phase.compareExchange(expected: Phase.reading, desired: Phase.working, ordering: .acquiringAndReleasing)
            .exchanged
        {
            if phase.load(ordering: .acquiring) == Phase.abandoned { return nil }
            usleep(1000)  // the queue is syncing the file: a few milliseconds at most
        }
        return (value, stalled.exchange(false, ordering: .relaxed))
    }

    // MARK: Recorder's queue

    /// Declares the read in progress hung once it has waited longer than `timeout` seconds;
    /// true only the first time.
    func declareStall(after timeout: Double) -> Bool {
        guard !stalled.load(ordering: .relaxed), let waited = readWaitTime, waited > timeout else { return false }
        stalled.store(true, ordering: .relaxed)
        return true
    }

    /// How long the read in progress has waited, in seconds; nil between reads.
    var readWaitTime: Double? {
        guard phase.load(ordering: .acquiring) == Phase.reading else { return nil }
        return Double(DispatchTime.now().uptimeNanoseconds &- readStart.load(ordering: .relaxed)) / 1e9
    }

    /// Runs `body` while the thread waits in a read; false (and `body` not run) otherwise.
    func borrowFile(_ body: () -> Void) -> Bool {
        guard
            phase.compareExchange(expected: Phase.reading, desired: Phase.borrowed, ordering: .acquiringAndReleasing)
                .exchanged
        else { return false }
        body()
        phase.store(Phase.reading, ordering: .releasing)
        return true
    }

    /// Takes the file from a thread waiting in a read, for good; false between reads (the
    /// thread is writing and will see the request itself).
    func abandon() -> Bool {
        phase.compareExchange(expected: Phase.reading, desired: Phase.abandoned, ordering: .acquiringAndReleasing)
            .exchanged
    }
}
