import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The daemon against the published contract: its live introspection equals the shipped
/// XML, and it is the only owner of its name.
final class ContractTests: IntegrationTestCase {
    /// One interface's members in a comparable form: "method Record(out o memo)", "property
    /// State s read", "annotation …" lines, sorted.
    private func members(of interface: String, inXML text: String) throws -> [String] {
        let document = try XMLDocument(xmlString: text, options: [])
        let nodes = try document.nodes(forXPath: "/node/interface[@name='\(interface)']")
        let element = try XCTUnwrap(nodes.first as? XMLElement, "no interface \(interface) in the XML")
        var lines: [String] = []
        for child in element.children?.compactMap({ $0 as? XMLElement }) ?? [] {
            let name = child.attribute(forName: "name")?.stringValue ?? "?"
            func attribute(_ element: XMLElement, _ key: String) -> String {
                element.attribute(forName: key)?.stringValue ?? ""
            }
            let arguments = (child.elements(forName: "arg")).map { argument in
                let direction =
                    child.name == "method"
                    ? (attribute(argument, "direction").isEmpty ? "in" : attribute(argument, "direction")) + " " : ""
                return direction + attribute(argument, "type") + " " + attribute(argument, "name")
            }
            let annotations = child.elements(forName: "annotation").map {
                "\(attribute($0, "name"))=\(attribute($0, "value"))"
            }
            switch child.name {
            case "property":
                lines.append(
                    "property \(name) \(attribute(child, "type")) \(attribute(child, "access")) \(annotations.sorted())"
                )
            default:
                lines.append(
                    "\(child.name ?? "?") \(name)(\(arguments.joined(separator: ", "))) \(annotations.sorted())")
            }
        }
        return lines.sorted()
    }

    func testLiveIntrospectionMatchesTheShippedXML() throws {
        let connection = try BusConnection.connect(address: fixture.session.busAddress)
        let live = try XCTUnwrap(
            connection.call(
                destination: Contract.busName, path: Contract.recorderPath,
                interface: InterfaceName("org.freedesktop.DBus.Introspectable"), member: MemberName("Introspect")
            ).first?.string)

        let expected = try members(
            of: Contract.recorderInterface.rawValue, inXML: String(contentsOf: shippedXML, encoding: .utf8))
        XCTAssertEqual(try members(of: Contract.recorderInterface.rawValue, inXML: live), expected)
        XCTAssertEqual(
            expected.count, 14 + 8 + 24,
            "9 methods, 7 signals, 12 properties of the contract, GetInputLevels, WatchLevels, UnwatchLevels, ListMemos, FindMemos, InputLevels, NotificationsEnabled, TrayEnabled, SkipSilence, PlaybackRate, SystemAudio, NoiseSuppression, AutoGain, ActiveOutput, MemoCount, TranscribeNewMemos, TranscriptionEngine and TranscriptionModel"
        )
        for standard in [
            "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer",
        ] {
            XCTAssertTrue(live.contains("<interface name=\"\(standard)\">"), standard)
        }
    }

    func testLiveMemoIntrospectionMatchesTheShippedXML() throws {
        let recorder = try VoiceMemoProxy(session: fixture.session)
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(0.2)])
        try recorder.waitForSignal(RecorderMember.recordingFinished.name.rawValue) {
            $0.arguments.first?.objectPath == memo
        }
        let connection = try BusConnection.connect(address: fixture.session.busAddress)
        let live = try XCTUnwrap(
            connection.call(
                destination: Contract.busName, path: memo,
                interface: InterfaceName("org.freedesktop.DBus.Introspectable"), member: MemberName("Introspect")
            ).first?.string)
        let shipped = try String(contentsOf: shippedXML, encoding: .utf8)
        let expected = try members(of: Contract.memoInterface.rawValue, inXML: shipped)
        XCTAssertEqual(try members(of: Contract.memoInterface.rawValue, inXML: live), expected)
        XCTAssertEqual(
            expected.count, 9 + 11,
            "9 methods (with the additions DeletePermanently, Peaks, Trim, TrimSilence, Transcribe and TranscriptSegments) and 11 properties (with TranscriptStatus and Transcript)"
        )
        let root = try XCTUnwrap(
            connection.call(
                destination: Contract.busName, path: Contract.recorderPath,
                interface: InterfaceName("org.freedesktop.DBus.Introspectable"), member: MemberName("Introspect")
            ).first?.string)
        XCTAssertTrue(root.contains("<interface name=\"org.freedesktop.DBus.ObjectManager\">"))
    }

    /// `data/org.example.VoiceMemo.xml` in this checkout.
    private var shippedXML: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("data/\(Contract.recorderInterface).xml")
    }

    func testBusctlIntrospectListsTheContract() throws {
        let output = try fixture.session.busctl([
            "introspect", Contract.busName.rawValue, Contract.recorderPath.rawValue,
        ])
        XCTAssertTrue(output.succeeded, "\(output)")
        for member in [
            RecorderMember.recordWithOptions.name.rawValue, RecorderMember.toggle.name.rawValue,
            RecorderMember.currentTime.name, RecorderMember.recordingFinished.name.rawValue,
            RecorderMember.levels.name.rawValue,
        ] {
            XCTAssertTrue(output.stdout.contains("." + member), "busctl introspect shows \(member)")
        }
    }

    func testASecondDaemonExitsAtOnceSayingWhy() throws {
        let second = try fixture.session.run(BuildProducts.voicememod().path, [], timeout: .seconds(5))
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("already owned"), second.stderr)
        XCTAssertTrue(daemon.isRunning, "the first daemon keeps its name and keeps running")
        XCTAssertTrue(try fixture.session.busNameHasOwner(Contract.busName.rawValue))
    }

    func testNoSessionBusIsAClearFailure() throws {
        let output = try ChildProcess.run(
            BuildProducts.voicememod().path, [],
            environment: fixture.session.environment.merging(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
            { $1 },
            timeout: .seconds(5))
        XCTAssertEqual(output.status, 1)
        XCTAssertTrue(output.stderr.contains("cannot connect to the session bus"), output.stderr)
    }
}
