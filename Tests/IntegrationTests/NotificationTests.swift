import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// Desktop notifications: off unless enabled, sent to org.freedesktop.Notifications when a
/// recording finishes, and harmless when no notification server runs.
final class NotificationTests: RecorderTestCase {

    private func recordMemo(title: String) throws {
        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "duration": .double(0.4), "title": .string(title),
        ])
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == memo
        }
    }

    func testFinishedRecordingsAreAnnouncedOnlyWhenEnabled() throws {
        let server = try StandInService(
            session: fixture.session, name: "org.freedesktop.Notifications", interface: "org.freedesktop.Notifications")
        let log = { server.calls }

        XCTAssertEqual(try recorder.property(RecorderMember.notificationsEnabled).boolean, false, "off by default")
        try recordMemo(title: "Quiet")
        try recordMemo(title: "Still quiet")  // by now a Notify for the first would have arrived
        XCTAssertFalse(log().contains("member=Notify"), log())

        try recorder.setProperty(RecorderMember.notificationsEnabled, .boolean(true))
        try recordMemo(title: "Standup")
        try waitUntil("the daemon calls Notify", timeout: .seconds(5)) { log().contains("Standup") }
        let call = log()
        XCTAssertTrue(call.contains("member=Notify"), call)
        XCTAssertTrue(call.contains("string \"voicememo\""), call)
        XCTAssertTrue(call.contains("string \"Voice memo saved\""), call)
        XCTAssertTrue(call.contains("Standup — 0:00"), call)
    }

    func testNoNotificationServerIsHarmless() throws {
        try recorder.setProperty(RecorderMember.notificationsEnabled, .boolean(true))
        try recordMemo(title: "Nobody listens")
        try recordMemo(title: "Still fine")
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try recorder.state, "idle")
        XCTAssertFalse(daemon.log.contains("error"), daemon.log)
    }
}
