import Bus
import FoundationEssentials
import VoiceMemoContract

#if canImport(Glibc)
    import Glibc
#endif

/// `voicememo watch --json`: one JSON object per line in the format waybar's `custom`
/// module reads with `return-type: json`, on every state change and at most twice a
/// second while recording.
struct Watch: Subcommand {
    static let name = "watch"
    static let abstract = "Print the recorder's state as JSON lines for panel applets (waybar)."
    static let usage = "watch --json"

    /// The fields waybar reads.
    struct Line: Codable, Equatable {
        var text: String
        var tooltip: String
        var `class`: String
        var percentage: Int
        var alt: String
    }

    init(_ words: [String]) throws(UsageError) {
        let arguments = try Arguments(words, valued: [], flags: ["json"])
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        guard arguments.has("json") else { throw UsageError("watch needs --json (the only output format so far)") }
    }

    /// The line for `status`, or for a daemon that is not running when `status` is nil.
    static func line(for status: RecorderStatus?) -> Line {
        guard let status else {
            return Line(
                text: "", tooltip: "voicememo is not running", class: "unavailable", percentage: 0, alt: "unavailable")
        }
        // Each glyph is in DejaVu Sans, the font a stock Debian desktop falls back to (U+23F8,
        // the pause sign, is not: it rendered as a missing-glyph box in waybar).
        let symbol: String
        switch status.state {
        case .recording: symbol = "●"
        case .paused: symbol = "❚❚"
        case .scheduled: symbol = "◷"
        case .interrupted: symbol = "⚠"
        case .idle: symbol = "○"
        }
        let isOpen = status.state.hasOpenMemo
        let text = isOpen ? "\(symbol) \(status.clock)" : symbol
        var tooltip = "voicememo: \(status.state.rawValue)"
        if isOpen { tooltip += " \(status.clock)" }
        if !status.activeSource.isEmpty { tooltip += "\nInput: \(status.activeSource)" }
        if !status.activeOutput.isEmpty { tooltip += "\nOutput: \(status.activeOutput) (system audio)" }
        return Line(
            text: text, tooltip: tooltip, class: status.state.rawValue,
            percentage: Int((status.meterValue * 100).rounded()),
            alt: status.state.rawValue)
    }

    func run(_ client: RecorderClient) throws(BusError) {
        setvbuf(standardOutput, nil, _IOLBF, 0)
        let events = try RecorderEvents(client)
        var status = try? Self.fetch(client)
        var printed: Line?
        var lastPrint = ContinuousClock.now
        func emit(force: Bool) {
            let line = Self.line(for: status)
            guard force || line != printed else { return }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try! encoder.encode(line), as: UTF8.self))
            printed = line
            lastPrint = .now
        }
        emit(force: true)
        while true {
            let isRecording = status?.state == .recording
            let event = try events.next(timeout: isRecording ? .milliseconds(100) : .seconds(3600))
            switch event {
            case .propertiesChanged(let changed):
                let stateChanged =
                    changed[RecorderMember.state] != nil
                    && changed[RecorderMember.state]?.string != status?.state.rawValue
                status?.update(with: changed)
                if stateChanged, let fresh = try? Self.fetch(client) { status = fresh }
                if stateChanged { emit(force: true) }
            case .levels(let signal):
                status?.update(levels: signal)
            case .daemonChanged(let isRunning):
                status = isRunning ? try? Self.fetch(client) : nil
                emit(force: true)
            case .other, nil:
                break
            }
            // While recording the clock moves: at most two lines a second.
            if status?.state == .recording, ContinuousClock.now - lastPrint >= .milliseconds(500) { emit(force: false) }
        }
    }

    /// The recorder's current properties.
    static func fetch(_ client: RecorderClient) throws(BusError) -> RecorderStatus {
        var status = RecorderStatus()
        status.update(with: try client.properties())
        return status
    }
}
