import Dispatch
import Synchronization

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
    /// Where the capture thread is. The fourth phase, *borrowed* (the queue syncs the file
    /// while the read hangs), is `reading` with `state`'s lock held by the queue: a read that
    /// returns meanwhile blocks on that lock until the file is handed back.
    private enum Phase {
        /// Between reads: the capture thread owns the file.
        case working
        /// Waiting in a read: the file is untouched until it returns.
        case reading
        /// The queue took the file while the read hung; the thread must not touch it again.
        case abandoned
    }

    private struct State {
        var phase = Phase.working
        /// When the read in progress began, in monotonic nanoseconds.
        var readStart: UInt64 = 0
        /// Whether the read in progress has been declared hung.
        var isStalled = false
    }

    /// The capture thread holds it only to change phase, never across a read (a hung read must
    /// not block the queue); the queue holds it for as long as it borrows the file.
    private let state = Mutex(State())

    /// Whether the read in progress has been declared hung.
    var isStalled: Bool { state.withLock { $0.isStalled } }

    // MARK: Capture thread

    /// Runs `read`, marking the file untouched meanwhile; nil when the queue abandoned this
    /// thread (before or during the read). `endedStall` says the read had been declared hung.
    /// Returns only once the queue has handed back a file it borrowed during the read.
    func watch<Value>(_ read: () -> Value) -> (value: Value, endedStall: Bool)? {
        let isAbandoned = state.withLock { state in
            guard state.phase == .working else { return true }
            state.phase = .reading
            state.readStart = DispatchTime.now().uptimeNanoseconds
            return false
        }
        if isAbandoned { return nil }
        let value = read()
        let endedStall = state.withLock { state -> Bool? in
            guard state.phase == .reading else { return nil }  // abandoned: the file is the queue's
            state.phase = .working
            defer { state.isStalled = false }
            return state.isStalled
        }
        guard let endedStall else { return nil }
        return (value, endedStall)
    }

    // MARK: Recorder's queue

    /// Declares the read in progress hung once `isStall` says so of the seconds it has waited;
    /// true only the first time.
    func declareStall(when isStall: (Double) -> Bool) -> Bool {
        state.withLock { state in
            guard state.phase == .reading, !state.isStalled else { return false }
            // Both clock readings are taken under the lock, so this one is never before
            // `readStart` (read outside, it could be, and the unsigned difference would be huge).
            let now = DispatchTime.now().uptimeNanoseconds
            guard now > state.readStart, isStall(Double(now - state.readStart) / 1e9) else { return false }
            state.isStalled = true
            return true
        }
    }

    /// Runs `body` while the thread waits in a read; false (and `body` not run) otherwise.
    /// The read may return meanwhile: the thread then waits for `body` to finish. `body`
    /// must not call back into this watch.
    func borrowFile(_ body: () -> Void) -> Bool {
        state.withLock { state in
            guard state.phase == .reading else { return false }
            body()
            return true
        }
    }

    /// Takes the file from a thread waiting in a read, for good; false between reads (the
    /// thread is writing and will see the request itself).
    func abandon() -> Bool {
        state.withLock { state in
            guard state.phase == .reading else { return false }
            state.phase = .abandoned
            return true
        }
    }
}
