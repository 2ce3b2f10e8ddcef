import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// Issue 16, tested in a real panel: waybar (with the shipped module and CSS, and its tray)
/// in a headless sway, on the fixture's bus and audio server. sway refuses root and CI runs
/// as root, so this class's whole session (bus, audio server, daemon, sway, waybar) runs as
/// an unprivileged user, created if missing. Pictures of the bar are judged by colour.
final class PanelTests: IntegrationTestCase {
    override class var launchesDaemon: Bool { false }

    /// As root (CI), the session runs as `voicememo-panel`; a developer's own user needs no other.
    override class func makeFixture() throws -> IntegrationFixture {
        try IntegrationFixture(user: getuid() == 0 ? SessionUser.panelUser() : nil)
    }

    private var session: TestSession { fixture.session }
    private let recorderArguments = [
        Contract.busName.rawValue, Contract.recorderPath.rawValue, Contract.recorderInterface.rawValue,
    ]

    /// What the session's user runs: the build's binaries where that user can reach them,
    /// else copies (a checkout under /root is not searchable by others), with the icons
    /// then named through VOICEMEMO_ICON_THEME_PATH. The CSS is laid beside the module as
    /// `make install` does.
    private func panelFiles() throws -> (binaries: String, daemon: URL, css: URL, environment: [String: String]) {
        let user = session.user
        // Per test: the session (and its root) outlives one test.
        let share = session.root.appendingPathComponent("share-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: share, withIntermediateDirectories: true)
        let css = share.appendingPathComponent("waybar-voicememo.css")
        try FileManager.default.copyItem(
            at: Checkout.root.appendingPathComponent("data/waybar-voicememo.css"), to: css)
        var daemon = try BuildProducts.voicememod()
        var binaries = try BuildProducts.voicememo().deletingLastPathComponent().path
        var environment: [String: String] = [:]
        let client = try BuildProducts.voicememo()
        if let user, !user.canExecute(daemon.path) || !user.canExecute(client.path) {
            let copies = share.appendingPathComponent("bin", isDirectory: true)
            try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
            for product in [try BuildProducts.voicememod(), try BuildProducts.voicememo()] {
                try FileManager.default.copyItem(
                    at: product, to: copies.appendingPathComponent(product.lastPathComponent))
            }
            let icons = share.appendingPathComponent("icons")
            try FileManager.default.copyItem(at: Checkout.root.appendingPathComponent("data/icons"), to: icons)
            environment["VOICEMEMO_ICON_THEME_PATH"] = icons.path
            daemon = copies.appendingPathComponent("voicememod")
            binaries = copies.path
        }
        try user?.takeOwnership(of: share.path)
        return (binaries, daemon, css, environment)
    }

    private func busctlValue(_ arguments: [String], line: UInt = #line) throws -> String {
        let output = try session.busctl(arguments)
        XCTAssertEqual(output.status, 0, "busctl \(arguments): \(output)", line: line)
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func state() throws -> String {
        try busctlValue(["get-property"] + recorderArguments + [RecorderMember.state.name])
    }

    private func waitForState(_ expected: String, timeout: Duration = .seconds(15)) throws {
        try waitUntil("State is \(expected)", timeout: timeout, pollingEvery: .milliseconds(100)) {
            try state() == "s \"\(expected)\""
        }
    }

    private func waitForRecordedSeconds(_ seconds: Double) throws {
        try waitUntil("\(seconds) s are recorded", timeout: .seconds(15), pollingEvery: .milliseconds(100)) {
            let value = try busctlValue(["get-property"] + recorderArguments + [RecorderMember.currentTime.name])
            return (Double(value.split(separator: " ").last ?? "") ?? 0) >= seconds
        }
    }

    /// The menu item labelled `label`, found in the menu's current layout.
    private func menuItem(_ label: String, item: String) throws -> Int {
        let output = try session.busctl([
            "--json=short", "call", item, "/MenuBar", "com.canonical.dbusmenu", "GetLayout", "iias", "--", "0", "-1",
            "0",
        ])
        XCTAssertEqual(output.status, 0, "\(output)")
        let reply = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let data = try XCTUnwrap(reply["data"] as? [Any])
        let root = try XCTUnwrap(data.last as? [Any])
        let children = try XCTUnwrap(root.last as? [[String: Any]])
        for child in children {
            guard let fields = child["data"] as? [Any], let id = fields.first as? Int,
                let properties = fields[1] as? [String: Any],
                let text = (properties["label"] as? [String: Any])?["data"] as? String
            else { continue }
            if text == label { return id }
        }
        throw FixtureError.timedOut(waitingUntil: "the menu has an item '\(label)': \(output.stdout)", after: .zero)
    }

    private func clickMenuItem(_ label: String, item: String) throws {
        let id = try menuItem(label, item: item)
        let event = try session.busctl([
            "call", item, "/MenuBar", "com.canonical.dbusmenu", "Event", "isvu", "\(id)", "clicked", "s", "", "0",
        ])
        XCTAssertEqual(event.status, 0, "Event(\(id), clicked): \(event)")
    }

    /// The bus names of the items waybar's watcher lists ("<name>/<path>" entries), or nil
    /// while there is no watcher.
    private func registeredItems() throws -> [String]? {
        let output = try session.busctl([
            "--json=short", "get-property", "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher",
            "org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems",
        ])
        guard output.succeeded,
            let reply = try? JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any],
            let entries = reply["data"] as? [String]
        else { return nil }
        return entries.map { String($0.prefix { $0 != "/" }) }
    }

    /// Waits until the watcher lists voicememo's item; returns its bus name.
    private func waitForRegisteredItem() throws -> String {
        var item = ""
        try waitUntil(
            "waybar's watcher lists voicememo's item", timeout: .seconds(20), pollingEvery: .milliseconds(200)
        ) {
            item = try self.registeredItems()?.first { $0.hasPrefix("org.kde.StatusNotifierItem-") } ?? ""
            return !item.isEmpty
        }
        return item
    }

    /// Waits until the bar's picture satisfies `condition`; returns that picture.
    private func waitForBar(_ description: String, panel: HeadlessPanel, _ condition: (Screenshot) -> Bool) throws
        -> Screenshot
    {
        var last: Screenshot?
        do {
            try waitUntil(description, timeout: .seconds(20), pollingEvery: .milliseconds(250)) {
                guard panel.isRunning else {
                    throw FixtureError.startupFailed("waybar", reason: "it stopped", log: session.log("waybar"))
                }
                last = try panel.screenshot()
                return condition(last!)
            }
        } catch {
            if let last { attachPicture(last, named: "bar-\(description)") }
            throw error
        }
        return last!
    }

    /// Keeps a picture that failed a check (the session's directory goes at the end), and
    /// says where it is and what was counted in it.
    private func attachPicture(_ picture: Screenshot, named name: String) {
        let file = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent(
                "voicememo-\(name.prefix { $0 != ":" }.replacingOccurrences(of: " ", with: "-")).ppm")
        try? Screenshot.stacked([picture]).write(to: file)
        let (module, tray) = (counts(picture, HeadlessPanel.moduleColumns), counts(picture, HeadlessPanel.trayColumns))
        print("the bar's last picture is \(file.path): module \(module), tray \(tray)")
    }

    private func counts(_ picture: Screenshot, _ columns: Range<Int>) -> (ink: Int, red: Int, amber: Int) {
        (
            picture.count(columns: columns) { $0.isInk(on: HeadlessPanel.background) },
            picture.count(columns: columns, where: \.isRed),
            picture.count(columns: columns, where: \.isAmber)
        )
    }

    func testWaybarShowsTheTrayItemAndTheModuleWhichFollowTheRecorder() throws {
        let files = try panelFiles()
        let daemon = try fixture.launchDaemon(environment: files.environment, executable: files.daemon)
        // A thrown error is not counted yet when the defer runs: the flag says whether the test got through.
        var reachedTheEnd = false
        defer {
            daemon.stop()
            if !reachedTheEnd || (testRun?.totalFailureCount ?? 0) > 0 {
                print(
                    "voicememod log:\n\(daemon.log)\nwaybar log:\n\(session.log("waybar"))\nsway log:\n\(session.log("sway"))"
                )
            }
        }
        // What the module prints, for the glyph check (the same command waybar runs).
        let watch = try session.launch(
            files.binaries + "/voicememo", ["watch", "--json"], logName: "watch")
        defer { _ = watch.terminate() }
        let panel = try HeadlessPanel(
            session: session, module: try Checkout.waybarModule(), styleFile: files.css, binaries: files.binaries)
        defer { panel.stop() }

        // waybar's tray is the watcher; our item registers with it.
        let item = try waitForRegisteredItem()
        let owner = { (name: String) in
            try self.busctlValue([
                "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", "s",
                name,
            ])
        }
        XCTAssertEqual(try owner(item), try owner(Contract.busName.rawValue), "the registered item is voicememod's")
        let sni = [item, "/StatusNotifierItem", "org.kde.StatusNotifierItem"]
        XCTAssertEqual(try busctlValue(["get-property"] + sni + ["Status"]), "s \"Active\"")
        XCTAssertEqual(try busctlValue(["get-property"] + sni + ["IconName"]), "s \"voicememo-idle\"")

        // Idle: the tray shows the idle icon, the module its ○; neither red nor amber.
        let idle = try waitForBar("idle: module and tray icon drawn", panel: panel) { picture in
            let (module, tray) = (
                self.counts(picture, HeadlessPanel.moduleColumns), self.counts(picture, HeadlessPanel.trayColumns)
            )
            return module.ink >= 10 && tray.ink >= 20 && module.red + tray.red + module.amber + tray.amber == 0
        }

        // Activate (a left click) records, like the hotkey.
        XCTAssertEqual(try session.busctl(["call"] + sni + ["Activate", "ii", "0", "0"]).status, 0)
        try waitForState("recording")
        XCTAssertEqual(try busctlValue(["get-property"] + sni + ["IconName"]), "s \"voicememo-recording\"")
        let recording = try waitForBar("recording: red module text and red tray icon", panel: panel) { picture in
            let (module, tray) = (
                self.counts(picture, HeadlessPanel.moduleColumns), self.counts(picture, HeadlessPanel.trayColumns)
            )
            return module.red >= 10 && tray.red >= 20 && module.amber == 0
        }
        try waitForRecordedSeconds(1.2)

        // SecondaryActivate (a middle click) pauses.
        XCTAssertEqual(try session.busctl(["call"] + sni + ["SecondaryActivate", "ii", "0", "0"]).status, 0)
        try waitForState("paused")
        let paused = try waitForBar("paused: amber module text and amber tray icon", panel: panel) { picture in
            let (module, tray) = (
                self.counts(picture, HeadlessPanel.moduleColumns), self.counts(picture, HeadlessPanel.trayColumns)
            )
            return module.amber >= 10 && tray.amber >= 20 && module.red == 0
        }
        XCTAssertNotEqual(idle, recording)
        XCTAssertNotEqual(recording, paused)

        // The menu's Stop saves the memo; its Record starts another, which Activate stops.
        try clickMenuItem("Stop", item: item)
        try waitForState("idle")
        try clickMenuItem("Record", item: item)
        try waitForState("recording")
        try waitForRecordedSeconds(1.2)
        XCTAssertEqual(try session.busctl(["call"] + sni + ["Activate", "ii", "0", "0"]).status, 0)
        try waitForState("idle")
        try waitUntil("both memos are listed in the menu", timeout: .seconds(10), pollingEvery: .milliseconds(200)) {
            (try? self.menuItem("No memos yet", item: item)) == nil
        }
        try assertHoldsTone(session.memoDirectory, seconds: 1, memos: 2)

        // No missing-glyph box: every character the module printed is in an installed font
        // (fontconfig's own answer, which is what GTK falls back through).
        let texts = (try String(contentsOf: session.logFile("watch"), encoding: .utf8)).split(separator: "\n")
            .compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
            }
        XCTAssertTrue(
            texts.contains { $0.hasPrefix("●") } && texts.contains { $0.hasPrefix("❚❚") } && texts.contains("○"),
            "\(texts)")
        for scalar in Set(texts.joined().unicodeScalars) where scalar != " " {
            let fonts = try session.run("fc-list", [":charset=\(String(scalar.value, radix: 16))", "family"])
            XCTAssertFalse(
                fonts.stdout.isEmpty,
                "an installed font has U+\(String(scalar.value, radix: 16, uppercase: true)) (\(scalar))")
        }

        // `make panel-picture` asks for the three bars as one picture.
        if let path = ProcessInfo.processInfo.environment["VOICEMEMO_PANEL_PICTURE"], !path.isEmpty {
            try Screenshot.stacked([idle, recording, paused]).write(to: URL(fileURLWithPath: path))
        }
        reachedTheEnd = true
    }

    /// TrayEnabled off takes the item out of the watcher and the bar; on brings it back
    /// (registering with the watcher already there); a restarted panel (a new watcher
    /// appearing on the bus) gets the item again by itself.
    func testTheItemLeavesWithTheSettingAndComesBackToARestartedPanel() throws {
        let files = try panelFiles()
        let daemon = try fixture.launchDaemon(environment: files.environment, executable: files.daemon)
        // A thrown error is not counted yet when the defer runs: the flag says whether the test got through.
        var reachedTheEnd = false
        defer {
            daemon.stop()
            if !reachedTheEnd || (testRun?.totalFailureCount ?? 0) > 0 {
                print("voicememod log:\n\(daemon.log)\nwaybar log:\n\(session.log("waybar"))")
            }
        }
        let panel = try HeadlessPanel(
            session: session, module: try Checkout.waybarModule(), styleFile: files.css, binaries: files.binaries)
        defer { panel.stop() }
        let item = try waitForRegisteredItem()
        _ = try waitForBar("the tray icon is drawn", panel: panel) {
            self.counts($0, HeadlessPanel.trayColumns).ink >= 20
        }

        XCTAssertEqual(
            try session.busctl(["set-property"] + recorderArguments + [RecorderMember.trayEnabled.name, "b", "false"])
                .status, 0)
        try waitUntil("the watcher drops the item", timeout: .seconds(10), pollingEvery: .milliseconds(200)) {
            try self.registeredItems()?.contains(item) == false
        }
        _ = try waitForBar("the tray is empty", panel: panel) { self.counts($0, HeadlessPanel.trayColumns).ink == 0 }

        XCTAssertEqual(
            try session.busctl(["set-property"] + recorderArguments + [RecorderMember.trayEnabled.name, "b", "true"])
                .status, 0)
        XCTAssertEqual(try waitForRegisteredItem(), item)
        _ = try waitForBar("the tray icon is back", panel: panel) {
            self.counts($0, HeadlessPanel.trayColumns).ink >= 20
        }

        panel.stopBar()
        try waitUntil("the watcher is gone with waybar", timeout: .seconds(10), pollingEvery: .milliseconds(100)) {
            try self.registeredItems() == nil
        }
        try panel.startBar()
        XCTAssertEqual(try waitForRegisteredItem(), item, "registered again with the new watcher")
        _ = try waitForBar("the restarted bar shows the icon", panel: panel) {
            self.counts($0, HeadlessPanel.trayColumns).ink >= 20
        }
        XCTAssertFalse(daemon.log.contains("tray"), "nothing to report: \(daemon.log)")

        // Idle with a panel showing the item: no wake-ups. The window opens once the workers
        // that ran the panel's calls are gone (their exit is a wake-up, and takes their
        // counts out of the sum).
        // A worker still running then may park and end inside the window, taking its counts
        // with it: such a window measures nothing and is taken again (a live thread's wake-up
        // still counts).
        var switches: (before: Int, after: Int)
        var attempts = 0
        repeat {
            attempts += 1
            try daemon.waitUntilDispatchWorkersEnd()
            let threads = Self.threads(of: daemon.process.pid)
            let before = Self.contextSwitches(of: daemon.process.pid)
            Thread.sleep(forTimeInterval: 3)  // the window: a stretch of time, which no event ends
            switches = (before, Self.contextSwitches(of: daemon.process.pid))
            if Self.threads(of: daemon.process.pid) == threads { break }
        } while attempts < 3
        XCTAssertEqual(
            switches.after - switches.before, 0, "context switches of the idle daemon over 3 s with the tray item shown"
        )
        reachedTheEnd = true
    }

    /// Voluntary and involuntary context switches of every thread of `pid` (each voluntary
    /// one a wake-up).
    /// The ids of `pid`'s threads.
    private static func threads(of pid: pid_t) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [])
    }

    private static func contextSwitches(of pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            let values = status.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
                .compactMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            return total + values.reduce(0, +)
        }
    }
}
