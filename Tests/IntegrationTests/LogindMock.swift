import Bus
import Foundation
import IntegrationSupport

/// A private system bus with logind played by `python3 -m dbusmock --template logind`
/// (Debian's python3-dbusmock), for the daemon to find through `DBUS_SYSTEM_BUS_ADDRESS`.
/// The test drives it through dbusmock's `org.freedesktop.DBus.Mock` interface.
final class LogindMock {
    static let busName = BusName("org.freedesktop.login1")
    static let path = ObjectPath("/org/freedesktop/login1")
    static let manager = InterfaceName("org.freedesktop.login1.Manager")
    static let session = InterfaceName("org.freedesktop.login1.Session")
    static let mock = InterfaceName("org.freedesktop.DBus.Mock")

    /// One inhibitor lock as `ListInhibitors` reports it.
    struct Inhibitor: Equatable {
        var what: String, who: String, why: String, mode: String
    }

    /// The D-Bus address of the private system bus.
    let address: String
    /// The environment that points a child at this bus.
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    private let bus: ChildProcess
    private let logind: ChildProcess
    private let connection: BusConnection

    /// Starts the bus (socket `system_bus_socket` in the session's runtime directory) and
    /// the mock, and waits until the mock owns `org.freedesktop.login1`.
    init(session: TestSession, timeout: Duration = .seconds(10)) throws {
        let socket = session.runtimeDirectory.appendingPathComponent("system_bus_socket").path
        address = "unix:path=\(socket)"
        // An earlier mock's bus leaves its socket behind; waiting for the file needs it gone.
        try? FileManager.default.removeItem(atPath: socket)
        let configuration = session.root.appendingPathComponent("system-bus.conf")
        // The session bus's permissive policy; only the bus type differs.
        try SessionBusConfiguration.document(socketPath: socket)
            .replacingOccurrences(of: "<type>session</type>", with: "<type>system</type>")
            .write(to: configuration, atomically: true, encoding: .utf8)
        let bus = try session.launch(
            "dbus-daemon", ["--nofork", "--nopidfile", "--nosyslog", "--config-file=\(configuration.path)"],
            logName: "system-dbus-daemon")
        self.bus = bus
        try waitUntil("the system bus at \(socket) exists", timeout: timeout) {
            if let ended = bus.termination {
                throw FixtureError.exitedEarly(
                    "dbus-daemon", termination: ended, log: session.log("system-dbus-daemon"))
            }
            return FileManager.default.fileExists(atPath: socket)
        }
        let connection = try BusConnection.connect(address: address)
        self.connection = connection
        // Debian's python3 carries the dbus and gi modules dbusmock needs.
        let logind = try session.launch(
            "/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "logind"], logName: "logind-mock",
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        self.logind = logind
        try waitUntil("dbusmock owns \(Self.busName.rawValue)", timeout: timeout) {
            if let ended = logind.termination {
                throw FixtureError.exitedEarly(
                    "python3 -m dbusmock", termination: ended, log: session.log("logind-mock"))
            }
            let reply = try connection.call(
                destination: BusName("org.freedesktop.DBus"), path: ObjectPath("/org/freedesktop/DBus"),
                interface: InterfaceName("org.freedesktop.DBus"), member: MemberName("NameHasOwner"),
                arguments: [.string(Self.busName.rawValue)])
            return reply.first?.boolean == true
        }
    }

    deinit {
        stop()
    }

    /// Stops the mock and the bus.
    func stop() {
        _ = logind.terminate()
        _ = bus.terminate()
    }

    /// Stops only logind, leaving the system bus without it.
    func stopLogindOnly() {
        _ = logind.terminate()
    }

    /// The locks logind holds, from `ListInhibitors`.
    func inhibitors() throws -> [Inhibitor] {
        let reply = try connection.call(
            destination: Self.busName, path: Self.path, interface: Self.manager, member: MemberName("ListInhibitors"))
        guard case .array(_, let entries)? = reply.first else { return [] }
        return entries.compactMap { entry in
            guard case .structure(let fields) = entry, fields.count >= 4 else { return nil }
            let strings = fields.prefix(4).compactMap(\.string)
            guard strings.count == 4 else { return nil }
            return Inhibitor(what: strings[0], who: strings[1], why: strings[2], mode: strings[3])
        }
    }

    /// How often `method` of logind's manager was called, from dbusmock's call log.
    func callCount(of method: String) throws -> Int {
        let reply = try connection.call(
            destination: Self.busName, path: Self.path, interface: Self.mock, member: MemberName("GetMethodCalls"),
            arguments: [.string(method)])
        guard case .array(_, let calls)? = reply.first else { return 0 }
        return calls.count
    }

    /// Emits `PrepareForSleep(sleeping)` as logind does before sleep (`true`) and after wake-up.
    func prepareForSleep(_ sleeping: Bool) throws {
        _ = try connection.call(
            destination: Self.busName, path: Self.path, interface: Self.mock, member: MemberName("EmitSignal"),
            arguments: [
                .string(Self.manager.rawValue), .string("PrepareForSleep"), .string("b"),
                .array(elementSignature: "v", [.variant(.boolean(sleeping))]),
            ])
    }

    /// Adds session `id` on seat0 for the current user; returns its object path.
    @discardableResult
    func addSession(id: String, isActive: Bool) throws -> ObjectPath {
        let reply = try connection.call(
            destination: Self.busName, path: Self.path, interface: Self.mock, member: MemberName("AddSession"),
            arguments: [.string(id), .string("seat0"), .uint32(getuid()), .string("tester"), .boolean(isActive)])
        return ObjectPath(reply.first?.string ?? "/")
    }

    /// Sets the session's `Active` property, with the PropertiesChanged signal logind sends.
    func setSession(_ path: ObjectPath, isActive: Bool) throws {
        _ = try connection.call(
            destination: Self.busName, path: path, interface: Self.mock, member: MemberName("UpdateProperties"),
            arguments: [.string(Self.session.rawValue), .stringDictionary(["Active": .boolean(isActive)])])
    }
}
