import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// The GNOME Shell extension (`data/gnome-shell`) in a real GNOME Shell: headless, as an
/// unprivileged user (CI runs as root), on the fixture's bus and audio server and a private
/// system bus with logind from dbusmock. The extension is installed by `make install` into a
/// private prefix on `XDG_DATA_DIRS` and enabled through `org.gnome.Shell.Extensions`; the
/// panel is read through `Eval`, opened by a test-only extension.
final class GnomeShellTests: IntegrationTestCase {
    override class var launchesDaemon: Bool { false }

    override class func makeFixture() throws -> IntegrationFixture {
        try IntegrationFixture(user: getuid() == 0 ? SessionUser.panelUser() : nil)
    }

    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let uuid = "voicememo@example.org"
    private static let appIndicator = "ubuntu-appindicators@ubuntu.com"

    private var session: TestSession { fixture.session }
    private var shell: HeadlessGnomeShell!
    private var prefix: URL!
    private var currentDaemon: Daemon?
    private let recorderArguments = [
        Contract.busName.rawValue, Contract.recorderPath.rawValue, Contract.recorderInterface.rawValue,
    ]

    override func setUpWithError() throws {
        try super.setUpWithError()
        prefix = try install()
        shell = try HeadlessGnomeShell(session: session, dataDirectories: [prefix.appendingPathComponent("share").path])
        try shell.enable(Self.uuid)
        try waitUntil("the extension is enabled", timeout: .seconds(10), pollingEvery: .milliseconds(50)) {
            try self.shell.extensionInfo(Self.uuid)?.state == .enabled
        }
        XCTAssertEqual(try shell.extensionInfo(Self.uuid)?.error, "", "GetExtensionInfo has no error")
    }

    override func tearDownWithError() throws {
        let failed = (testRun?.totalFailureCount ?? 0) > 0
        if failed {
            print("gnome-shell log:\n\(shell?.log ?? "")\nvoicememod log:\n\(currentDaemon?.log ?? "")")
        }
        _ = currentDaemon?.stop()
        currentDaemon = nil
        shell?.stop()
        shell = nil
        try super.tearDownWithError()
    }

    /// `make install` into a prefix of the session's (the shell's user reads it), with the
    /// binaries just built; the test-only extension is copied beside ours (never installed).
    private func install() throws -> URL {
        let prefix = session.root.appendingPathComponent("prefix-\(UUID().uuidString.prefix(8))/usr", isDirectory: true)
        let binaries = try BuildProducts.voicememod().deletingLastPathComponent().path
        let make = try ChildProcess.run(
            "make",
            [
                "--no-print-directory", "-C", Self.repository.path, "install", "PREFIX=\(prefix.path)",
                "SYSCONFDIR=\(prefix.deletingLastPathComponent().path)/etc", "BINARIES=\(binaries)",
            ], environment: ProcessInfo.processInfo.environment, timeout: .seconds(120))
        XCTAssertEqual(make.status, 0, "make install: \(make)")
        let extensions = prefix.appendingPathComponent("share/gnome-shell/extensions", isDirectory: true)
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: extensions.appendingPathComponent("\(Self.uuid)/schemas/gschemas.compiled").path),
            "make install compiles the extension's schema")
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent(
                "Tests/GnomeShellExtension/\(HeadlessGnomeShell.unsafeModeExtension)"),
            to: extensions.appendingPathComponent(HeadlessGnomeShell.unsafeModeExtension))
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("Tests/GnomeShellExtension/apply-hotkey.js"),
            to: prefix.appendingPathComponent("apply-hotkey.js"))
        try session.user?.takeOwnership(of: prefix.deletingLastPathComponent().path)
        return prefix
    }

    @discardableResult
    private func launchDaemon() throws -> Daemon {
        let daemon = try fixture.launchDaemon(
            environment: shell.logind.environment, executable: prefix.appendingPathComponent("bin/voicememod"))
        currentDaemon = daemon
        return daemon
    }

    // MARK: Reading the panel

    /// What the indicator shows, read through Eval: its icon, its clock (nil while hidden), its
    /// level bar's height (nil while hidden) and its menu's items.
    private struct Indicator: Decodable, Equatable {
        struct Item: Decodable, Equatable {
            var label: String
            var sensitive: Bool
            var memo: String?
        }
        var icon: String
        var clock: String?
        var level: Double?
        var items: [Item]

        var sensitiveLabels: [String] { items.filter(\.sensitive).map(\.label) }
    }

    /// The menu's items, sections flattened, in order.
    private static let menuItems = """
        const PopupMenu = imports.ui.popupMenu;
        const items = indicator.menu._getMenuItems()
            .flatMap(item => item instanceof PopupMenu.PopupMenuSection ? item._getMenuItems() : [item])
            .filter(item => item.label && !(item instanceof PopupMenu.PopupSeparatorMenuItem));
        """

    private func indicator() throws -> Indicator? {
        let json = try shell.eval(
            """
            (() => {
                const indicator = Main.panel.statusArea['voicememo'];
                if (!indicator)
                    return null;
                \(Self.menuItems)
                return {
                    icon: indicator._icon.gicon.get_file().get_basename().replace(/\\.svg$/, ''),
                    clock: indicator._label.visible ? indicator._label.text : null,
                    level: indicator._level.visible ? indicator._level.height : null,
                    items: items.map(item => ({
                        label: item.label.text, sensitive: item.getSensitive(), memo: item.memoPath ?? null,
                    })),
                };
            })()
            """)
        return try JSONDecoder().decode(Indicator?.self, from: Data(json.utf8))
    }

    private func waitForIndicator(
        _ description: String, timeout: Duration = .seconds(1), _ condition: (Indicator) -> Bool
    ) throws -> Indicator {
        var last: Indicator?
        do {
            try waitUntil(description, timeout: timeout, pollingEvery: .milliseconds(20)) {
                last = try self.indicator()
                return last.map(condition) ?? false
            }
        } catch {
            print("the indicator last showed \(String(describing: last))")
            throw error
        }
        return last!
    }

    /// Activates the menu item labelled `label` (or playing `memo`) as a click would.
    private func activate(label: String? = nil, memo: String? = nil) throws {
        let test =
            try label.map { "item.label.text === \(try Self.jsString($0))" }
            ?? "item.memoPath === \(try Self.jsString(memo ?? ""))"
        let found = try shell.eval(
            """
            (() => {
                const indicator = Main.panel.statusArea['voicememo'];
                \(Self.menuItems)
                const item = items.find(item => \(test));
                if (!item)
                    return false;
                item.activate(imports.gi.Clutter.get_current_event());
                return true;
            })()
            """)
        XCTAssertEqual(found, "true", "the menu has the item \(label ?? memo ?? "")")
    }

    /// `text` as a JavaScript string literal (JSON's is one).
    private static func jsString(_ text: String) throws -> String {
        String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
    }

    // MARK: The recorder through the bus

    private func busctl(_ arguments: [String], line: UInt = #line) throws -> String {
        let output = try session.busctl(arguments)
        XCTAssertEqual(output.status, 0, "busctl \(arguments): \(output)", line: line)
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func call(_ method: BusMethodDeclaration) throws {
        _ = try busctl(["call"] + recorderArguments + [method.name.rawValue])
    }

    private func state() throws -> String {
        try busctl(["get-property"] + recorderArguments + [RecorderMember.state.name])
    }

    private func waitForState(_ expected: String, timeout: Duration = .seconds(10)) throws {
        try waitUntil("State is \(expected)", timeout: timeout, pollingEvery: .milliseconds(50)) {
            try self.state() == "s \"\(expected)\""
        }
    }

    private func memoCount() throws -> Int {
        let listed = try busctl(
            ["call"] + recorderArguments + [RecorderMember.listMemos.name.rawValue, "uus", "0", "1000", "newest"])
        return listed.matches(of: /"\/org\/example\/VoiceMemo\/Memo\/[^"]+"/).count
    }

    /// Whether the extension logged a JavaScript error (its files are named in the trace).
    private func extensionErrors() -> [Substring] {
        let lines = shell.log.split(separator: "\n")
        return lines.indices.filter { index in
            guard lines[index].contains("JS ERROR") || lines[index].contains("JS WARNING") else { return false }
            return lines[index..<min(index + 8, lines.count)].contains { $0.contains(Self.uuid) }
        }.map { lines[$0] }
    }

    private func seconds(_ clock: String?) -> Int? {
        guard let clock, let match = clock.wholeMatch(of: /0:0(\d)/) else { return nil }
        return Int(match.1)
    }

    // MARK: Tests

    func testTheIndicatorFollowsTheRecorderWithItsIconClockAndLevel() throws {
        // No daemon yet: the idle icon shows, Record and Record call can be chosen.
        let idle = try waitForIndicator("the indicator is in the top bar") { $0.icon == "voicememo-idle-symbolic" }
        XCTAssertNil(idle.clock)
        XCTAssertEqual(Array(idle.sensitiveLabels.prefix(2)), ["Record", "Record call"])
        try launchDaemon()

        try call(RecorderMember.record)
        let recording = try waitForIndicator("the recording icon and a clock") {
            $0.icon == "voicememo-recording-symbolic" && self.seconds($0.clock) != nil
        }
        XCTAssertEqual(
            Array(recording.sensitiveLabels.prefix(3)), ["Pause", "Stop", "Cancel"], "as the tray menu's")
        let first = try XCTUnwrap(seconds(recording.clock))
        let advanced = try waitForIndicator("the clock advances", timeout: .seconds(3)) {
            (self.seconds($0.clock) ?? 0) > first
        }
        XCTAssertEqual(advanced.icon, "voicememo-recording-symbolic")
        _ = try waitForIndicator("the level bar shows the tone", timeout: .seconds(2)) { ($0.level ?? 0) > 0 }

        // The top bar's picture while recording: the test's artefact, and the README's.
        let picture = session.root.appendingPathComponent("gnome-shell-panel.png")
        try shell.screenshotOfPanel(to: picture)
        let artefact = Self.repository.appendingPathComponent(".build/gnome-shell-panel.png")
        try? FileManager.default.removeItem(at: artefact)
        try FileManager.default.copyItem(at: picture, to: artefact)
        XCTAssertEqual(try Data(contentsOf: artefact).prefix(4), Data([0x89, 0x50, 0x4E, 0x47]), "a PNG")

        try call(RecorderMember.pause)
        let paused = try waitForIndicator("the paused icon") { $0.icon == "voicememo-paused-symbolic" }
        XCTAssertEqual(Array(paused.sensitiveLabels.prefix(3)), ["Resume", "Stop", "Cancel"])
        XCTAssertNil(paused.level, "no level while paused")
        Thread.sleep(forTimeInterval: 1.5)  // a stretch in which a running clock would move
        XCTAssertEqual(try indicator()?.clock, paused.clock, "the clock is frozen while paused")

        try call(RecorderMember.stop)
        let stopped = try waitForIndicator("idle again, the clock hidden") {
            $0.icon == "voicememo-idle-symbolic" && $0.clock == nil
        }
        XCTAssertEqual(Array(stopped.sensitiveLabels.prefix(2)), ["Record", "Record call"])
        XCTAssertEqual(extensionErrors(), [], "no JavaScript error from the extension")
    }

    func testTheMenuRecordsStopsListsTheNewestMemoAndPlaysIt() throws {
        try launchDaemon()
        _ = try waitForIndicator("the menu says there are no memos", timeout: .seconds(5)) {
            $0.items.contains { $0.label == "No memos yet" }
        }
        try activate(label: "Record")
        try waitForState("recording")
        try waitUntil("a second recorded", timeout: .seconds(5), pollingEvery: .milliseconds(50)) {
            let time = try self.busctl(["get-property"] + self.recorderArguments + [RecorderMember.currentTime.name])
            return (Double(time.dropFirst(2)) ?? 0) >= 1
        }
        try activate(label: "Stop")
        try waitForState("idle")
        // Stop replies once the memo is on disk and announced (InterfacesAdded).
        let memo = try busctl(
            ["call"] + recorderArguments + [RecorderMember.listMemos.name.rawValue, "uus", "0", "1", "newest"])
        let path = try XCTUnwrap(memo.firstMatch(of: /"(\/org\/example\/VoiceMemo\/Memo\/[^"]+)"/)?.1)
        let listed = try waitForIndicator("the new memo is first in the menu") {
            $0.items.first { $0.memo != nil }?.memo == String(path)
        }
        let item = try XCTUnwrap(listed.items.first { $0.memo != nil })
        XCTAssertTrue(item.label.hasSuffix("(0:01)"), "title or date, then length: \(item.label)")

        try activate(memo: String(path))
        try waitUntil("the memo plays", timeout: .seconds(5), pollingEvery: .milliseconds(50)) {
            try self.busctl([
                "get-property", "org.mpris.MediaPlayer2.voicememo", "/org/mpris/MediaPlayer2",
                "org.mpris.MediaPlayer2.Player", "PlaybackStatus",
            ]) == "s \"Playing\""
        }
        XCTAssertEqual(extensionErrors(), [], "no JavaScript error from the extension")
    }

    func testTheHotkeyTogglesRecording() throws {
        try launchDaemon()
        _ = try waitForIndicator("the indicator is idle", timeout: .seconds(5)) { $0.icon == "voicememo-idle-symbolic" }
        try shell.press(["Super_L", "Alt_L", "r"])
        try waitForState("recording", timeout: .seconds(2))
        _ = try waitForIndicator("the recording icon") { $0.icon == "voicememo-recording-symbolic" }
        try shell.press(["Super_L", "Alt_L", "r"])
        try waitForState("idle", timeout: .seconds(5))
        _ = try waitForIndicator("the idle icon") { $0.icon == "voicememo-idle-symbolic" }

        // Another key, set with gsettings from outside the shell, takes over at once.
        let schemas = prefix.appendingPathComponent("share/gnome-shell/extensions/\(Self.uuid)/schemas").path
        let set = try session.run(
            "env",
            [
                "GSETTINGS_BACKEND=keyfile", "gsettings", "--schemadir", schemas, "set",
                "org.gnome.shell.extensions.voicememo", "toggle-recording", "['<Super>F8']",
            ])
        XCTAssertEqual(set.status, 0, "gsettings set: \(set)")
        try waitUntil("the shell reads the new key", timeout: .seconds(3), pollingEvery: .milliseconds(50)) {
            try self.shell.eval(
                "Main.extensionManager.lookup('\(Self.uuid)').stateObj._indicator._settings.get_strv('toggle-recording')"
            ) == #"["<Super>F8"]"#
        }
        // Mutter follows the same change notification; a press it missed is pressed again.
        var recorded = false
        for _ in 0..<5 where !recorded {
            try shell.press(["Super_L", "F8"])
            recorded = (try? waitForState("recording", timeout: .seconds(1))) != nil
        }
        XCTAssertTrue(recorded, "Super+F8 records")
        try call(RecorderMember.stop)
        try waitForState("idle")
        // The old key, then the new: the shell handles them in order, each a Toggle on the
        // daemon. Had the old key still toggled, the new one would have stopped its recording
        // (the daemon left idle), or, with our Stop between them, started a second memo.
        let memosBefore = try memoCount()
        try shell.press(["Super_L", "Alt_L", "r"])
        try shell.press(["Super_L", "F8"])
        try waitForState("recording", timeout: .seconds(2))
        try call(RecorderMember.stop)
        try waitForState("idle")
        XCTAssertEqual(try memoCount(), memosBefore + 1, "the old key is free again: one memo, the new key's")
    }

    /// The preferences page (GTK 4, on the shell's display) saves a hotkey typed into it, which
    /// the shell binds at once; text that names no key is marked and changes nothing.
    func testThePreferencesPageSetsTheHotkey() throws {
        XCTAssertEqual(try shell.eval("Main.extensionManager.lookup('\(Self.uuid)').hasPrefs"), "true")
        try launchDaemon()
        let directory = prefix.appendingPathComponent("share/gnome-shell/extensions/\(Self.uuid)").path
        let display = try shell.waylandDisplay()
        let apply = { (text: String) in
            try self.session.run(
                "env",
                [
                    "WAYLAND_DISPLAY=\(display)", "GDK_BACKEND=wayland", "GSETTINGS_BACKEND=keyfile", "gjs",
                    self.prefix.appendingPathComponent("apply-hotkey.js").path, directory, text,
                ], timeout: .seconds(30))
        }
        let refused = try apply("<Super>")
        XCTAssertEqual(refused.status, 0, "\(refused)")
        XCTAssertFalse(refused.stderr.contains("markup"), "the page's text is valid markup: \(refused.stderr)")
        XCTAssertTrue(refused.stdout.contains(#"{"hotkey":["<Super><Alt>r"],"marked":true}"#), "\(refused)")
        let applied = try apply("<Super>F9")
        XCTAssertEqual(applied.status, 0, "\(applied)")
        XCTAssertTrue(applied.stdout.contains(#"{"hotkey":["<Super>F9"],"marked":false}"#), "\(applied)")

        try waitUntil("the shell reads the new key", timeout: .seconds(3), pollingEvery: .milliseconds(50)) {
            try self.shell.eval(
                "Main.extensionManager.lookup('\(Self.uuid)').stateObj._indicator._settings.get_strv('toggle-recording')"
            ) == #"["<Super>F9"]"#
        }
        var recorded = false
        for _ in 0..<5 where !recorded {
            try shell.press(["Super_L", "F9"])
            recorded = (try? waitForState("recording", timeout: .seconds(1))) != nil
        }
        XCTAssertTrue(recorded, "Super+F9 records")
        try call(RecorderMember.stop)
        try waitForState("idle")
        XCTAssertEqual(extensionErrors(), [], "no JavaScript error from the extension")
    }

    /// With the AppIndicator extension also enabled, voicememo shows one icon: the item is
    /// neither registered nor owned while ours runs, and is back within a second of ours
    /// being disabled. Both the watcher's list and the daemon's calls and names are watched
    /// (Debian's AppIndicator 46 sometimes drops an item a second after it registers).
    func testOneIconWithTheAppIndicatorExtension() throws {
        try shell.enable(Self.appIndicator)
        try waitUntil("AppIndicator's watcher runs", timeout: .seconds(10), pollingEvery: .milliseconds(50)) {
            try self.session.busNameHasOwner("org.kde.StatusNotifierWatcher")
        }
        let monitor = try session.launch(
            "dbus-monitor", ["--session", "type='method_call',member='RegisterStatusNotifierItem'"],
            logName: "sni-monitor")
        defer { _ = monitor.terminate() }
        try waitUntil("dbus-monitor monitors", timeout: .seconds(5), pollingEvery: .milliseconds(20)) {
            self.session.log("sni-monitor").contains("NameAcquired")
        }
        let daemon = try launchDaemon()
        let itemName = "org.kde.StatusNotifierItem-\(daemon.process.pid)-1"
        _ = try state()
        // Room for a registration that must not happen: it would follow round trips of the
        // daemon's own (its name, the watcher's), which it does not announce, so no event ends this.
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(try session.busNameHasOwner(itemName), "no item while the extension runs")
        XCTAssertFalse(session.log("sni-monitor").contains(itemName), "no registration while the extension runs")
        let owner = try busctl([
            "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", "s",
            Contract.busName.rawValue,
        ])
        let daemonNames = [itemName, String(owner.split(separator: "\"")[1])]
        let listsVoicememo = { try self.registeredItems().contains { daemonNames.contains($0) } }
        XCTAssertFalse(try listsVoicememo(), "the watcher lists no voicememo item")

        try shell.disable(Self.uuid)
        try waitUntil("the item is back", timeout: .seconds(1), pollingEvery: .milliseconds(20)) {
            try self.session.busNameHasOwner(itemName) && self.session.log("sni-monitor").contains(itemName)
        }
        // AppIndicator 46 may drop it again about a second later; within that second it lists it.
        try waitUntil("the watcher lists the item", timeout: .seconds(1), pollingEvery: .milliseconds(20)) {
            try listsVoicememo()
        }

        try shell.enable(Self.uuid)
        try waitUntil("the item leaves again", timeout: .seconds(1), pollingEvery: .milliseconds(20)) {
            try !self.session.busNameHasOwner(itemName)
        }
        try waitUntil("the watcher drops it", timeout: .seconds(1), pollingEvery: .milliseconds(20)) {
            try !listsVoicememo()
        }
        XCTAssertEqual(extensionErrors(), [], "no JavaScript error from the extension")
    }

    func testTheIndicatorFollowsTheDaemonAwayAndBack() throws {
        let daemon = try launchDaemon()
        try call(RecorderMember.record)
        _ = try waitForIndicator("recording") { $0.icon == "voicememo-recording-symbolic" }
        _ = daemon.kill()
        _ = try waitForIndicator("idle within a second of the daemon's death") {
            $0.icon == "voicememo-idle-symbolic" && $0.clock == nil && $0.level == nil
        }
        XCTAssertEqual(extensionErrors(), [], "no JavaScript error from the extension")

        try launchDaemon()
        try call(RecorderMember.record)
        _ = try waitForIndicator("recording with the new daemon") {
            $0.icon == "voicememo-recording-symbolic" && self.seconds($0.clock) != nil
        }
        try call(RecorderMember.stop)
        _ = try waitForIndicator("idle") { $0.icon == "voicememo-idle-symbolic" }
        XCTAssertEqual(extensionErrors(), [], "no JavaScript error from the extension")
    }

    /// With no daemon and none to start (the fixture's bus activates nothing), Record fails:
    /// the bus's message shows once, as a notification, and the indicator stays idle.
    func testAFailingCallSaysWhyOnce() throws {
        _ = try waitForIndicator("the indicator is idle", timeout: .seconds(5)) { $0.icon == "voicememo-idle-symbolic" }
        let before = try shell.notifications()
        try activate(label: "Record")
        var shown: [String] = []
        try waitUntil("a notification says why", timeout: .seconds(2), pollingEvery: .milliseconds(20)) {
            shown = Array(try self.shell.notifications().dropFirst(before.count))
            return !shown.isEmpty
        }
        // A second notification would come from a reply the bus sent the shell before it
        // answers a call made now on the same connection, and the shell runs reply callbacks
        // in order: once that call's callback has run, any second one has shown.
        _ = try shell.eval(
            """
            globalThis.voicememoProbe = false;
            imports.gi.Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                'org.freedesktop.DBus', 'GetId', null, null, 0, -1, null, () => { globalThis.voicememoProbe = true; });
            true
            """)
        try waitUntil("a later call's reply reaches the shell", timeout: .seconds(2), pollingEvery: .milliseconds(20)) {
            try self.shell.eval("globalThis.voicememoProbe") == "true"
        }
        shown = Array(try shell.notifications().dropFirst(before.count))
        XCTAssertEqual(shown.count, 1, "one notification: \(shown)")
        XCTAssertTrue(shown.first?.hasPrefix("Voice Memos: ") == true, "\(shown)")
        XCTAssertTrue(shown.first?.contains(Contract.busName.rawValue) == true, "the bus's own message: \(shown)")
        XCTAssertEqual(try indicator()?.icon, "voicememo-idle-symbolic")
        XCTAssertEqual(extensionErrors(), [], "no JavaScript error from the extension")
    }

    /// On a bus that activates the installed daemon, none running: the menu's Record starts
    /// it (D-Bus activation) and the recording shows.
    func testRecordStartsTheDaemonThroughActivation() throws {
        shell.stop()
        let data = session.root.appendingPathComponent("activated-data-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try session.user?.takeOwnership(of: data.path)
        let bus = try ActivationBus(
            session: session, serviceDirectory: prefix.appendingPathComponent("share/dbus-1/services"),
            environment: ["XDG_DATA_HOME": data.path])
        defer { bus.close() }
        shell = try HeadlessGnomeShell(
            session: session, dataDirectories: [prefix.appendingPathComponent("share").path], busAddress: bus.address)
        try shell.enable(Self.uuid)
        _ = try waitForIndicator("the indicator is idle", timeout: .seconds(10)) {
            $0.icon == "voicememo-idle-symbolic"
        }
        XCTAssertFalse(try bus.nameHasOwner(Contract.busName.rawValue), "no daemon before the click")

        try activate(label: "Record")
        _ = try waitForIndicator("recording, with a daemon started for it", timeout: .seconds(10)) {
            $0.icon == "voicememo-recording-symbolic" && self.seconds($0.clock) != nil
        }
        XCTAssertTrue(try bus.nameHasOwner(Contract.busName.rawValue))
        try activate(label: "Stop")
        _ = try waitForIndicator("idle after Stop", timeout: .seconds(5)) { $0.icon == "voicememo-idle-symbolic" }
        XCTAssertEqual(extensionErrors(), [], "no JavaScript error from the extension")
    }

    /// The names of the items AppIndicator's watcher lists.
    private func registeredItems() throws -> [String] {
        let output = try session.busctl([
            "--json=short", "get-property", "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher",
            "org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems",
        ])
        guard output.succeeded,
            let reply = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any],
            let entries = reply["data"] as? [String]
        else { return [] }
        return entries.map { String($0.prefix { $0 != "/" }) }
    }
}
