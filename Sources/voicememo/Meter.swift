import Bus
import FoundationEssentials
import VoiceMemoContract
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// `voicememo meter`: a live LED level meter in the terminal, following the daemon's
/// `Levels` signals; exits on Ctrl-C or when the recording stops.
struct Meter: Subcommand {
    static let name = "meter"
    static let abstract = "Show a live level meter of the recording (Ctrl-C to quit)."
    static let usage = "meter"
    /// Segments per channel bar, as on a hardware LED meter.
    static let segments = 20

    init(_ words: [String]) throws(UsageError) {
        if let extra = words.first { throw UsageError("meter takes no arguments; got '\(extra)'") }
    }

    /// One channel's bar: `segments` cells, lit up to `value`, with the held peak lit too.
    /// Green below 0.5, yellow below 0.8, red above (ANSI colours).
    static func bar(value: Double, heldPeak: Double, cellWidth: Int) -> String {
        var bar = ""
        let lit = Int((value * Double(segments)).rounded())
        let peakCell = Int((heldPeak * Double(segments)).rounded()) - 1
        for cell in 0..<segments {
            let position = Double(cell + 1) / Double(segments)
            let colour = position <= 0.5 ? "32" : position <= 0.8 ? "33" : "31"
            let on = cell < lit || cell == peakCell
            bar +=
                on
                ? "\u{1B}[\(colour)m" + String(repeating: "█", count: cellWidth)
                : "\u{1B}[90m" + String(repeating: "·", count: cellWidth)
        }
        return bar + "\u{1B}[0m"
    }

    /// The terminal's width in columns (80 when it cannot be told; `COLUMNS` is believed up
    /// to what a terminal can have).
    static var terminalWidth: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        let columns = getenv("COLUMNS").flatMap { Int(String(cString: $0)) } ?? 80
        return (1...Int(UInt16.max)).contains(columns) ? columns : 80
    }

    func run(_ client: RecorderClient) throws(BusError) {
        let events = try RecorderEvents(client)
        var status = try Watch.fetch(client)
        // Levels for as long as this connection lives: however the meter ends (even killed),
        // the daemon stops sending them, and the MeteringEnabled setting is never touched.
        try client.call(RecorderMember.watchLevels)

        Interrupt.install()
        let table = MeterTable()
        var heldPeaks: [(value: Double, until: ContinuousClock.Instant)] = []
        var drawnLines = 0
        var sawRecording = status.state != .idle
        print("\u{1B}[?25l", terminator: "")  // hide the cursor while drawing
        defer { print("\u{1B}[?25h") }
        while !Interrupt.isRequested {
            switch try events.next(timeout: .milliseconds(100)) {
            case .propertiesChanged(let changed):
                status.update(with: changed)
                if changed[RecorderMember.state] != nil, let fresh = try? Watch.fetch(client) { status = fresh }
            case .levels(let signal):
                status.update(levels: signal)
            case .daemonChanged(isRunning: false):
                return
            case .daemonChanged, .other, nil:
                break
            }
            if status.state != .idle { sawRecording = true }
            if sawRecording && status.state == .idle { break }

            let now = ContinuousClock.now
            let values = (0..<max(status.channels, status.peak.count)).map { channel in
                (
                    average: table.value(forDecibels: status.average[safe: channel] ?? Levels.floor),
                    peak: table.value(forDecibels: status.peak[safe: channel] ?? Levels.floor)
                )
            }
            if heldPeaks.count != values.count { heldPeaks = values.map { ($0.peak, now) } }
            for (channel, value) in values.enumerated()
            where value.peak >= heldPeaks[channel].value || now > heldPeaks[channel].until {
                heldPeaks[channel] = (value.peak, now + .seconds(1))
            }
            let cellWidth = max(1, (Self.terminalWidth - 4) / Self.segments)
            var lines = [
                sawRecording ? "\(Watch.line(for: status).text)  \(status.activeSource)" : "○ waiting for a recording…"
            ]
            for (channel, value) in values.enumerated() {
                let label = values.count == 2 ? (channel == 0 ? "L " : "R ") : "  "
                lines.append(
                    label + Self.bar(value: value.average, heldPeak: heldPeaks[channel].value, cellWidth: cellWidth))
            }
            if drawnLines > 0 { print("\u{1B}[\(drawnLines)F", terminator: "") }
            print(lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n"))
            drawnLines = lines.count
            fflush(standardOutput)
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// Ctrl-C for a loop that must clean up the terminal: the handler only sets a flag.
enum Interrupt {
    /// A `sig_atomic_t` the handlers only set and the loop only reads: the one kind of shared
    /// variable C makes safe between a signal handler and the program.
    nonisolated(unsafe) private static var requested: sig_atomic_t = 0

    static func install() {
        signal(SIGINT) { _ in Interrupt.requested = 1 }
        signal(SIGTERM) { _ in Interrupt.requested = 1 }
    }

    static var isRequested: Bool { requested != 0 }
}
