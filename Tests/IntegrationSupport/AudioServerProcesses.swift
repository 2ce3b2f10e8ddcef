import Foundation

/// The programs one start of an audio server runs in a `TestSession`, launched
/// in order and stopped in reverse, with start-up waits that share one deadline
/// and fail at once, with the program's log, if one of them ends.
///
/// Every program logs to `TestSession.logFile` under its own name, and is
/// registered with the session, so `TestSession.close()` stops it even if the
/// server object is gone.
package final class AudioServerProcesses {
    /// The server's product name, for messages, e.g. "PipeWire".
    package let serverName: String
    /// The programs launched so far, oldest first.
    package private(set) var children: [ChildProcess] = []

    private let session: TestSession
    private let startupTimeout: Duration
    private let deadline: ContinuousClock.Instant

    /// Prepares a start of `serverName` in `session` that must be ready within `startupTimeout`.
    package init(serverName: String, session: TestSession, startupTimeout: Duration) {
        self.serverName = serverName
        self.session = session
        self.startupTimeout = startupTimeout
        deadline = ContinuousClock.now.advanced(by: startupTimeout)
    }

    /// Whether every program launched is still running.
    package var areRunning: Bool { !children.isEmpty && children.allSatisfy(\.isRunning) }

    /// Launches `program` with its output in `TestSession.logFile(program)`.
    ///
    /// - Throws: `FixtureError.missingExecutable` if it is not installed.
    @discardableResult
    package func launch(_ program: String, _ arguments: [String] = []) throws -> ChildProcess {
        let child = try session.launch(program, arguments, logName: program)
        children.append(child)
        return child
    }

    /// Waits (through `waitUntil`) until `condition` holds, by the start-up deadline.
    ///
    /// - Throws: `FixtureError.exitedEarly` as soon as a launched program has
    ///   ended, `FixtureError.startupFailed` with every program's log at the deadline.
    package func waitForStartup(until description: String, _ condition: () throws -> Bool) throws {
        try reportingTimeout {
            try waitUntil(description, timeout: remainingTime) {
                if let ended = children.first(where: { !$0.isRunning }), let termination = ended.termination {
                    throw FixtureError.exitedEarly(ended.name, termination: termination, log: session.log(ended.name))
                }
                return try condition()
            }
        }
    }

    /// Creates the `AudioDevices` through `pactl` and waits, by the start-up
    /// deadline, until they are the server's defaults.
    ///
    /// - Throws: `FixtureError.commandFailed` if a module does not load,
    ///   `FixtureError.startupFailed` with every program's log at the deadline.
    package func createDevices(using pactl: PulseControl) throws {
        try reportingTimeout {
            try AudioDevices.create(using: pactl, timeout: remainingTime)
        }
    }

    /// Terminates the programs, newest first, and returns once each is reaped.
    package func terminate() {
        for child in children.reversed() {
            child.terminate()
        }
    }

    private var remainingTime: Duration { max(deadline - ContinuousClock.now, .zero) }

    /// Runs `body`, turning a `FixtureError.timedOut` into a `startupFailed` that carries the logs.
    private func reportingTimeout(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch FixtureError.timedOut(let condition, _) {
            let logs = children.map { "--- \($0.name).log ---\n\(session.log($0.name))" }.joined(separator: "\n")
            throw FixtureError.startupFailed(
                serverName, reason: "not ready within \(startupTimeout): still waiting until \(condition)", log: logs)
        }
    }
}
