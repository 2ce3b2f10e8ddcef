import Bus
import VoiceMemoContract

/// The recorder's signals as a stream the live views read from, with a deadline so they
/// can also tick their clocks.
struct RecorderEvents {
    let connection: BusConnection

    /// Subscribes to the recorder object's signals and to the daemon appearing or leaving.
    init(_ client: RecorderClient) throws(BusError) {
        connection = client.connection
        try connection.addMatch(.signals(path: RecorderClient.path))
        try connection.addMatch(.nameOwnerChanged(of: RecorderClient.busName))
    }

    /// The next event, or nil when `timeout` passes first.
    func next(timeout: Duration) throws(BusError) -> Event? {
        guard let signal = try connection.nextSignal(timeout: timeout) else { return nil }
        switch signal.member.rawValue {
        case "PropertiesChanged": return .propertiesChanged(signal.arguments[1].stringDictionary ?? [:])
        case RecorderMember.levels.name.rawValue: return .levels(signal)
        case "NameOwnerChanged": return .daemonChanged(isRunning: signal.arguments.last?.string?.isEmpty == false)
        default: return .other(signal)
        }
    }

    enum Event {
        case propertiesChanged([String: BusValue])
        case levels(BusSignal)
        case daemonChanged(isRunning: Bool)
        case other(BusSignal)
    }
}
