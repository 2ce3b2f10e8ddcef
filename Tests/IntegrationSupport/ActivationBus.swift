import Foundation
import VoiceMemoContract

#if canImport(Glibc)
    import Glibc
#endif

/// A second private session bus in a `TestSession` that does D-Bus activation: its
/// configuration is the fixture's plus a `<servicedir>`, so the first call to a name
/// described there starts the service, as on a desktop with voicememo installed.
///
/// `close()` stops whatever the bus activated (it is not the fixture's child), then the bus.
package final class ActivationBus {
    /// The bus's D-Bus address.
    package let address: String
    /// The session's environment with this bus as the session bus (plus the overrides
    /// given); the bus passes it on to the services it activates.
    package let environment: [String: String]

    private let process: ChildProcess
    private var isClosed = false

    /// Starts a bus that activates the services described in `serviceDirectory`.
    ///
    /// - Throws: `FixtureError.startupFailed` if it does not answer within `timeout`.
    package init(
        session: TestSession, serviceDirectory: URL, environment overrides: [String: String] = [:],
        timeout: Duration = .seconds(10)
    ) throws {
        let name = "activation-bus-\(UUID().uuidString.prefix(8))"
        let socket = session.runtimeDirectory.appendingPathComponent(name)
        address = "unix:path=\(socket.path)"
        environment = session.environment.merging(overrides) { $1 }.merging(["DBUS_SESSION_BUS_ADDRESS": address]) {
            $1
        }
        let configuration = session.root.appendingPathComponent("\(name).conf")
        let document = SessionBusConfiguration.document(socketPath: socket.path).replacingOccurrences(
            of: "</busconfig>", with: "  <servicedir>\(serviceDirectory.path)</servicedir>\n</busconfig>")
        try document.write(to: configuration, atomically: true, encoding: .utf8)
        process = try session.launch(
            "dbus-daemon", ["--nofork", "--nopidfile", "--nosyslog", "--config-file=\(configuration.path)"],
            logName: name, environment: environment)
        do {
            try waitUntil("the activation bus at \(socket.path) answers GetId", timeout: timeout) { [process] in
                if let ended = process.termination {
                    throw FixtureError.exitedEarly("dbus-daemon", termination: ended, log: session.log(name))
                }
                return try busctl([
                    "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                ])
                .succeeded
            }
        } catch {
            process.kill()
            throw FixtureError.startupFailed("dbus-daemon (activation)", reason: "\(error)", log: session.log(name))
        }
    }

    deinit {
        close()
    }

    /// Runs `busctl --user` against this bus; a non-zero status is returned, not thrown.
    package func busctl(_ arguments: [String], timeout: Duration = .seconds(10)) throws -> CommandOutput {
        try ChildProcess.run(
            "busctl", ["--user", "--no-pager"] + arguments, environment: environment, timeout: timeout)
    }

    /// Whether `name` has an owner on this bus.
    package func nameHasOwner(_ name: String) throws -> Bool {
        let output = try busctl([
            "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", name,
        ])
        return output.succeeded && output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "b true"
    }

    /// The process id of `name`'s owner, if it has one.
    package func ownerProcessID(_ name: String) throws -> pid_t? {
        let output = try busctl([
            "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            "GetConnectionUnixProcessID", "s", name,
        ])
        guard output.succeeded else { return nil }
        return output.stdout.split(separator: " ").last.flatMap {
            pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Stops the owners of `names` with SIGTERM (they finish their work) and waits until
    /// they have left the bus, then stops the bus.
    package func close(stopping names: [String] = [Contract.busName.rawValue], timeout: Duration = .seconds(10)) {
        guard !isClosed else { return }
        isClosed = true
        for name in names {
            guard let pid = try? ownerProcessID(name) else { continue }
            Glibc.kill(pid, SIGTERM)
            try? waitUntil("\(name) leaves the activation bus", timeout: timeout) { try !nameHasOwner(name) }
        }
        process.terminate()
    }
}
