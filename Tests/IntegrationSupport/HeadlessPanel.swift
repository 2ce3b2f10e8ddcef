import Foundation

/// A real panel on a `TestSession`: sway on its headless backend (pixman, no input
/// devices) with one 640×200 output, and waybar on it with the shipped voicememo module on
/// the left and the tray (a StatusNotifierWatcher and host) on the right, styled with the
/// shipped CSS. `grim` takes pictures of the bar. Both programs are the session's children
/// (as its user: sway refuses root), stopped by PID in `stop()` or by the session.
package final class HeadlessPanel {
    /// The bar's size: the output's width, waybar's `height`.
    package static let width = 640
    package static let barHeight = 30
    /// The bar's background (the test's style), against which drawn pixels are found.
    package static let background = Screenshot.Colour(red: 0x1e, green: 0x1e, blue: 0x1e)
    /// Where the module is drawn (modules-left) and where the tray is (modules-right).
    package static let moduleColumns = 0..<(width / 2)
    package static let trayColumns = (width / 2)..<width

    private let session: TestSession
    package let sway: ChildProcess
    package private(set) var waybar: ChildProcess?
    /// `WAYLAND_DISPLAY` of sway's socket.
    package let waylandDisplay: String
    private let directory: URL
    private let waybarArguments: [String]
    private let waybarEnvironment: [String: String]

    /// Starts sway and waits for its Wayland socket, then starts waybar with `module` (the
    /// shipped `custom/voicememo` block, as parsed JSON), `styleFile` imported into the bar's
    /// style, and `binaries` first on its PATH (where `voicememo` is).
    package init(
        session: TestSession, module: [String: Any], styleFile: URL, binaries: String, timeout: Duration = .seconds(20)
    ) throws {
        self.session = session
        directory = session.root.appendingPathComponent("panel", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let swayConfig = directory.appendingPathComponent("sway.conf")
        try """
        xwayland disable
        output HEADLESS-1 mode \(Self.width)x200 position 0 0
        default_border none

        """.write(to: swayConfig, atomically: true, encoding: .utf8)
        let config: [String: Any] = [
            "layer": "top", "position": "top", "height": Self.barHeight,
            "modules-left": ["custom/voicememo"], "modules-right": ["tray"],
            "tray": ["icon-size": 20, "spacing": 4],
            "custom/voicememo": module,
        ]
        let waybarConfig = directory.appendingPathComponent("waybar.json")
        try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted, .sortedKeys]).write(
            to: waybarConfig)
        // GTK CSS wants @import first; the module's colours come from the shipped file only.
        let style = directory.appendingPathComponent("style.css")
        try """
        @import url("file://\(styleFile.path)");
        * { font-family: sans-serif; font-size: 16px; border: none; border-radius: 0; min-height: 0; }
        window#waybar { background-color: #1e1e1e; color: #ffffff; }

        """.write(to: style, atomically: true, encoding: .utf8)
        try session.user?.takeOwnership(of: directory.path)

        let existing = Set((try? FileManager.default.contentsOfDirectory(atPath: session.runtimeDirectory.path)) ?? [])
        sway = try session.launch(
            "sway", ["-c", swayConfig.path], logName: "sway",
            environment: [
                "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
                "WLR_HEADLESS_OUTPUTS": "1",
            ])
        var display = ""
        do {
            try waitUntil("sway opens its Wayland socket", timeout: timeout, pollingEvery: .milliseconds(50)) {
                [sway, session] in
                if let ended = sway.termination {
                    throw FixtureError.exitedEarly("sway", termination: ended, log: session.log("sway"))
                }
                let names = (try? FileManager.default.contentsOfDirectory(atPath: session.runtimeDirectory.path)) ?? []
                display =
                    names.first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") && !existing.contains($0) } ?? ""
                return !display.isEmpty
            }
        } catch {
            _ = sway.terminate()
            throw error
        }
        waylandDisplay = display
        waybarArguments = ["-c", waybarConfig.path, "-s", style.path]
        waybarEnvironment = [
            "WAYLAND_DISPLAY": display, "GDK_BACKEND": "wayland",
            "PATH": binaries + ":" + (session.environment["PATH"] ?? "/usr/bin:/bin"),
        ]
        try startBar()
    }

    /// Starts waybar (again, after `stopBar()`), as a panel restart would.
    package func startBar() throws {
        precondition(waybar == nil, "waybar is running")
        waybar = try session.launch("waybar", waybarArguments, logName: "waybar", environment: waybarEnvironment)
    }

    /// Stops waybar by its PID; its tray's watcher leaves the bus with it.
    package func stopBar() {
        if let waybar { _ = waybar.terminate() }
        waybar = nil
    }

    deinit {
        stop()
    }

    /// The bar as it is on screen now.
    package func screenshot() throws -> Screenshot {
        let file = directory.appendingPathComponent("bar.ppm")
        try? FileManager.default.removeItem(at: file)
        // As the session's user into its directory; read back by the test runner.
        let grim = try session.run(
            "env",
            [
                "WAYLAND_DISPLAY=\(waylandDisplay)", "grim", "-t", "ppm", "-g", "0,0 \(Self.width)x\(Self.barHeight)",
                file.path,
            ])
        guard grim.succeeded else { throw FixtureError.commandFailed(command: "grim", output: grim) }
        guard let picture = Screenshot(ppm: try Data(contentsOf: file)) else {
            throw FixtureError.commandFailed(command: "grim (not a P6 picture)", output: grim)
        }
        return picture
    }

    /// Whether waybar and sway are both still running.
    package var isRunning: Bool { sway.isRunning && waybar?.isRunning == true }

    /// Stops waybar, then sway, each by its PID.
    package func stop() {
        stopBar()
        if sway.isRunning { _ = sway.terminate() }
    }
}
