import Foundation
import VoiceMemoContract

/// A voicememod process on a `TestSession`'s bus, started from the build
/// directory and ready (owning `Contract.busName`) once the initializer returns.
package final class Daemon {
    /// The running program.
    package let process: ChildProcess
    /// The file holding the daemon's stdout and stderr.
    package let logFile: URL

    /// What voicememod logs once it has read the memo library, which it does after owning its name.
    package static let libraryReadMessage = "voicememod: library: "

    /// Launches voicememod (`executable`, else `BuildProducts.voicememod()`) in `session`'s
    /// environment plus `environment`, and waits until it owns `busName` and, unless
    /// `waitsForLibrary` is false, has read the memo library, so a test sees every memo.
    ///
    /// - Throws: `FixtureError.missingBuildProduct` if it has not been built,
    ///   `FixtureError.startupFailed` (with its log) if it exits or does not
    ///   own the name within `startupTimeout`; it is killed in that case.
    package init(
        session: TestSession,
        arguments: [String] = [],
        environment: [String: String] = [:],
        executable: URL? = nil,
        waitsForLibrary: Bool = true,
        startupTimeout: Duration = .seconds(10)
    ) throws {
        let logName = "voicememod-\(UUID().uuidString.prefix(8))"
        logFile = session.logFile(logName)
        process = try session.launch(
            (executable ?? BuildProducts.voicememod()).path, arguments, logName: logName, environment: environment)
        do {
            try waitUntil("voicememod owns \(Contract.busName) on the session bus", timeout: startupTimeout) {
                try !process.isRunning || session.busNameHasOwner(Contract.busName.rawValue)
            }
        } catch {
            process.kill()
            throw FixtureError.startupFailed("voicememod", reason: "\(error)", log: log)
        }
        if let ended = process.termination {
            let reason = "it \(ended) before owning \(Contract.busName)"
            throw FixtureError.startupFailed("voicememod", reason: reason, log: log)
        }
        if waitsForLibrary { try waitForLibrary() }
    }

    /// Waits until the daemon has read the memo library (or has ended).
    package func waitForLibrary(timeout: Duration = .seconds(120)) throws {
        try waitUntil("voicememod has read the memo library", timeout: timeout) {
            !process.isRunning || log.contains(Self.libraryReadMessage)
        }
    }

    /// Everything the daemon has printed so far, for failure messages.
    package var log: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// Whether the daemon process is still running.
    package var isRunning: Bool { process.isRunning }

    /// Stops the daemon with SIGTERM (SIGKILL after `gracePeriod`) and reaps it.
    @discardableResult
    package func stop(gracePeriod: Duration = .seconds(5)) -> ChildProcess.Termination {
        process.terminate(gracePeriod: gracePeriod)
    }

    /// Kills the daemon with SIGKILL, as a crash would, and reaps it.
    @discardableResult
    package func kill() -> ChildProcess.Termination {
        process.kill()
    }

    /// Kills the daemon as `kill()` does once `delay` seconds have passed: a moment the test
    /// chose (at random, to land anywhere in the work under way), which no event marks.
    @discardableResult
    package func kill(after delay: Double) -> ChildProcess.Termination {
        Thread.sleep(forTimeInterval: delay)
        return kill()
    }
}
