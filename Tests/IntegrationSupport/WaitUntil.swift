import Foundation

/// Polls `condition` until it holds, so tests wait for an event rather than
/// sleeping for a guessed time.
///
/// - Parameters:
///   - description: What is awaited, phrased to follow "waiting until", e.g.
///     "pactl answers"; it becomes the failure message (by default the caller's file and line).
///   - timeout: How long to keep polling before giving up.
///   - interval: The pause between two polls.
///   - condition: Checked once immediately, then after every pause; an error it
///     throws ends the wait at once.
/// - Throws: `FixtureError.timedOut` if `condition` is still false at the deadline.
package func waitUntil(
    _ description: @autoclosure () -> String = "",
    timeout: Duration = .seconds(2),
    pollingEvery interval: Duration = .milliseconds(20),
    fileID: String = #fileID, line: Int = #line,
    _ condition: () throws -> Bool
) throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while try !condition() {
        guard clock.now < deadline else {
            let awaited = description()
            throw FixtureError.timedOut(
                waitingUntil: awaited.isEmpty ? "the condition at \(fileID):\(line) holds" : awaited, after: timeout)
        }
        // The one poll of the test kit: what tests wait for (a file's size, /proc, a
        // property, another process's output) offers nothing to block on.
        Thread.sleep(forTimeInterval: interval.timeInterval)
    }
}

extension Duration {
    /// The duration in seconds, for APIs that take a `TimeInterval`.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
