/// The audio server's inputs as the route rules see them.
public struct InputRoutes: Equatable, Sendable {
    /// The server's default input.
    public var defaultSource: String
    /// Each input by name: whether it is muted, and its active port.
    public var inputs: [String: Input]

    public struct Input: Equatable, Sendable {
        public var isMuted: Bool
        public var activePort: String

        public init(isMuted: Bool, activePort: String) {
            self.isMuted = isMuted
            self.activePort = activePort
        }
    }

    public init(defaultSource: String, inputs: [String: Input]) {
        self.defaultSource = defaultSource
        self.inputs = inputs
    }
}

/// What a change on the server means for the open recording.
public enum RouteEvent: Equatable, Sendable {
    case routeChanged(RouteChangeReason, from: String, to: String)
    /// The input feeding the recording was muted (true) or unmuted.
    case inputMuted(Bool)
}

/// Turns successive views of the server's inputs into the contract's route changes and
/// mute interruptions for the recording, AVAudioSession-style. Pure, so recorded event
/// sequences can be replayed in tests (virtual sources have no ports to change live).
public struct RouteTracker: Sendable {
    private var last: InputRoutes?
    private var isMuted = false

    public init() {}

    /// Forgets the mute state (a new recording starts from scratch).
    public mutating func reset() { isMuted = false }

    /// Forgets what the server looked like (it went away; a restarted server is compared
    /// with nothing, since its reconnection is reported as `server-restarted`).
    public mutating func forgetServer() { last = nil }

    /// The events `routes` brings for a recording fed by `active`, which follows the default
    /// input unless `isPinned`. Returns also the source feeding the recording afterwards.
    public mutating func update(
        _ routes: InputRoutes, active: String, isPinned: Bool
    ) -> (events: [RouteEvent], active: String) {
        defer { last = routes }
        var events: [RouteEvent] = []
        var active = active
        if let last, !active.isEmpty {
            if !isPinned, routes.defaultSource != last.defaultSource, !routes.defaultSource.isEmpty {
                // Both servers move a stream that follows the default.
                events.append(.routeChanged(.defaultChanged, from: active, to: routes.defaultSource))
                active = routes.defaultSource
            } else if routes.inputs[active] == nil, last.inputs[active] != nil, !routes.defaultSource.isEmpty {
                // The source went away; the server moved the stream to its fallback.
                events.append(.routeChanged(.oldDeviceUnavailable, from: active, to: routes.defaultSource))
                active = routes.defaultSource
            }
            for name in routes.inputs.keys.sorted() where last.inputs[name] == nil && name != active {
                events.append(.routeChanged(.newDeviceAvailable, from: active, to: active))
            }
            if let before = last.inputs[active], let now = routes.inputs[active], before.activePort != now.activePort {
                events.append(.routeChanged(.portChanged, from: active, to: active))
            }
        }
        let mutedNow = routes.inputs[active]?.isMuted ?? false
        if !active.isEmpty, mutedNow != isMuted {
            isMuted = mutedNow
            events.append(.inputMuted(mutedNow))
        }
        return (events, active)
    }
}
