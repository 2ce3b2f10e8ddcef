import Bus
import FoundationEssentials
import VoiceMemoContract
import VoiceMemoCore

/// What the CLI's live views know about the recorder, kept current from its signals and
/// advanced by the local clock in between, so nothing polls the daemon.
struct RecorderStatus {
    var state = RecorderState.idle
    var activeSource = ""
    /// The output a call records as its system audio; empty for a single input.
    var activeOutput = ""
    var channels = 1
    /// `CurrentTime` when it was last read, and when that was.
    private var time = 0.0
    private var timeReadAt = ContinuousClock.now
    /// Per-channel levels from the last `Levels` signal.
    var average: [Double] = []
    var peak: [Double] = []

    init() {}

    /// Takes the values of a `GetAll` or a `PropertiesChanged`.
    mutating func update(with properties: [String: BusValue]) {
        if let state = properties[RecorderMember.state]?.string.flatMap(RecorderState.init(rawValue:)) {
            self.state = state
        }
        if let source = properties[RecorderMember.activeSource]?.string { activeSource = source }
        if let output = properties[RecorderMember.activeOutput]?.string { activeOutput = output }
        if let channels = properties[RecorderMember.channels]?.uint32 { self.channels = Int(channels) }
        if let time = properties[RecorderMember.currentTime]?.double { setTime(time) }
    }

    /// Takes a `Levels` signal.
    mutating func update(levels signal: BusSignal) {
        average = signal.arguments[0].array?.compactMap(\.double) ?? []
        peak = signal.arguments[1].array?.compactMap(\.double) ?? []
        if let time = signal.arguments[2].double { setTime(time) }
    }

    mutating func setTime(_ seconds: Double) {
        time = seconds
        timeReadAt = .now
    }

    /// Seconds recorded now: the last reading plus the time since, while recording.
    var currentTime: Double {
        guard state == .recording else { return time }
        let elapsed = ContinuousClock.now - timeReadAt
        return time + Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The loudest channel's peak on the −60 dB meter scale, 0 … 1.
    var meterValue: Double {
        guard state == .recording, let loudest = peak.max() else { return 0 }
        return MeterTable().value(forDecibels: loudest)
    }

    /// `HH:MM:SS`.
    var clock: String { Status.clock(currentTime) }
}
