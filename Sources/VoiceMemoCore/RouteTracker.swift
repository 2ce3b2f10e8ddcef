/// The audio server's inputs as the route rules see them.
public struct InputRoutes: Equatable, Sendable {
    /// The server's default input.
    public var defaultSource: String
    /// Each input by name.
    public var inputs: [String: Input]
    /// The source the server has the recording's capture stream on; nil when it lists none.
    public var capturing: String?

    public struct Input: Equatable, Sendable {
        public var isMuted: Bool
        public var activePort: String
        /// A monitor of an output rather than a real input: no stand-in for a lost microphone.
        public var isMonitor: Bool

        public init(isMuted: Bool, activePort: String, isMonitor: Bool = false) {
            self.isMuted = isMuted
            self.activePort = activePort
            self.isMonitor = isMonitor
        }
    }

    public init(defaultSource: String, inputs: [String: Input], capturing: String? = nil) {
        self.defaultSource = defaultSource
        self.inputs = inputs
        self.capturing = capturing
    }
}

/// The open recording as the route rules see it.
public struct RecordingRoute: Equatable, Sendable {
    /// The source known to feed the recording.
    public var active: String
    /// The source the recording was asked to record from; nil when it follows the default.
    public var pinnedSource: String?
    /// Whether it waits, interrupted, for its input to come back.
    public var isWaitingForInput: Bool

    public init(active: String, pinnedSource: String? = nil, isWaitingForInput: Bool = false) {
        self.active = active
        self.pinnedSource = pinnedSource
        self.isWaitingForInput = isWaitingForInput
    }
}

/// What a change on the server means for the open recording.
public enum RouteEvent: Equatable, Sendable {
    case routeChanged(RouteChangeReason, from: String, to: String)
    /// The server moved the stream for a reason the contract does not name (a mixer
    /// application did): `ActiveSource` follows, without a route change.
    case moved(to: String)
    /// The input feeding the recording was muted (true) or unmuted.
    case inputMuted(Bool)
    /// The input is gone and nothing may stand in for it: the recording waits for it.
    case inputLost
    /// An input fit for the waiting recording is there: its stream should be opened again.
    case inputReturned
}

/// Turns successive views of the server's inputs into the contract's route changes and
/// device and mute interruptions for the recording, AVAudioSession-style. Pure, so recorded
/// event sequences can be replayed in tests (virtual sources have no ports to change live).
public struct RouteTracker: Sendable {
    private var last: InputRoutes?
    private var isMuted = false
    private var hasAskedForReturn = false
    /// The source that vanished under the recording while the server has yet to pick a fallback.
    private var vanished: (name: String, isMonitor: Bool)?

    public init() {}

    /// Forgets the mute state (a new recording starts from scratch).
    public mutating func reset() {
        isMuted = false
        hasAskedForReturn = false
        vanished = nil
    }

    /// Whether the recording's source vanished and the server has not yet settled on a
    /// default (PipeWire's session manager picks one a moment later): `update` waits for
    /// it, and `stopWaitingForFallback()` ends the wait.
    public var isWaitingForFallback: Bool { vanished != nil }

    /// The server never settled on a fallback: the input counts as lost.
    public mutating func stopWaitingForFallback() -> [RouteEvent] {
        guard vanished != nil else { return [] }
        vanished = nil
        return [.inputLost]
    }

    /// Forgets what the server looked like (it went away; a restarted server is compared
    /// with nothing, since its reconnection is reported as `server-restarted`).
    public mutating func forgetServer() { last = nil }

    /// The events `routes` brings for `recording` (nil when none is open).
    public mutating func update(_ routes: InputRoutes, recording: RecordingRoute?) -> [RouteEvent] {
        defer { last = routes }
        guard let recording, !recording.active.isEmpty || recording.isWaitingForInput else { return [] }
        if recording.isWaitingForInput {
            // Ask once per return; the capture path reports the route the stream then takes.
            let isBack = fitInput(for: recording, in: routes, afterLosingMonitor: false) != nil
            defer { hasAskedForReturn = isBack }
            return isBack && !hasAskedForReturn ? [.inputReturned] : []
        }
        hasAskedForReturn = false
        var events: [RouteEvent] = []
        var active = recording.active
        if let last {
            if let pinned = recording.pinnedSource {
                // A pinned recording never records from a stand-in.
                if routes.inputs[pinned] == nil && last.inputs[pinned] != nil { return [.inputLost] }
            } else if routes.inputs[active] == nil, let lost = last.inputs[active] {
                vanished = (active, lost.isMonitor)
            }
            if let lost = vanished {
                // The source went away: the server moves the stream to its fallback, if it has one fit.
                if let fallback = fitInput(for: recording, in: routes, afterLosingMonitor: lost.isMonitor) {
                    vanished = nil
                    events.append(.routeChanged(.oldDeviceUnavailable, from: lost.name, to: fallback))
                    active = fallback
                } else if routes.inputs[routes.defaultSource] != nil
                    || !routes.inputs.values.contains(where: { !$0.isMonitor })
                {
                    // Settled on nothing fit (a monitor), or nothing fit is left at all.
                    vanished = nil
                    return [.inputLost]
                } else {
                    return []
                }
            } else if recording.pinnedSource == nil, routes.defaultSource != last.defaultSource,
                routes.defaultSource != active,
                routes.inputs[routes.defaultSource] != nil
            {
                // Both servers move a stream that follows the default (`needsReopen` checks).
                events.append(.routeChanged(.defaultChanged, from: active, to: routes.defaultSource))
                active = routes.defaultSource
            }
            if let capturing = routes.capturing, capturing != last.capturing, capturing != active,
                routes.inputs[capturing] != nil, events.isEmpty
            {
                events.append(.moved(to: capturing))
                active = capturing
            }
            for name in routes.inputs.keys.sorted() where last.inputs[name] == nil && name != active {
                events.append(.routeChanged(.newDeviceAvailable, from: active, to: active))
            }
            if let before = last.inputs[active], let now = routes.inputs[active], before.activePort != now.activePort {
                events.append(.routeChanged(.portChanged, from: active, to: active))
            }
        } else if let capturing = routes.capturing, capturing != active, routes.inputs[capturing] != nil {
            // A first view (a restarted server): nothing to compare with, but the stream may
            // already be elsewhere than the recording was told when it reconnected.
            events.append(.moved(to: capturing))
            active = capturing
        }
        let mutedNow = routes.inputs[active]?.isMuted ?? false
        if mutedNow != isMuted {
            isMuted = mutedNow
            events.append(.inputMuted(mutedNow))
        }
        return events
    }

    /// Whether the server left a recording that follows the default on another source than
    /// the default it announced: then the stream must be opened again to follow it.
    public func needsReopen(_ recording: RecordingRoute) -> Bool {
        guard let last, recording.pinnedSource == nil, !recording.isWaitingForInput, let capturing = last.capturing
        else {
            return false
        }
        return recording.active == last.defaultSource && capturing != last.defaultSource
    }

    /// Where `recording` can go on: its pinned source, or else the source the server moved
    /// it to (or the default) unless that is a monitor standing in for a lost real input.
    private func fitInput(for recording: RecordingRoute, in routes: InputRoutes, afterLosingMonitor: Bool) -> String? {
        if let pinned = recording.pinnedSource { return routes.inputs[pinned] != nil ? pinned : nil }
        let candidates = [routes.capturing, routes.defaultSource].compactMap { $0 }
        return candidates.first { name in
            guard let input = routes.inputs[name] else { return false }
            return !input.isMonitor || afterLosingMonitor
        }
    }
}
