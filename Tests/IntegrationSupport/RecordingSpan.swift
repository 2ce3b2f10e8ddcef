import Foundation

/// How long a recording ran when commands that take time to start themselves (a spawned
/// `busctl` or `voicememo`) start and stop it: at least from the start command's return to
/// the stop command's call, at most from the start's call to the stop's return. A loaded
/// machine can take 0.1 s to start such a command, which a fixed length would count as lost
/// or extra audio.
package struct RecordingSpan: CustomStringConvertible {
    private let clock = ContinuousClock()
    private var startCalled = ContinuousClock.now, startReturned = ContinuousClock.now
    private var stopCalled = ContinuousClock.now, stopReturned = ContinuousClock.now

    package init() {}

    /// Runs the command that starts the recording.
    package mutating func start<Result>(_ command: () throws -> Result) rethrows -> Result {
        startCalled = clock.now
        defer { startReturned = clock.now }
        return try command()
    }

    /// Runs the command that stops the recording.
    package mutating func stop<Result>(_ command: () throws -> Result) rethrows -> Result {
        stopCalled = clock.now
        defer { stopReturned = clock.now }
        return try command()
    }

    /// The shortest and the longest the recording can be, in seconds.
    package var seconds: ClosedRange<Double> {
        (stopCalled - startReturned).timeInterval...(stopReturned - startCalled).timeInterval
    }

    /// The shortest and the longest stretches `spans` of one recording are together: say
    /// before and after an outage, which is not recorded.
    package static func seconds(of spans: RecordingSpan...) -> ClosedRange<Double> {
        spans.map(\.seconds.lowerBound).reduce(0, +)...spans.map(\.seconds.upperBound).reduce(0, +)
    }

    /// Whether `duration` lies within `seconds`, give or take `tolerance` (encoder framing).
    package func admits(_ duration: Double, tolerance: Double) -> Bool {
        duration >= seconds.lowerBound - tolerance && duration <= seconds.upperBound + tolerance
    }

    package var description: String {
        String(format: "%.3f…%.3f s", seconds.lowerBound, seconds.upperBound)
    }
}
