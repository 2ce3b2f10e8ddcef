/// How long a recording waits on its capture stream before it acts without it.
///
/// A read that is late is not a lost input. Reads of a microphone complete every 20 ms, but
/// PulseAudio's `module-sine-source` hands out audio in 2 s blocks, and pipe, network and
/// tunnel sources deliver in bursts by design; a loaded machine can stall for a second. Only
/// the server's word (the source is gone, the stream moved to a monitor) is quick evidence
/// of a loss; waiting is evidence only after longer than any working input stays silent.
public struct CaptureTimeouts: Equatable, Sendable {
    /// A read that has waited this long, with no word from the server, means the input is
    /// gone (PipeWire leaves a read waiting forever when the last source vanishes unseen):
    /// the recording is interrupted with `device-lost`. Far above any input's burst.
    public var stall: Double
    /// How long `Stop`, giving up and a sync (before sleep) wait for the read in progress
    /// before they take the file from it, and `Record` for the first audio: a fragment
    /// normally completes in 21 ms, and a caller must be answered in well under a second even
    /// when the input is late.
    public var readGrace: Double

    public init(stall: Double, readGrace: Double) {
        self.stall = stall
        self.readGrace = readGrace
    }

    /// The daemon's: three times the slowest burst seen (module-sine-source's 2 s).
    public static let standard = CaptureTimeouts(stall: 6, readGrace: 0.5)

    /// How often a running recording checks for a stalled read: a third of `stall`, so a
    /// stall is declared within 1⅓ × `stall` and the check costs a wake-up every 2 s.
    package var stallCheckInterval: Double { stall / 3 }
}

extension CaptureTimeouts {
    /// What a read that has waited `seconds` means.
    public enum ReadWait: Equatable, Sendable {
        /// Reads of a working input complete within this; a stop or sync waits for it.
        case onTime
        /// Late beyond the grace: a stop, sync or `Record`'s answer no longer waits for it.
        case late
        /// Stalled: the input is gone (`stallLoss`).
        case stalled
    }

    /// Judges a read in progress by how long it has waited.
    public func judge(readWaiting seconds: Double) -> ReadWait {
        if seconds > stall { return .stalled }
        return seconds >= readGrace ? .late : .onTime
    }

    /// The loss a stalled read declares.
    public var stallLoss: RecorderError {
        .deviceLost("no audio has come from the input for \(stall) s")
    }
}
