import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// Each caller's Unix user is asked of the bus without blocking the daemon, remembered
/// while the caller is connected and forgotten once its unique name leaves the bus.
final class CallerCredentialsTests: RecorderTestCase {
    private func caller() throws -> BusConnection {
        try BusConnection.connect(address: fixture.session.busAddress)
    }

    // The issue: the cache grew by one entry per caller for the daemon's lifetime. Under
    // VOICEMEMO_DEBUG=1 the daemon logs each caller it forgets with the count it still holds.
    func testAThousandCallersAreEachForgottenWhenTheyLeave() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        let debug = try fixture.launchDaemon(environment: ["VOICEMEMO_DEBUG": "1"])
        defer { debug.stop() }
        XCTAssertEqual(try recorder.state, "idle", "the test's own caller, which stays connected")

        var names: [String] = []
        for _ in 0..<1000 {
            let connection = try caller()
            names.append(connection.uniqueName)
            _ = try connection.call(
                destination: VoiceMemoProxy.busName, path: VoiceMemoProxy.path, interface: .properties,
                member: MemberName("Get"),
                arguments: [.string(VoiceMemoProxy.interface.rawValue), .string(RecorderMember.state.name)])
        }  // each connection closes as it goes out of scope

        /// Each "forgot caller NAME; COUNT remembered" line, in order.
        func forgotten() -> [(name: String, remembered: Int)] {
            debug.log.split(separator: "\n").compactMap { line in
                guard let range = line.range(of: "voicememod: forgot caller ") else { return nil }
                let words = line[range.upperBound...].split(separator: " ")
                guard words.count == 3, words[0].hasSuffix(";"), let count = Int(words[1]) else { return nil }
                return (String(words[0].dropLast()), count)
            }
        }
        try waitUntil("the daemon forgets all 1000 callers", timeout: .seconds(30), pollingEvery: .milliseconds(100)) {
            Set(forgotten().map(\.name)).isSuperset(of: names)
        }
        let lines = forgotten()
        XCTAssertEqual(lines.count, Set(lines.map(\.name)).count, "each caller is forgotten once")
        XCTAssertEqual(lines.last?.remembered, 1, "only the test's own caller is left: \(lines.suffix(3))")
        XCTAssertTrue(debug.isRunning)
    }

    // While a new caller's user is being asked for, its calls wait, and are handled in the
    // order they were sent.
    func testANewCallersCallsAreHandledInOrder() throws {
        let connection = try caller()
        let formats = ["wav", "flac", "vorbis", "opus", "mp3"]
        let sequence = (0..<40).map { formats[$0 % formats.count] } + ["flac"]
        for format in sequence {
            connection.callWithoutReply(
                destination: VoiceMemoProxy.busName, path: VoiceMemoProxy.path, interface: .properties,
                member: MemberName("Set"),
                arguments: [
                    .string(VoiceMemoProxy.interface.rawValue), .string(RecorderMember.format.name),
                    .variant(.string(format)),
                ])
        }
        let reply = try connection.call(
            destination: VoiceMemoProxy.busName, path: VoiceMemoProxy.path, interface: .properties,
            member: MemberName("Get"),
            arguments: [.string(VoiceMemoProxy.interface.rawValue), .string(RecorderMember.format.name)])
        XCTAssertEqual(reply.first?.variant, .string("flac"), "the last Set sent is the last applied")

        try recorder.collectSignals(for: .milliseconds(300))
        let announced = recorder.propertiesChanged().compactMap {
            $0.arguments[1].stringDictionary?[RecorderMember.format.name]?.string
        }
        XCTAssertEqual(announced, sequence, "every change announced, in the order it was sent")
    }
}
