import Foundation

/// The long-running children of one test session, stopped together in reverse
/// start order so that no process outlives the session, even when a test fails.
package final class ProcessRegistry {
    private let lock = NSLock()
    private var children: [ChildProcess] = []

    /// Records `child` for `terminateAll`; children that have ended are forgotten.
    package func register(_ child: ChildProcess) {
        lock.lock()
        defer { lock.unlock() }
        children.removeAll { !$0.isRunning }
        children.append(child)
    }

    /// The registered children that are still running, oldest first.
    package var running: [ChildProcess] {
        lock.lock()
        defer { lock.unlock() }
        return children.filter(\.isRunning)
    }

    /// Terminates every registered child, newest first, and waits until each is reaped.
    package func terminateAll(gracePeriod: Duration = .seconds(3)) {
        lock.lock()
        let stopping = children.reversed()
        children.removeAll()
        lock.unlock()
        for child in stopping {
            child.terminate(gracePeriod: gracePeriod)
        }
    }
}
