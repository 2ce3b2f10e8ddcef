import Bus
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoRuntime

/// Tells the user that a recording finished, through org.freedesktop.Notifications.
///
/// Fire and forget: the call wants no reply, so a missing notification server costs
/// nothing and never delays the daemon (the bus drops the call, or starts an activatable
/// server).
package struct DesktopNotifier {
    let connection: BusConnection

    /// A notifier that calls the notification server over `connection`.
    package init(connection: BusConnection) {
        self.connection = connection
    }

    static let service = BusName("org.freedesktop.Notifications")
    static let path = ObjectPath("/org/freedesktop/Notifications")

    /// Tells of every memo `recorder` finishes while the user's setting allows it. The
    /// library follows the recorder from its init, so by then it knows the memo's title and length.
    package func follow(_ recorder: Recorder, library: MemoLibraryService) {
        recorder.notifications.observe { [self, unowned recorder, unowned library] notification in
            guard case .finished(let memo, let successfully) = notification,
                recorder.defaults.areNotificationsEnabled, let info = library.info(id: memo.id)
            else { return }
            recordingFinished(info, successfully: successfully)
        }
    }

    func recordingFinished(_ memo: MemoInfo, successfully: Bool) {
        let name = memo.title.isEmpty ? "Memo \(memo.id)" : memo.title
        let length = Self.clock(memo.duration)
        notify(
            summary: successfully ? "Voice memo saved" : "Voice memo ended early",
            body: successfully ? "\(name) — \(length)" : "\(name) — \(length) kept; the recording was cut short",
            urgency: successfully ? 1 : 2)
    }

    /// Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout).
    private func notify(summary: String, body: String, urgency: UInt8) {
        connection.callWithoutReply(
            destination: Self.service, path: Self.path, interface: InterfaceName("org.freedesktop.Notifications"),
            member: MemberName("Notify"),
            arguments: [
                .string("voicememo"), .uint32(0), .string("audio-input-microphone"), .string(summary), .string(body),
                .stringArray([]),
                .stringDictionary(["urgency": .byte(urgency), "desktop-entry": .string(Contract.applicationID)]),
                .int32(-1),
            ])
    }

    /// `H:MM:SS` or `M:SS`, as a person reads a length: rounded to the nearest second.
    static func clock(_ seconds: Double) -> String { ClockText.text(seconds, rounding: .toNearestOrAwayFromZero) }
}
