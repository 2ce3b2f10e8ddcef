import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// Issue 9, the desktop: D-Bus activation, `make install`'s layout and its validators,
/// MPRIS through `playerctl`, the hotkey command and the shipped panel modules, each run
/// for real against the private bus and audio server.
final class DesktopIntegrationTests: IntegrationTestCase {

    private var session: TestSession { fixture.session }

    /// A fresh directory under the session root.
    private func scratchDirectory(_ name: String) throws -> URL {
        let directory = session.root.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    // MARK: 1. D-Bus activation

    /// With no daemon on the bus, the first `busctl --user call … Record` starts voicememod
    /// through the shipped activation file, and the memo is recorded.
    func testTheFirstCallActivatesTheDaemonWhichRecords() throws {
        let services = try scratchDirectory("dbus-services")
        let template = try String(
            contentsOf: Checkout.root.appendingPathComponent("data/\(Contract.busName).service"), encoding: .utf8)
        let binaries = try BuildProducts.voicememod().deletingLastPathComponent().path
        try template.replacingOccurrences(of: "@bindir@", with: binaries)
            .write(
                to: services.appendingPathComponent("\(Contract.busName).service"), atomically: true, encoding: .utf8)
        try assertTheFirstCallActivatesADaemonThatRecords(services: services)
    }

    // MARK: 2. make install / uninstall

    /// Where `make install PREFIX=/usr` puts things, as the Makefile documents.
    private static let installedFiles =
        [
            "etc/xdg/autostart/voicememo.desktop",
            "usr/bin/voicememo",
            "usr/bin/voicememod",
            "usr/lib/systemd/user/voicememo.service",
            "usr/libexec/voicememo/voicememo-transcriber",
            "usr/share/applications/\(Contract.applicationID).desktop",
            "usr/share/bash-completion/completions/voicememo",
            "usr/share/dbus-1/interfaces/\(Contract.recorderInterface).xml",
            "usr/share/dbus-1/services/\(Contract.busName).service",
            "usr/share/doc/voicememo/examples/polybar-voicememo.ini",
            "usr/share/doc/voicememo/examples/waybar-voicememo.css",
            "usr/share/doc/voicememo/examples/waybar-voicememo.jsonc",
            "usr/share/fish/vendor_completions.d/voicememo.fish",
        ] + shellExtensionFiles.map { "usr/share/gnome-shell/extensions/\(shellExtension)/\($0)" }
        + trayIcons.map { "usr/share/icons/hicolor/scalable/status/\($0).svg" } + [
            "usr/share/man/man1/voicememo.1",
            "usr/share/man/man1/voicememod.1",
            "usr/share/metainfo/\(Contract.applicationID).metainfo.xml",
            "usr/share/zsh/vendor-completions/_voicememo",
        ]

    /// The GNOME Shell extension, in the form the installed shell loads, its schema compiled.
    private static let shellExtensionFiles =
        ["extension.js"]
        + ["idle", "interrupted", "paused", "recording", "scheduled"].map { "icons/voicememo-\($0)-symbolic.svg" }
        + [
            "indicator.js", "metadata.json", "org.example.VoiceMemo.xml", "preferences.js", "prefs.js",
            "presentation.js", "schemas/gschemas.compiled", "schemas/org.gnome.shell.extensions.voicememo.gschema.xml",
        ]
    private static let shellExtension = "voicememo@example.org"

    /// The tray item's icons (issue 16): each state, in colour and symbolic.
    private static let trayIcons = ["idle", "interrupted", "paused", "recording", "scheduled"].flatMap {
        ["voicememo-\($0)-symbolic", "voicememo-\($0)"]
    }

    /// Runs the Makefile with `arguments`, installing the binaries just built (`BINARIES`).
    private func make(_ arguments: [String]) throws -> CommandOutput {
        let binaries = try BuildProducts.voicememod().deletingLastPathComponent().path
        return try session.run(
            "make", ["--no-print-directory", "-C", Checkout.root.path] + arguments + ["BINARIES=\(binaries)"],
            timeout: .seconds(60))
    }

    /// Regular files below `root`, relative to it, sorted.
    private func files(below root: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? [])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .map { String($0.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)) }
            .sorted()
    }

    func testMakeInstallLaysOutValidFilesAndUninstallRemovesThem() throws {
        let destination = try scratchDirectory("destdir")
        let install = try make(["install", "DESTDIR=\(destination.path)", "PREFIX=/usr"])
        XCTAssertEqual(install.status, 0, "\(install)")
        XCTAssertEqual(files(below: destination), Self.installedFiles)
        try assertIconThemeIsValid(destination.appendingPathComponent("usr/share/icons/hicolor"))

        // Paths are the installed ones; nothing points into a home or keeps a placeholder.
        let activation = try String(
            contentsOf: destination.appendingPathComponent("usr/share/dbus-1/services/\(Contract.busName).service"),
            encoding: .utf8)
        XCTAssertTrue(activation.contains("\n[D-BUS Service]\n"), activation)
        XCTAssertTrue(activation.contains("\nName=\(Contract.busName)\n"), activation)
        XCTAssertTrue(activation.contains("\nExec=/usr/bin/voicememod\n"), activation)
        XCTAssertTrue(activation.contains("\nSystemdService=voicememo.service\n"), activation)
        let unit = try String(
            contentsOf: destination.appendingPathComponent("usr/lib/systemd/user/voicememo.service"), encoding: .utf8)
        for line in [
            "Type=dbus", "BusName=\(Contract.busName)", "ExecStart=/usr/bin/voicememod", "Restart=on-abnormal",
        ] {
            XCTAssertTrue(unit.contains("\n\(line)\n"), "unit has \(line)")
        }
        for name in Self.installedFiles where !name.hasPrefix("usr/bin/") && !name.hasSuffix(".compiled") {
            let text = try String(contentsOf: destination.appendingPathComponent(name), encoding: .utf8)
            XCTAssertFalse(text.contains("@bindir@"), "\(name) keeps a placeholder")
            XCTAssertFalse(text.contains("/home/") || text.contains("/root/"), "\(name) names a home directory")
        }

        for desktopFile in [
            "etc/xdg/autostart/voicememo.desktop", "usr/share/applications/\(Contract.applicationID).desktop",
        ] {
            let validation = try session.run(
                "desktop-file-validate", [destination.appendingPathComponent(desktopFile).path])
            XCTAssertEqual(validation.status, 0, "\(desktopFile): \(validation)")
            XCTAssertEqual(validation.stdout + validation.stderr, "", "\(desktopFile) validates without hints")
        }

        // systemd-analyze (252) cannot combine --root with --user, and verify checks that
        // ExecStart exists: so the unit is verified from a real install under a private prefix.
        let prefix = try scratchDirectory("prefix")
        let prefixInstall = try make(["install", "PREFIX=\(prefix.path)/usr", "SYSCONFDIR=\(prefix.path)/etc"])
        XCTAssertEqual(prefixInstall.status, 0, "\(prefixInstall)")
        let unitPath = prefix.appendingPathComponent("usr/lib/systemd/user/voicememo.service").path
        XCTAssertTrue(
            try String(contentsOfFile: unitPath, encoding: .utf8).contains(
                "ExecStart=\(prefix.path)/usr/bin/voicememod\n"))
        // --user needs XDG_RUNTIME_DIR (there is no user manager here); MANPATH lets it
        // check Documentation=man:voicememod(1) against the installed page.
        let verify = try ChildProcess.run(
            "systemd-analyze", ["verify", "--user", unitPath],
            environment: session.environment.merging(["MANPATH": prefix.path + "/usr/share/man"]) { $1 })
        XCTAssertEqual(verify.status, 0, "\(verify)")
        XCTAssertEqual(verify.stderr, "", "systemd-analyze verify --user reports nothing")
        XCTAssertEqual(try make(["uninstall", "PREFIX=\(prefix.path)/usr", "SYSCONFDIR=\(prefix.path)/etc"]).status, 0)
        XCTAssertEqual(files(below: prefix), [])

        let uninstall = try make(["uninstall", "DESTDIR=\(destination.path)", "PREFIX=/usr"])
        XCTAssertEqual(uninstall.status, 0, "\(uninstall)")
        XCTAssertEqual(files(below: destination), [], "uninstall removes every installed file")
    }

    /// The installed icons against the hicolor theme: each lies in a directory the system's
    /// hicolor `index.theme` declares, and `gtk-update-icon-cache` builds and validates a
    /// cache over them (in a copy: the DESTDIR tree stays exactly what was installed).
    private func assertIconThemeIsValid(_ installed: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let index = try String(contentsOfFile: "/usr/share/icons/hicolor/index.theme", encoding: .utf8)
        XCTAssertTrue(
            index.contains("\n[scalable/status]\n"), "hicolor declares scalable/status", file: file, line: line)
        let copy = try scratchDirectory("icon-theme").appendingPathComponent("hicolor")
        try FileManager.default.copyItem(at: installed, to: copy)
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: "/usr/share/icons/hicolor/index.theme"),
            to: copy.appendingPathComponent("index.theme"))
        let build = try session.run("gtk-update-icon-cache", ["--force", copy.path])
        XCTAssertEqual(build.status, 0, "\(build)", file: file, line: line)
        let validate = try session.run("gtk-update-icon-cache", ["--validate", copy.path])
        XCTAssertEqual(validate.status, 0, "\(validate)", file: file, line: line)
        for name in Self.trayIcons {
            let svg = try String(
                contentsOf: installed.appendingPathComponent("scalable/status/\(name).svg"), encoding: .utf8)
            XCTAssertTrue(
                svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""), "\(name) is an SVG", file: file, line: line)
        }
        // The uninstalled theme the daemon offers as IconThemePath has the same icons.
        let uninstalled = Checkout.root.appendingPathComponent("data/icons/hicolor/scalable/status")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: uninstalled.path).sorted(),
            Self.trayIcons.map { "\($0).svg" }.sorted(), file: file, line: line)
    }

    // MARK: 3. MPRIS with playerctl

    /// Runs `playerctl -p voicememo` with `arguments` on the session bus.
    private func playerctl(_ arguments: String...) throws -> CommandOutput {
        try session.run("playerctl", ["-p", "voicememo"] + arguments)
    }

    /// What `playerctl` prints for `arguments`, trimmed; fails the test if it fails.
    private func playerctlValue(_ arguments: String..., line: UInt = #line) throws -> String {
        let output = try session.run("playerctl", ["-p", "voicememo"] + arguments)
        XCTAssertEqual(output.status, 0, "playerctl \(arguments): \(output)", line: line)
        // Object paths come out GVariant-quoted.
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(
            in: CharacterSet(charactersIn: "'"))
    }

    private func position() throws -> Double {
        try XCTUnwrap(Double(playerctlValue("position")))
    }

    /// Records memos titled `titles`, oldest first, each `seconds` long; returns their paths.
    private func recordMemos(_ titles: [String], seconds: Double) throws -> [ObjectPath] {
        let recorder = try VoiceMemoProxy(session: session)
        return try titles.map { title in
            let memo = try recorder.recordWithOptions(
                ["format": .string("wav"), "title": .string(title), "duration": .double(seconds)])
            try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(seconds + 5)) {
                $0.arguments.first?.objectPath == memo
            }
            return memo
        }
    }

    /// Signals from the MPRIS object, read in order; each wait consumes the signals up to
    /// the one it returns, so waiting twice for the same status needs two announcements.
    private final class MediaPlayerSignals {
        private let connection: BusConnection
        private(set) var received: [BusSignal] = []
        private var consumed = 0

        init(session: TestSession) throws {
            connection = try BusConnection.connect(address: session.busAddress)
            try connection.addMatch("type='signal',path='/org/mpris/MediaPlayer2'")
        }

        /// Waits for a signal `member` satisfying `condition`, reading at most until `timeout`.
        @discardableResult
        func wait(for member: String, timeout: Duration = .seconds(5), where condition: (BusSignal) -> Bool) throws
            -> BusSignal
        {
            func matches(_ signal: BusSignal) -> Bool { signal.member.rawValue == member && condition(signal) }
            if let index = received[consumed...].firstIndex(where: matches) {
                consumed = index + 1
                return received[index]
            }
            consumed = received.count
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                guard let signal = try connection.nextSignal(timeout: deadline - ContinuousClock.now) else { break }
                received.append(signal)
                consumed = received.count
                if matches(signal) { return signal }
            }
            throw FixtureError.timedOut(waitingUntil: "the MPRIS object emits \(member)", after: timeout)
        }

        /// Waits until PropertiesChanged announces PlaybackStatus `status`.
        func waitForStatus(_ status: String) throws {
            try wait(for: "PropertiesChanged") { $0.arguments[1].stringDictionary?["PlaybackStatus"]?.string == status }
        }

        /// Every PlaybackStatus announced so far.
        var statuses: [String] {
            received.compactMap {
                $0.member.rawValue == "PropertiesChanged"
                    ? $0.arguments[1].stringDictionary?["PlaybackStatus"]?.string : nil
            }
        }
    }

    /// `playerctl play` plays the newest memo, which the speaker's monitor hears; metadata,
    /// position, pause (position held, output silent), resume and stop all work.
    func testPlayerctlPlaysPausesAndStopsTheNewestMemo() throws {
        let memos = try recordMemos(["Older memo", "Newest memo"], seconds: 3)
        fixture.stimulus.stop()  // the speaker carries only the playback from here on
        let signals = try MediaPlayerSignals(session: session)
        XCTAssertEqual(try playerctlValue("status"), "Stopped")
        XCTAssertEqual(try playerctlValue("metadata", "mpris:trackid"), "/org/mpris/MediaPlayer2/TrackList/NoTrack")

        let speaker = try SourceRecording(from: AudioDevices.speaker + ".monitor", in: session)
        defer { speaker.stop() }
        XCTAssertEqual(try playerctl("play").status, 0)
        try signals.waitForStatus("Playing")
        XCTAssertEqual(try playerctlValue("status"), "Playing")
        XCTAssertEqual(try playerctlValue("metadata", "xesam:title"), "Newest memo")
        XCTAssertEqual(try playerctlValue("metadata", "mpris:trackid"), memos[1].rawValue)
        XCTAssertEqual(try XCTUnwrap(Double(playerctlValue("metadata", "mpris:length"))), 3_000_000, accuracy: 100_000)
        let url = try playerctlValue("metadata", "xesam:url")
        XCTAssertTrue(
            url.hasPrefix("file://" + session.memoDirectory.path) && url.hasSuffix("%20Newest%20memo.wav"), url)
        let started = try position()
        try waitUntil("the position advances", timeout: .seconds(3), pollingEvery: .milliseconds(100)) {
            try position() >= started + 0.5
        }

        XCTAssertEqual(try playerctl("pause").status, 0)
        try signals.waitForStatus("Paused")
        let held = try position()
        // Let the speaker's own clock run 0.6 s: the buffered tail fades and nothing follows.
        let pausedAt = speaker.sampleCount
        try waitUntil("0.6 s more of the speaker is recorded", timeout: .seconds(3)) {
            speaker.sampleCount >= pausedAt + Stimulus.sampleRate * 6 / 10
        }
        XCTAssertEqual(try position(), held, accuracy: 0.001, "paused: the position stays")
        let quiet = AudioAnalysis.normalized(Array(speaker.samples[(pausedAt + Stimulus.sampleRate * 3 / 10)...]))
        XCTAssertLessThan(AudioAnalysis.rmsDBFS(quiet), -50, "paused: nothing is written to the speaker")

        XCTAssertEqual(try playerctl("play").status, 0, "Play resumes")
        try signals.waitForStatus("Playing")
        XCTAssertEqual(try position(), held, accuracy: 0.3, "resumed where it paused")
        try waitUntil("the position advances again", timeout: .seconds(3), pollingEvery: .milliseconds(100)) {
            try position() >= held + 0.3
        }

        XCTAssertEqual(try playerctl("stop").status, 0)
        try signals.waitForStatus("Stopped")
        XCTAssertEqual(try playerctlValue("status"), "Stopped")
        XCTAssertEqual(try VoiceMemoProxy(session: session).property(RecorderMember.playing).objectPath, .root)
        XCTAssertEqual(try playerctlValue("metadata", "xesam:title"), "Newest memo", "Stop keeps the current track")
        XCTAssertEqual(Array(signals.statuses.suffix(4)), ["Playing", "Paused", "Playing", "Stopped"])

        // What the speaker carried while playing is the memo: the 440 Hz tone at its level.
        let heard = AudioAnalysis.normalized(speaker.samples)
        let loud = heard.enumerated().filter { abs($0.element) > 0.05 }.map(\.offset)
        let first = try XCTUnwrap(loud.first)
        let tone = Array(heard[first..<min(first + Stimulus.sampleRate / 2, heard.count)])
        XCTAssertEqual(
            AudioAnalysis.dominantFrequency(tone, sampleRate: Stimulus.sampleRate), Stimulus.frequency,
            accuracy: 440 * 0.02)
        XCTAssertEqual(AudioAnalysis.rmsDBFS(tone), fixture.stimulus.rmsDBFS, accuracy: 1.5)
    }

    /// Next and Previous walk the library newest first; Seek and SetPosition move the
    /// position and emit Seeked; Next past the oldest memo stops.
    func testNextPreviousAndSeekWalkTheLibraryNewestFirst() throws {
        let memos = try recordMemos(["First", "Second", "Third"], seconds: 2)
        fixture.stimulus.stop()
        let signals = try MediaPlayerSignals(session: session)
        XCTAssertEqual(try playerctl("play").status, 0)
        try signals.waitForStatus("Playing")
        XCTAssertEqual(try playerctlValue("metadata", "xesam:title"), "Third")

        XCTAssertEqual(try playerctl("next").status, 0)
        try signals.wait(for: "PropertiesChanged") {
            $0.arguments[1].stringDictionary?["Metadata"]?.stringDictionary?["mpris:trackid"]?.objectPath == memos[1]
        }
        XCTAssertEqual(try playerctlValue("metadata", "xesam:title"), "Second")
        XCTAssertEqual(try playerctlValue("status"), "Playing", "Next keeps playing")
        XCTAssertEqual(try playerctl("previous").status, 0)
        try waitUntil("Previous goes back to the newer memo", timeout: .seconds(3)) {
            try playerctlValue("metadata", "xesam:title") == "Third"
        }

        // SetPosition (playerctl position N) and Seek (N+ / N-), each announced by Seeked.
        XCTAssertEqual(try playerctl("position", "1").status, 0)
        let seeked = try signals.wait(for: "Seeked") { _ in true }
        XCTAssertEqual(seeked.arguments.first?.int64, 1_000_000, "Seeked announces the position set")
        XCTAssertEqual(try position(), 1, accuracy: 0.3)
        XCTAssertEqual(try playerctl("position", "0.5-").status, 0)
        try signals.wait(for: "Seeked") { ($0.arguments.first?.int64 ?? 0) < 1_000_000 }
        XCTAssertLessThan(try position(), 1)

        XCTAssertEqual(try playerctl("pause").status, 0)
        try signals.waitForStatus("Paused")
        XCTAssertEqual(try playerctl("next").status, 0)
        try waitUntil("Next while paused selects the older memo", timeout: .seconds(3)) {
            try playerctlValue("metadata", "xesam:title") == "Second"
        }
        XCTAssertEqual(try playerctlValue("status"), "Paused", "Next keeps a paused player paused")
        XCTAssertEqual(try playerctl("next").status, 0)
        try waitUntil("Next reaches the oldest memo", timeout: .seconds(3)) {
            try playerctlValue("metadata", "xesam:title") == "First"
        }
        // At the oldest memo there is no Next (CanGoNext false): the call changes nothing.
        let canGoNext = try session.busctl([
            "get-property", "org.mpris.MediaPlayer2.voicememo", "/org/mpris/MediaPlayer2",
            "org.mpris.MediaPlayer2.Player", "CanGoNext",
        ])
        XCTAssertEqual(canGoNext.stdout, "b false\n")
        _ = try playerctl("next")
        XCTAssertEqual(try playerctlValue("status"), "Paused")
        XCTAssertEqual(try playerctlValue("metadata", "xesam:title"), "First")
        // Seeking past its end acts like Next, which with no next memo stops.
        XCTAssertEqual(try playerctl("position", "10+").status, 0)
        try signals.waitForStatus("Stopped")
        XCTAssertEqual(try playerctlValue("metadata", "xesam:title"), "First", "the current track stays")
    }

    // MARK: 4. The hotkey command

    /// `voicememo toggle` twice records, then stops and saves the memo; the latency of each
    /// toggle (process start to exit, what a hotkey costs) is printed.
    func testToggleTwiceRecordsThenStopsAndSavesTheMemo() throws {
        let clock = ContinuousClock()
        let startedAt = clock.now
        let start = try fixture.voicememo(["toggle"])
        let startLatency = clock.now - startedAt
        XCTAssertEqual(start.status, 0, "\(start)")
        XCTAssertEqual(start.stdout, "recording\n")

        let recorder = try VoiceMemoProxy(session: session)
        try waitUntil("a second is recorded", timeout: .seconds(5), pollingEvery: .milliseconds(50)) {
            try XCTUnwrap(recorder.property(RecorderMember.currentTime).double) >= 1
        }
        let stoppedAt = clock.now
        let stop = try fixture.voicememo(["toggle"])
        let stopLatency = clock.now - stoppedAt
        XCTAssertEqual(stop.status, 0, "\(stop)")
        XCTAssertEqual(stop.stdout, "idle\n")
        let milliseconds = { (duration: Duration) in Int((duration.timeInterval * 1000).rounded()) }
        print("voicememo toggle latency: start \(milliseconds(startLatency)) ms, stop \(milliseconds(stopLatency)) ms")
        try assertHoldsTone(session.memoDirectory, seconds: 1)
    }

    // MARK: 5. Panel modules

    /// Runs `command` through `sh -c` as a panel does, with the built voicememo on PATH;
    /// returns the process and its output file.
    private func launchPanelCommand(_ command: String, name: String) throws -> (ChildProcess, URL) {
        let binaries = try BuildProducts.voicememo().deletingLastPathComponent().path
        let child = try session.launch(
            "/bin/sh", ["-c", command], logName: name,
            environment: ["PATH": binaries + ":" + (session.environment["PATH"] ?? "/usr/bin:/bin")])
        return (child, session.logFile(name))
    }

    /// Stops a panel command and the processes of its pipeline (`sh -c` forks them when it
    /// does not exec), children first, so the test leaves nothing running.
    private func terminatePanelCommand(_ shell: ChildProcess) {
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap {
            entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // Fields after "(comm)": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == shell.pid ? pid : nil
        }
        for child in children { kill(child, SIGTERM) }
        shell.terminate()
        for child in children {
            try? waitUntil("panel pipeline process \(child) exits", timeout: .seconds(3)) {
                kill(child, 0) != 0
                    || (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.contains(") Z ") == true
            }
        }
    }

    private func lines(of file: URL) -> [String] {
        ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func testTheShippedWaybarModulePrintsJSONLinesAsIs() throws {
        let module = try Checkout.waybarModule()
        XCTAssertEqual(module["return-type"] as? String, "json")
        XCTAssertEqual(module["on-click"] as? String, "voicememo toggle")
        XCTAssertEqual(module["on-click-right"] as? String, "voicememo pause")
        let command = try XCTUnwrap(module["exec"] as? String)
        let (watch, output) = try launchPanelCommand(command, name: "waybar-exec")
        defer { terminatePanelCommand(watch) }

        try waitUntil("the module prints its first line", timeout: .seconds(5)) { !lines(of: output).isEmpty }
        let recorder = try VoiceMemoProxy(session: session)
        try recorder.call(RecorderMember.record)
        try waitUntil("a recording line appears", timeout: .seconds(5)) {
            lines(of: output).contains { $0.contains("\"class\":\"recording\"") }
        }
        try recorder.call(RecorderMember.pause)
        try waitUntil("a paused line appears", timeout: .seconds(5)) {
            lines(of: output).contains { $0.contains("\"class\":\"paused\"") }
        }
        try recorder.call(RecorderMember.stop)
        try waitUntil("an idle line follows", timeout: .seconds(5)) {
            lines(of: output).last?.contains("\"class\":\"idle\"") == true
        }

        let objects = try lines(of: output).map { line in
            try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        for object in objects {
            XCTAssertNotNil(object["text"] as? String)
            XCTAssertNotNil(object["tooltip"] as? String)
            XCTAssertNotNil(object["class"] as? String)
            XCTAssertNotNil(object["alt"] as? String)
            XCTAssertNotNil(object["percentage"] as? Int)
        }
        XCTAssertEqual(objects.first?["text"] as? String, "○")
        XCTAssertTrue(objects.contains { ($0["text"] as? String)?.hasPrefix("● 00:00:") == true })
    }

    func testTheShippedPolybarModulePrintsTheStateText() throws {
        let text = try String(
            contentsOf: Checkout.root.appendingPathComponent("data/polybar-voicememo.ini"), encoding: .utf8)
        let exec = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("exec = ") })
        let (watch, output) = try launchPanelCommand(String(exec.dropFirst("exec = ".count)), name: "polybar-exec")
        defer { terminatePanelCommand(watch) }
        try waitUntil("the module prints ○ while idle", timeout: .seconds(5)) { lines(of: output).first == "○" }
        try VoiceMemoProxy(session: session).call(RecorderMember.record)
        // In polybar's colour tags: red while recording, amber paused (issue 16).
        try waitUntil("the module prints the recording time in red", timeout: .seconds(5)) {
            lines(of: output).last?.hasPrefix("%{F#e01b24}● 00:00:") == true
        }
        try VoiceMemoProxy(session: session).call(RecorderMember.pause)
        try waitUntil("the module prints the paused time in amber", timeout: .seconds(5)) {
            lines(of: output).last?.hasPrefix("%{F#f5a623}❚❚ 00:00:") == true
        }
        try VoiceMemoProxy(session: session).call(RecorderMember.stop)
        try waitUntil("the module prints ○ again", timeout: .seconds(5)) { lines(of: output).last == "○" }
    }
}
