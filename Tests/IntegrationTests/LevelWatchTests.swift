import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// WatchLevels and UnwatchLevels: live meters get `Levels` for as long as their bus
/// connection lives, without touching the persisted `MeteringEnabled`.
final class LevelWatchTests: RecorderTestCase {
    private var levelCount: Int { recorder.received.filter { $0.member == RecorderMember.levels.name }.count }

    /// Starts a recording with metering off, as the setting is by default.
    private func startRecordingWithMeteringOff() throws {
        XCTAssertEqual(try recorder.property(RecorderMember.meteringEnabled).boolean, false)
        _ = try recorder.recordWithOptions(["format": .string("wav")])
    }

    /// Waits until at least `count` more Levels have come.
    private func expectLevelsFlow(_ count: Int = 5, _ reason: String) throws {
        let target = levelCount + count
        try waitUntil("\(count) Levels come (\(reason))", timeout: .seconds(5), pollingEvery: .zero) {
            try recorder.collectSignals(for: .milliseconds(100))
            return levelCount >= target
        }
    }

    /// Waits until no Levels come for half a second (one measured just before may still be
    /// on its way), then checks that none come during another second of recording.
    private func expectLevelsStop(_ reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try waitUntil("Levels stop (\(reason))", timeout: .seconds(5), pollingEvery: .zero) {
            let before = levelCount
            try recorder.collectSignals(for: .milliseconds(500))
            return levelCount == before
        }
        let before = levelCount
        try recorder.collectSignals(for: .seconds(1))
        XCTAssertEqual(levelCount, before, "no Levels after \(reason)", file: file, line: line)
        XCTAssertEqual(try recorder.state, "recording", "the recording went on all along", file: file, line: line)
    }

    /// No PropertiesChanged ever announced MeteringEnabled, and it reads false.
    private func expectMeteringUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        let announced = recorder.propertiesChanged().filter {
            $0.arguments[1].stringDictionary?[RecorderMember.meteringEnabled.name] != nil
        }
        XCTAssertEqual(announced.count, 0, "MeteringEnabled was never changed", file: file, line: line)
        XCTAssertEqual(try recorder.property(RecorderMember.meteringEnabled).boolean, false, file: file, line: line)
    }

    /// A connection of its own to the private bus: a caller with its own unique name.
    private func caller() throws -> BusConnection {
        try BusConnection.connect(address: fixture.session.busAddress)
    }

    private func call(_ member: BusMethodDeclaration, from connection: BusConnection) throws {
        _ = try connection.call(
            destination: VoiceMemoProxy.busName, path: VoiceMemoProxy.path, interface: VoiceMemoProxy.interface,
            member: member.name)
    }

    // The issue: a meter killed with SIGKILL used to leave the persisted MeteringEnabled on.
    func testAMeterKilledWithSIGKILLChangesNoSettingAndItsLevelsStop() throws {
        try startRecordingWithMeteringOff()
        let meterCommand = "exec \(try BuildProducts.voicememo().path) meter"
        let terminal = try fixture.session.launch(
            "script", ["--quiet", "--flush", "--return", "--command", meterCommand, "/dev/null"], logName: "meter",
            environment: ["TERM": "xterm-256color", "COLUMNS": "100"], standardInput: .pipe)
        defer { _ = terminal.terminate() }
        // The shell script starts execs into the meter: script's one child.
        var meter: pid_t = 0
        try waitUntil("script runs the meter", timeout: .seconds(5)) {
            let children =
                (try? String(contentsOfFile: "/proc/\(terminal.pid)/task/\(terminal.pid)/children", encoding: .utf8))
                ?? ""
            guard let child = children.split(separator: " ").first.flatMap({ pid_t($0) }) else { return false }
            let name = (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? ""
            meter = child
            return name.hasPrefix("voicememo")
        }
        try expectLevelsFlow(5, "the meter watches the levels")
        try expectMeteringUntouched()

        XCTAssertEqual(kill(meter, SIGKILL), 0)
        _ = try terminal.waitForExit(timeout: .seconds(5))
        try expectLevelsStop("the meter was killed")
        try expectMeteringUntouched()
        try recorder.call(RecorderMember.stop)
    }

    func testUnwatchLevelsEndsTheWatchWhichIsNotCounted() throws {
        try startRecordingWithMeteringOff()
        try expectLevelsStop("recording with metering off and no watcher")
        let watcher = try caller()
        try call(RecorderMember.watchLevels, from: watcher)
        try call(RecorderMember.watchLevels, from: watcher)
        try expectLevelsFlow(5, "a watcher")

        // Unwatching without watching is no error, and ends nobody else's watch.
        let bystander = try caller()
        try call(RecorderMember.unwatchLevels, from: bystander)
        try expectLevelsFlow(3, "the bystander's UnwatchLevels changed nothing")

        // One UnwatchLevels ends it, however many WatchLevels came before.
        try call(RecorderMember.unwatchLevels, from: watcher)
        try expectLevelsStop("the watcher's one UnwatchLevels")
        try call(RecorderMember.unwatchLevels, from: watcher)
        try expectMeteringUntouched()
        try recorder.call(RecorderMember.stop)
    }

    func testLevelsLastWhileAnyWatcherIsConnected() throws {
        try startRecordingWithMeteringOff()
        let first = try caller()
        var second: BusConnection? = try caller()
        try call(RecorderMember.watchLevels, from: first)
        try call(RecorderMember.watchLevels, from: second!)
        try expectLevelsFlow(5, "two watchers")
        try call(RecorderMember.unwatchLevels, from: first)
        try expectLevelsFlow(5, "the second still watches")
        second = nil  // closes its connection: its unique name leaves the bus
        try expectLevelsStop("the last watcher's connection closed")
        try expectMeteringUntouched()

        // MeteringEnabled alone still meters; a watcher leaving does not turn it off.
        try call(RecorderMember.watchLevels, from: first)
        try recorder.setProperty(RecorderMember.meteringEnabled, .boolean(true))
        try call(RecorderMember.unwatchLevels, from: first)
        try expectLevelsFlow(5, "MeteringEnabled is on")
        try recorder.setProperty(RecorderMember.meteringEnabled, .boolean(false))
        try expectLevelsStop("MeteringEnabled off, nobody watching")
        try recorder.call(RecorderMember.stop)
    }
}
