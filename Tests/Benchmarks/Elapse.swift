import Foundation

/// Lets `duration` pass: the benchmark's one wait, for a window measured by the clock (a
/// recording's minute of CPU, a latency cycle's length, a kept reply's lifetime, a moment
/// of the server's cycle, the pause between two samples of a process), which no event ends.
func elapse(_ duration: Duration) {
    Thread.sleep(forTimeInterval: duration.timeInterval)
}
