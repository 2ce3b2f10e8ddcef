import Bus
import Foundation
import IntegrationSupport

/// A stand-in for a desktop service the daemon calls (a notification server, a file
/// manager): it owns the service's name on the session bus, and dbus-monitor records every
/// call made to its interface, so a test reads what the daemon sent.
final class StandInService {
    private let session: TestSession
    private let owner: BusConnection
    private let monitor: ChildProcess
    private let logName: String

    /// Owns `name` and starts recording calls to `interface`; returns once dbus-monitor listens.
    init(session: TestSession, name: String, interface: String) throws {
        self.session = session
        owner = try BusConnection.connect(address: session.busAddress)
        guard try owner.requestName(BusName(name)) else {
            throw FixtureError.startupFailed(name, reason: "the name is taken", log: "")
        }
        logName = "stand-in-\(name)"
        monitor = try session.launch(
            "dbus-monitor", ["--address", session.busAddress, "type='method_call',interface='\(interface)'"],
            logName: logName)
        try waitUntil("dbus-monitor is listening", timeout: .seconds(5)) { !calls.isEmpty }
    }

    deinit {
        _ = monitor.terminate()
    }

    /// What dbus-monitor has printed so far: its greeting, then each call with its arguments.
    var calls: String { session.log(logName) }
}
