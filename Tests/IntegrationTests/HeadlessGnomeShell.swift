import Bus
import Foundation
import IntegrationSupport

/// GNOME Shell on a `TestSession`: `gnome-shell --headless --wayland --no-x11
/// --virtual-monitor 1280x720`, as the session's user, on its bus and on a private system bus
/// with logind from dbusmock, with settings in a key file of the session's configuration
/// directory (so `gsettings` changes them from outside) and `dataDirectories` first on
/// `XDG_DATA_DIRS` (where the extensions are). The test-only extension in
/// `Tests/GnomeShellExtension` opens `Eval` and `Screenshot`; the panel is read through them.
final class HeadlessGnomeShell {
    static let busName = BusName("org.gnome.Shell")
    static let path = ObjectPath("/org/gnome/Shell")
    static let extensions = InterfaceName("org.gnome.Shell.Extensions")
    /// The test-only extension that puts the shell in unsafe mode.
    static let unsafeModeExtension = "unsafe-mode@voicememo.test"
    /// The virtual monitor's width, and the top bar's height there.
    static let width = 1280
    static let panelHeight = 32

    /// The states of `GetExtensionInfo`'s `state` (the shell's ExtensionState).
    enum ExtensionState: Double {
        case enabled = 1
        case disabled = 2
        case error = 3
        case outOfDate = 4
        case downloading = 5
        case initialized = 6
    }

    let process: ChildProcess
    let logind: LogindMock
    private let session: TestSession
    private let connection: BusConnection
    /// This shell's log, apart from earlier shells' in the same session.
    private let logName = "gnome-shell-\(UUID().uuidString.prefix(8))"

    /// Starts the shell on `busAddress` (the session's bus unless given) and waits until it
    /// has started up with the test-only extension enabled.
    init(
        session: TestSession, dataDirectories: [String], busAddress: String? = nil, timeout: Duration = .seconds(30)
    ) throws {
        self.session = session
        logind = try LogindMock(session: session)
        let address = busAddress ?? session.busAddress
        connection = try BusConnection.connect(address: address)
        // Each shell starts from the schemas' defaults, whatever an earlier one was told.
        try? FileManager.default.removeItem(
            at: session.configDirectory.appendingPathComponent("glib-2.0/settings/keyfile"))
        // Left by an earlier shell stopped during its start; present, it keeps extensions off.
        try? FileManager.default.removeItem(
            at: session.runtimeDirectory.appendingPathComponent("gnome-shell-disable-extensions"))
        process = try session.launch(
            "gnome-shell", ["--headless", "--wayland", "--no-x11", "--virtual-monitor", "\(Self.width)x720"],
            logName: logName,
            environment: logind.environment.merging([
                "XDG_DATA_DIRS": (dataDirectories + ["/usr/local/share", "/usr/share"]).joined(separator: ":"),
                "GSETTINGS_BACKEND": "keyfile", "XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "GNOME",
                "DBUS_SESSION_BUS_ADDRESS": address,
            ]) { $1 })
        do {
            try waitUntil("gnome-shell lists its extensions", timeout: timeout, pollingEvery: .milliseconds(100)) {
                [process, session, logName] in
                if let ended = process.termination {
                    throw FixtureError.exitedEarly("gnome-shell", termination: ended, log: session.log(logName))
                }
                return (try? self.extensionInfo(Self.unsafeModeExtension)) != nil
            }
            try enable(Self.unsafeModeExtension)
            // Until its start-up animation ends, the shell takes no keybinding.
            try waitUntil("the shell has started up", timeout: .seconds(20), pollingEvery: .milliseconds(100)) {
                (try? self.eval("Main.layoutManager._startingUp")) == "false"
            }
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
    }

    /// Stops the shell, then logind and the system bus, each by its PID.
    func stop() {
        if process.isRunning { _ = process.terminate() }
        logind.stop()
    }

    /// `WAYLAND_DISPLAY` for a client of this shell, from its log.
    func waylandDisplay() throws -> String {
        guard let match = log.firstMatch(of: /Using Wayland display name '([^']+)'/) else {
            throw FixtureError.unexpectedReply("gnome-shell names no Wayland display in its log: \(log)")
        }
        return String(match.1)
    }

    /// The shell's log so far.
    var log: String { session.log(logName) }

    // MARK: Extensions

    /// `GetExtensionInfo(uuid)`'s state and error; nil for an extension the shell does not know.
    func extensionInfo(_ uuid: String) throws -> (state: ExtensionState?, error: String)? {
        let reply = try connection.call(
            destination: Self.busName, path: Self.path, interface: Self.extensions,
            member: MemberName("GetExtensionInfo"),
            arguments: [.string(uuid)])
        guard let info = reply.first?.stringDictionary, !info.isEmpty else { return nil }
        let state = info["state"]?.variant?.double ?? info["state"]?.double
        let error = info["error"]?.variant?.string ?? info["error"]?.string ?? ""
        return (state.flatMap(ExtensionState.init(rawValue:)), error)
    }

    func enable(_ uuid: String) throws {
        _ = try connection.call(
            destination: Self.busName, path: Self.path, interface: Self.extensions,
            member: MemberName("EnableExtension"),
            arguments: [.string(uuid)])
    }

    func disable(_ uuid: String) throws {
        _ = try connection.call(
            destination: Self.busName, path: Self.path, interface: Self.extensions,
            member: MemberName("DisableExtension"), arguments: [.string(uuid)])
    }

    // MARK: Eval and Screenshot

    /// The titles and bodies of the notifications the shell shows, oldest first.
    func notifications() throws -> [String] {
        let json = try eval(
            "Main.messageTray.getSources().flatMap(source => source.notifications.map(n => `${n.title}: ${n.bannerBodyText}`))"
        )
        return try JSONDecoder().decode([String].self, from: Data(json.utf8))
    }

    /// Runs `code` in the shell; returns the JSON of its value. A JavaScript exception throws.
    func eval(_ code: String) throws -> String {
        let reply = try connection.call(
            destination: Self.busName, path: Self.path, interface: InterfaceName("org.gnome.Shell"),
            member: MemberName("Eval"), arguments: [.string(code)], timeout: .seconds(10))
        let text = reply.last?.string ?? ""
        guard reply.first?.boolean == true else {
            throw FixtureError.unexpectedReply("org.gnome.Shell.Eval(\(code)) threw: \(text)")
        }
        return text
    }

    /// Presses and releases `keys` (Clutter key names such as `Super_L`), in order and then
    /// in reverse, through a virtual keyboard, as a person pressing them together would.
    func press(_ keys: [String]) throws {
        let names = keys.map { "Clutter.KEY_\($0)" }.joined(separator: ", ")
        _ = try eval(
            """
            (() => {
                const Clutter = imports.gi.Clutter;
                const GLib = imports.gi.GLib;
                const seat = Clutter.get_default_backend().get_default_seat();
                const keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
                const keys = [\(names)];
                const time = GLib.get_monotonic_time();
                keys.forEach(key => keyboard.notify_keyval(time, key, Clutter.KeyState.PRESSED));
                keys.reverse().forEach(key => keyboard.notify_keyval(time, key, Clutter.KeyState.RELEASED));
                return true;
            })()
            """)
    }

    /// A PNG of the top bar, written by the shell (as the session's user) to `file`.
    func screenshotOfPanel(to file: URL) throws {
        let reply = try connection.call(
            destination: Self.busName, path: ObjectPath("/org/gnome/Shell/Screenshot"),
            interface: InterfaceName("org.gnome.Shell.Screenshot"), member: MemberName("ScreenshotArea"),
            arguments: [
                .int32(0), .int32(0), .int32(Int32(Self.width)), .int32(Int32(Self.panelHeight)), .boolean(false),
                .string(file.path),
            ])
        guard reply.first?.boolean == true else {
            throw FixtureError.unexpectedReply("ScreenshotArea(\(file.path)) answered \(reply)")
        }
    }
}
