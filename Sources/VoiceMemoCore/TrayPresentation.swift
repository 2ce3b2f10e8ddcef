/// What the tray item shows for a recorder state, and which of its menu actions apply:
/// the rules behind the StatusNotifierItem and its menu, free of D-Bus.
public enum TrayPresentation {
    /// The StatusNotifierItem `Status` values.
    public enum Status: String, Sendable {
        case passive = "Passive"
        case active = "Active"
        case needsAttention = "NeedsAttention"
    }

    /// The recorder actions the menu offers (labelled by the daemon with the contract's
    /// names for them, but for a call's).
    public enum Action: CaseIterable, Sendable {
        case record
        /// Record with system audio: the microphone and what the computer plays.
        case recordCall
        case pause
        case resume
        case stop
        case cancel
    }

    /// What the item looks like in one state.
    public struct Appearance: Equatable, Sendable {
        public var status: Status
        /// A name from the shipped hicolor icons (`data/icons`).
        public var iconName: String
        /// The tooltip's first line.
        public var tooltipTitle: String
        /// The tooltip's further lines: the input (a call's output too) and the memo's title.
        public var tooltipBody: String
    }

    /// Idle is `Active`, not `Passive`: the item is how a recording is started with a click,
    /// and hosts hide passive items (waybar unless `show-passive-items`, Ubuntu's
    /// AppIndicator extension entirely, KDE behind its expander).
    public static func status(of state: RecorderState) -> Status {
        state == .interrupted ? .needsAttention : .active
    }

    /// The icon for `state`: `voicememo-<state>`.
    public static func iconName(of state: RecorderState) -> String { "voicememo-\(state.rawValue)" }

    /// The item's look; `time` is the seconds recorded, `input` the live input's name,
    /// `output` the output a call records as system audio, and `title` the open memo's title
    /// (any may be empty).
    public static func appearance(
        state: RecorderState, time: Double, input: String, output: String = "", title: String
    ) -> Appearance {
        let heading: String
        switch state {
        case .idle: heading = "Voice memos: idle"
        case .scheduled: heading = "Voice memos: recording scheduled"
        case .recording: heading = "Recording \(clock(time))"
        case .paused: heading = "Paused at \(clock(time))"
        case .interrupted: heading = "Interrupted at \(clock(time))"
        }
        var lines: [String] = []
        if !input.isEmpty { lines.append("Input: \(input)") }
        if !output.isEmpty { lines.append("Output: \(output) (system audio)") }
        if !title.isEmpty, state != .idle { lines.append("Memo: \(title)") }
        if state == .idle { lines.append("Click to record") }
        return Appearance(
            status: status(of: state), iconName: iconName(of: state), tooltipTitle: heading,
            tooltipBody: lines.joined(separator: "\n"))
    }

    /// Whether `action` does something in `state` (the menu greys the others out).
    public static func isEnabled(_ action: Action, in state: RecorderState) -> Bool {
        switch action {
        case .record, .recordCall: state == .idle
        case .pause: state == .recording
        case .resume: state == .paused
        case .stop, .cancel: state != .idle
        }
    }

    /// Whether the tooltip changes by itself in `state` (its clock moves), so it needs a
    /// refresh once a second; never in the other states, which stay without a timer.
    public static func tooltipTicks(in state: RecorderState) -> Bool { state == .recording }

    /// The running clock: `M:SS`, or `H:MM:SS` from an hour on.
    public static func clock(_ seconds: Double) -> String { ClockText.text(seconds) }
}
