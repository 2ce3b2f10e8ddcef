import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// Issue 16 without a panel: the StatusNotifierItem and its dbusmenu as served, the
/// TrayEnabled setting, and silence when no watcher runs. (`PanelTests` runs a real one.)
final class TrayItemTests: RecorderTestCase {

    private var connection: BusConnection!

    override func setUpWithError() throws {
        try super.setUpWithError()
        connection = try BusConnection.connect(address: fixture.session.busAddress)
    }

    override func tearDownWithError() throws {
        connection = nil
        try super.tearDownWithError()
    }

    private let item = ObjectPath("/StatusNotifierItem")
    private let menu = ObjectPath("/MenuBar")

    private func itemProperty(_ name: String) throws -> BusValue {
        let reply = try connection.call(
            destination: Contract.busName, path: item, interface: .properties, member: MemberName("Get"),
            arguments: [.string("org.kde.StatusNotifierItem"), .string(name)])
        return try XCTUnwrap(reply.first?.variant)
    }

    /// The menu's items as (id, label, enabled), from GetLayout.
    private func menuItems() throws -> [(id: Int32, label: String, enabled: Bool)] {
        let reply = try connection.call(
            destination: Contract.busName, path: menu, interface: InterfaceName("com.canonical.dbusmenu"),
            member: MemberName("GetLayout"), arguments: [.int32(0), .int32(-1), .stringArray([])])
        let root = try XCTUnwrap(reply.last?.structure)
        return (root[2].array ?? []).compactMap { child in
            guard let fields = child.variant?.structure, let id = fields[0].int32,
                let properties = fields[1].stringDictionary,
                let label = properties["label"]?.string
            else { return nil }
            return (id, label, properties["enabled"]?.boolean ?? true)
        }
    }

    private func enabledLabels() throws -> [String] {
        try menuItems().filter(\.enabled).map(\.label)
    }

    private func click(_ label: String) throws {
        let id = try XCTUnwrap(try menuItems().first { $0.label == label }?.id, "menu item \(label)")
        _ = try connection.call(
            destination: Contract.busName, path: menu, interface: InterfaceName("com.canonical.dbusmenu"),
            member: MemberName("Event"), arguments: [.int32(id), .string("clicked"), .variant(.string("")), .uint32(0)])
    }

    private func waitForState(_ state: String) throws {
        try waitUntil("State is \(state)", timeout: .seconds(10), pollingEvery: .milliseconds(50)) {
            try recorder.property(RecorderMember.state).string == state
        }
    }

    private var itemName: String { "org.kde.StatusNotifierItem-\(daemon.process.pid)-1" }

    func testTheItemAndItsMenuFollowTheRecorder() throws {
        XCTAssertEqual(try itemProperty("Id").string, "voicememo")
        XCTAssertEqual(try itemProperty("Category").string, "ApplicationStatus")
        XCTAssertEqual(
            try itemProperty("Status").string, "Active", "idle is Active: the item is how a recording starts")
        XCTAssertEqual(try itemProperty("IconName").string, "voicememo-idle")
        XCTAssertEqual(try itemProperty("AttentionIconName").string, "voicememo-interrupted")
        XCTAssertEqual(try itemProperty("Menu").objectPath, menu)
        XCTAssertEqual(try itemProperty("ItemIsMenu").boolean, false)
        // Run from the build, the icons are the checkout's own small theme.
        let themePath = try XCTUnwrap(itemProperty("IconThemePath").string)
        XCTAssertEqual(
            URL(fileURLWithPath: themePath).standardizedFileURL,
            Checkout.root.appendingPathComponent("data/icons").standardizedFileURL)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: themePath + "/hicolor/scalable/status/voicememo-recording.svg"))
        XCTAssertTrue(try fixture.session.busNameHasOwner(itemName), "the item owns \(itemName)")
        XCTAssertEqual(try enabledLabels(), ["Record", "Record call", "Open memo folder"])
        XCTAssertTrue(
            try menuItems().contains { $0.label.hasPrefix("Input: ") && !$0.enabled }, "the input's name as a label")

        try click("Record")
        try waitForState("recording")
        XCTAssertEqual(try itemProperty("IconName").string, "voicememo-recording")
        let tooltip = try XCTUnwrap(itemProperty("ToolTip").structure)
        XCTAssertTrue(tooltip[2].string?.hasPrefix("Recording 0:0") == true, "\(tooltip)")
        XCTAssertTrue(tooltip[3].string?.contains("Input: ") == true, "\(tooltip)")
        XCTAssertEqual(try enabledLabels(), ["Pause", "Stop", "Cancel", "Open memo folder"])

        // The tooltip's clock is refreshed once a second while recording.
        try connection.addMatch("type='signal',interface='org.kde.StatusNotifierItem',member='NewToolTip'")
        let started = ContinuousClock.now
        var ticks = 0
        while ContinuousClock.now - started < .milliseconds(2500) {
            if try connection.nextSignal(timeout: .milliseconds(2600) - (ContinuousClock.now - started)) != nil {
                ticks += 1
            }
        }
        XCTAssertTrue((1...3).contains(ticks), "about one NewToolTip a second while recording: \(ticks) in 2.5 s")

        try click("Pause")
        try waitForState("paused")
        XCTAssertEqual(try itemProperty("IconName").string, "voicememo-paused")
        XCTAssertEqual(try enabledLabels(), ["Resume", "Stop", "Cancel", "Open memo folder"])
        try click("Stop")
        try waitForState("idle")
        try waitUntil("the memo is in the menu", timeout: .seconds(10), pollingEvery: .milliseconds(100)) {
            try self.menuItems().contains { $0.label.hasPrefix("Play ") }
        }
        // Idle: no tooltip refresh at all, once the announcements of Pause and Stop are read.
        while try connection.nextSignal(timeout: .milliseconds(300)) != nil {}
        let idleSince = ContinuousClock.now
        var idleTicks = 0
        while ContinuousClock.now - idleSince < .milliseconds(1500) {
            if try connection.nextSignal(timeout: .milliseconds(1600) - (ContinuousClock.now - idleSince)) != nil {
                idleTicks += 1
            }
        }
        XCTAssertEqual(idleTicks, 0, "no tooltip refresh while idle")
        XCTAssertFalse(daemon.log.contains("tray"), "no watcher, no log line: \(daemon.log)")
        XCTAssertFalse(daemon.log.contains("StatusNotifier"), "no watcher, no log line: \(daemon.log)")

        // "Record call" records the microphone and the default output.
        try click("Record call")
        try waitForState("recording")
        try waitUntil("the call records the speaker", timeout: .seconds(2)) {
            try self.recorder.property(RecorderMember.activeOutput).string == AudioDevices.speaker
        }
        try click("Stop")
        try waitForState("idle")
    }

    func testBadMenuCallsGetClearErrors() throws {
        XCTAssertThrowsError(
            try connection.call(
                destination: Contract.busName, path: menu, interface: InterfaceName("com.canonical.dbusmenu"),
                member: MemberName("Event"),
                arguments: [.int32(4242), .string("clicked"), .variant(.string("")), .uint32(0)])
        ) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ErrorName.invalidArgs.rawValue)
            XCTAssertTrue((error as? BusError)?.message.contains("no item 4242") == true, "\(error)")
        }
        XCTAssertThrowsError(
            try connection.call(
                destination: Contract.busName, path: menu, interface: InterfaceName("com.canonical.dbusmenu"),
                member: MemberName("GetLayout"), arguments: [.string("zero")])
        ) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ErrorName.invalidArgs.rawValue)
        }
        // A click on a greyed-out item does nothing.
        try click("Stop")
        XCTAssertEqual(try recorder.property(RecorderMember.state).string, "idle")
        XCTAssertTrue(daemon.isRunning)
    }

    func testTrayEnabledOffRemovesTheItemAndPersists() throws {
        XCTAssertEqual(try recorder.property(RecorderMember.trayEnabled).boolean, true, "on by default")
        let name = itemName
        try recorder.setProperty(RecorderMember.trayEnabled, .boolean(false))
        try waitUntil("the item's name is released", timeout: .seconds(5), pollingEvery: .milliseconds(50)) {
            try !self.fixture.session.busNameHasOwner(name)
        }
        XCTAssertThrowsError(try itemProperty("Status")) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ErrorName.unknownObject.rawValue)
        }
        let settings = try String(contentsOf: fixture.session.settingsFile, encoding: .utf8)
        XCTAssertTrue(
            settings.contains("\"isTrayEnabled\" : false") || settings.contains("\"isTrayEnabled\":false"), settings)

        // A restarted daemon keeps it off; turned on again, the item is back.
        daemon.stop()
        let second = try fixture.launchDaemon()
        defer { second.stop() }
        let fresh = try VoiceMemoProxy(session: fixture.session)
        XCTAssertEqual(try fresh.property(RecorderMember.trayEnabled).boolean, false)
        XCTAssertFalse(try fixture.session.busNameHasOwner("org.kde.StatusNotifierItem-\(second.process.pid)-1"))
        try fresh.setProperty(RecorderMember.trayEnabled, .boolean(true))
        try waitUntil("the item's name is owned again", timeout: .seconds(5), pollingEvery: .milliseconds(50)) {
            try self.fixture.session.busNameHasOwner("org.kde.StatusNotifierItem-\(second.process.pid)-1")
        }
        XCTAssertEqual(try itemProperty("IconName").string, "voicememo-idle")
    }

    /// While GNOME Shell's extension owns org.example.VoiceMemo.ShellIndicator, the item is
    /// withdrawn (its name released, its objects gone) and comes back within a second of that
    /// name losing its owner, whether released or its connection closed; a daemon started
    /// while the extension runs has no item.
    func testTheItemStepsAsideWhileTheShellIndicatorRuns() throws {
        let name = itemName
        XCTAssertTrue(try fixture.session.busNameHasOwner(name))
        let bus = (BusName("org.freedesktop.DBus"), ObjectPath("/org/freedesktop/DBus"))
        var shell: BusConnection? = try BusConnection.connect(address: fixture.session.busAddress)
        XCTAssertTrue(try XCTUnwrap(shell).requestName(BusName("org.example.VoiceMemo.ShellIndicator")))
        try waitUntil("the item's name is released", timeout: .seconds(1), pollingEvery: .milliseconds(20)) {
            try !self.fixture.session.busNameHasOwner(name)
        }
        XCTAssertThrowsError(try itemProperty("Status")) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ErrorName.unknownObject.rawValue)
        }
        _ = try XCTUnwrap(shell).call(
            destination: bus.0, path: bus.1, interface: InterfaceName("org.freedesktop.DBus"),
            member: MemberName("ReleaseName"), arguments: [.string("org.example.VoiceMemo.ShellIndicator")])
        try waitUntil("the item's name is owned again", timeout: .seconds(1), pollingEvery: .milliseconds(20)) {
            try self.fixture.session.busNameHasOwner(name)
        }
        XCTAssertEqual(try itemProperty("IconName").string, "voicememo-idle")

        // A daemon started while the extension runs: no item until the shell's connection goes.
        XCTAssertTrue(try XCTUnwrap(shell).requestName(BusName("org.example.VoiceMemo.ShellIndicator")))
        daemon.stop()
        let second = try fixture.launchDaemon()
        defer { second.stop() }
        let secondName = "org.kde.StatusNotifierItem-\(second.process.pid)-1"
        // Its first answer about the shell's name withdraws the item before it registers.
        try waitUntil("the new daemon has no item", timeout: .seconds(1), pollingEvery: .milliseconds(20)) {
            try !self.fixture.session.busNameHasOwner(secondName)
        }
        shell = nil
        try waitUntil("the item comes with the shell gone", timeout: .seconds(1), pollingEvery: .milliseconds(20)) {
            try self.fixture.session.busNameHasOwner(secondName)
        }
    }

    /// "Open memo folder" goes to org.freedesktop.FileManager1 when a file manager owns it;
    /// a memo's item plays it; SecondaryActivate pauses and resumes.
    func testTheMenuOpensTheFolderPlaysAMemoAndTheMiddleClickPausesAndResumes() throws {
        let fileManager = try StandInService(
            session: fixture.session, name: "org.freedesktop.FileManager1", interface: "org.freedesktop.FileManager1")
        let log = { fileManager.calls }
        try click("Open memo folder")
        try waitUntil("the daemon calls ShowFolders", timeout: .seconds(5)) { log().contains("member=ShowFolders") }
        XCTAssertTrue(log().contains("string \"file://\(fixture.session.memoDirectory.path)\""), log())

        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "duration": .double(1.5), "title": .string("Menu memo"),
        ])
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(10)) {
            $0.arguments.first?.objectPath == memo
        }
        try waitUntil("the memo is in the menu", timeout: .seconds(10), pollingEvery: .milliseconds(100)) {
            try self.menuItems().contains { $0.label.hasPrefix("Play Menu memo (0:01)") }
        }
        try click(try XCTUnwrap(try menuItems().first { $0.label.hasPrefix("Play Menu memo") }?.label))
        try waitUntil("the memo plays", timeout: .seconds(5), pollingEvery: .milliseconds(50)) {
            try self.recorder.property(RecorderMember.playing).objectPath == memo
        }
        _ = try recorder.call(RecorderMember.stopPlayback)

        let secondary = { (state: String) in
            _ = try self.connection.call(
                destination: Contract.busName, path: self.item, interface: InterfaceName("org.kde.StatusNotifierItem"),
                member: MemberName("SecondaryActivate"), arguments: [.int32(0), .int32(0)])
            try self.waitForState(state)
        }
        try secondary("idle")  // nothing to pause
        _ = try recorder.call(RecorderMember.record)
        try waitForState("recording")
        try secondary("paused")
        try secondary("recording")
        _ = try recorder.call(RecorderMember.stop)
    }
}
