import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A Set is announced with exactly one PropertiesChanged when the value changes, and with
/// none when it does not, for every writable property the daemon serves.
final class PropertiesChangedTests: RecorderTestCase {
    /// Long enough for a second, duplicate announcement to arrive after the first.
    private let settle = Duration.milliseconds(300)

    /// Values to write to the recorder's writable properties that are not Booleans (those
    /// are flipped); the two of each differ, so one of them differs from the current value.
    private let candidates: [String: [BusValue]] = [
        RecorderMember.format.name: [.string("wav"), .string("flac")],
        RecorderMember.sampleRate.name: [.uint32(16000), .uint32(44100)],
        RecorderMember.channels.name: [.uint32(2), .uint32(1)],
        RecorderMember.quality.name: [.string("high"), .string("low")],
        RecorderMember.source.name: [.string(AudioDevices.microphone), .string("")],
        RecorderMember.playbackRate.name: [.double(1.5), .double(1)],
        RecorderMember.transcriptionModel.name: [.string("base.en"), .string("tiny.en")],
    ]

    /// The recorder's writable properties and their types, from its live introspection, so
    /// a property added later is covered (or fails here for want of a test value).
    private func writableProperties() throws -> [(name: String, type: String)] {
        let connection = try BusConnection.connect(address: fixture.session.busAddress)
        let xml = try XCTUnwrap(
            connection.call(
                destination: VoiceMemoProxy.busName, path: VoiceMemoProxy.path, interface: InterfaceName.introspectable,
                member: MemberName("Introspect")
            ).first?.string)
        let document = try XMLDocument(xmlString: xml)
        let interface = try XCTUnwrap(
            document.rootElement()?.elements(forName: "interface").first {
                $0.attribute(forName: "name")?.stringValue == VoiceMemoProxy.interface.rawValue
            })
        return interface.elements(forName: "property").compactMap { property in
            guard property.attribute(forName: "access")?.stringValue == "readwrite",
                let name = property.attribute(forName: "name")?.stringValue,
                let type = property.attribute(forName: "type")?.stringValue
            else { return nil }
            return (name, type)
        }
    }

    /// The PropertiesChanged signals that arrive within `settle` after `action`.
    private func announcements(
        on path: ObjectPath = VoiceMemoProxy.path, interface: InterfaceName = VoiceMemoProxy.interface,
        after action: () throws -> Void
    ) throws -> [BusSignal] {
        try recorder.collectSignals(for: .milliseconds(50))
        let before = recorder.propertiesChanged(on: path, interface: interface).count
        try action()
        try recorder.collectSignals(for: settle)
        return Array(recorder.propertiesChanged(on: path, interface: interface).dropFirst(before))
    }

    func testEachRecorderPropertySetIsAnnouncedOnceAndASetToTheSameValueNotAtAll() throws {
        let properties = try writableProperties()
        XCTAssertGreaterThanOrEqual(
            properties.count, 7, "the contract's six writable settings and NotificationsEnabled: \(properties)")
        for (name, type) in properties {
            let current = try recorder.property(unlisted: name)
            let newValue: BusValue
            if type == "b" {
                newValue = .boolean(!(try XCTUnwrap(current.boolean, name)))
            } else if let values = candidates[name], let different = values.first(where: { $0 != current }) {
                newValue = different
            } else {
                XCTFail("no test value for the writable property \(name) (\(type))")
                continue
            }

            let changed = try announcements { try recorder.setProperty(unlisted: name, newValue) }
            XCTAssertEqual(changed.count, 1, "one PropertiesChanged for a Set of \(name): \(changed)")
            XCTAssertEqual(changed.first?.arguments[1].stringDictionary, [name: newValue], name)
            XCTAssertEqual(changed.first?.arguments[2].array ?? [], [], "nothing invalidated by \(name)")

            let unchanged = try announcements { try recorder.setProperty(unlisted: name, newValue) }
            XCTAssertEqual(unchanged.count, 0, "no PropertiesChanged for a Set of \(name) to its value: \(unchanged)")
            XCTAssertEqual(try recorder.property(unlisted: name), newValue, name)
        }
    }

    func testAMemoTitleSetIsAnnouncedOnceAndASetToTheSameTitleNotAtAll() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(0.3)])
        try recorder.waitForSignal(RecorderMember.recordingFinished) { $0.arguments.first?.objectPath == memo }
        let memoInterface = VoiceMemoProxy.memoInterface

        let changed = try announcements(on: memo, interface: memoInterface) {
            try recorder.setMemoTitle(memo, "Budget")
        }
        XCTAssertEqual(changed.count, 1, "one PropertiesChanged for a Set of Title: \(changed)")
        let values = try XCTUnwrap(changed.first?.arguments[1].stringDictionary)
        XCTAssertEqual(values[MemoMember.title.name], .string("Budget"))
        XCTAssertEqual(
            values[MemoMember.path.name], .string(try recorder.file(of: memo).path),
            "the file was renamed with the title")

        let unchanged = try announcements(on: memo, interface: memoInterface) {
            try recorder.setMemoTitle(memo, "Budget")
        }
        XCTAssertEqual(unchanged.count, 0, "no PropertiesChanged for a Set of Title to its value: \(unchanged)")
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.title), .string("Budget"))
    }

    // MPRIS's writable Volume and Rate accept writes but stay 1 (the desktop's mixer sets
    // the level; Rate 0 would pause, and nothing plays): nothing changes, nothing is announced.
    func testMediaPlayerSetsThatChangeNothingAreNotAnnounced() throws {
        let mpris = BusName("org.mpris.MediaPlayer2.voicememo")
        let path = ObjectPath("/org/mpris/MediaPlayer2")
        let player = "org.mpris.MediaPlayer2.Player"
        let signals = try BusConnection.connect(address: fixture.session.busAddress)
        try signals.addMatch("type='signal',path='\(path.rawValue)',member='PropertiesChanged'")
        let calls = try BusConnection.connect(address: fixture.session.busAddress)
        for name in ["Volume", "Rate"] {
            _ = try calls.call(
                destination: mpris, path: path, interface: .properties, member: MemberName("Set"),
                arguments: [.string(player), .string(name), .variant(.double(1))])
            let value = try calls.call(
                destination: mpris, path: path, interface: .properties, member: MemberName("Get"),
                arguments: [.string(player), .string(name)])
            XCTAssertEqual(value.first?.variant, .double(1), name)
        }
        let announced = try signals.nextSignal(timeout: settle)
        XCTAssertNil(announced, "no PropertiesChanged for Sets that changed nothing: \(String(describing: announced))")
    }
}
