import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

extension IntegrationTestCase {
    /// On a private bus whose only activatable services are those in `services`, with no
    /// daemon running: the first `busctl --user call … Record` starts voicememod through its
    /// activation file, the daemon owns its names beside the recorder's, and a second of the
    /// stimulus tone is recorded into a memo directory of its own.
    func assertTheFirstCallActivatesADaemonThatRecords(
        services: URL, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        // Its own memo directory, apart from the fixture's daemon on the main bus.
        let data = fixture.session.root.appendingPathComponent("activated-data-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let bus = try ActivationBus(
            session: fixture.session, serviceDirectory: services, environment: ["XDG_DATA_HOME": data.path])
        defer { bus.close() }
        XCTAssertFalse(
            try bus.nameHasOwner(Contract.busName.rawValue), "no daemon runs before the first call", file: file,
            line: line)

        let recorder = [Contract.busName.rawValue, Contract.recorderPath.rawValue, Contract.recorderInterface.rawValue]
        let record = try bus.busctl(["call"] + recorder + [RecorderMember.record.name.rawValue], timeout: .seconds(20))
        XCTAssertEqual(record.status, 0, "\(record)", file: file, line: line)
        XCTAssertTrue(record.stdout.hasPrefix("o \"\(Contract.memoParentPath)/"), record.stdout, file: file, line: line)
        XCTAssertTrue(try bus.nameHasOwner(Contract.busName.rawValue), file: file, line: line)
        XCTAssertTrue(
            try bus.nameHasOwner("org.mpris.MediaPlayer2.voicememo"), "MPRIS name owned beside it", file: file,
            line: line)

        try waitUntil("a second is recorded", timeout: .seconds(5), pollingEvery: .milliseconds(100)) {
            let time = try bus.busctl(["get-property"] + recorder + [RecorderMember.currentTime.name]).stdout
            return (Double(time.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0)
                >= 1
        }
        let stop = try bus.busctl(["call"] + recorder + [RecorderMember.stop.name.rawValue])
        XCTAssertEqual(stop.status, 0, "\(stop)", file: file, line: line)
        XCTAssertEqual(stop.stdout, record.stdout, "Stop names the memo Record started", file: file, line: line)
        try assertHoldsTone(data.appendingPathComponent("voicememo"), seconds: 1, file: file, line: line)
    }
}
