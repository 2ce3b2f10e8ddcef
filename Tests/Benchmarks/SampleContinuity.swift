import IntegrationSupport

/// What the continuity recording's file holds against what the source produced meanwhile,
/// with the bounds every run asserts, the smoke pass in `make test` included: a recorder
/// that drops or repeats a fragment fails them, a correct one on a loaded machine does not.
struct SampleContinuity {
    /// The most one capture cycle holds: a 20 ms fragment on PulseAudio (960 samples), a
    /// graph cycle on the fixture's PipeWire (1024), which pipewire-pulse can replay at the
    /// start of a stream (see "PipeWire" in voicememod(1)).
    static let cycle = 1024

    /// The samples in the file.
    let written: Int
    /// The samples the source produced while the recording surely ran (`Record` reply →
    /// `Stop` call) and at most (`Record` call → `Stop` reply).
    let produced: ClosedRange<Double>
    /// The stretch of the file equal to the stimulus sample for sample, joined only across
    /// the source's own dropouts (digital silence); a lost or repeated sample ends it.
    let exactChain: Range<Int>

    /// Measures `samples`, recorded over `span`, against the stimulus.
    init(samples: [Int16], span: RecordingSpan) {
        written = samples.count
        let rate = Double(Stimulus.sampleRate)
        produced = span.seconds.lowerBound * rate...span.seconds.upperBound * rate
        exactChain = Self.longestChain(in: samples)
    }

    /// Samples before the exact chain: audio from before the recording (replayed) or silence.
    var head: Int { exactChain.lowerBound }
    /// Samples after the exact chain.
    var tail: Int { written - exactChain.upperBound }

    /// What is wrong with the file, one line each; empty for a correct recording: the
    /// samples written lie within what was produced, give or take one cycle at each end,
    /// and the exact chain covers all but one cycle at either end.
    var violations: [String] {
        let cycle = Double(Self.cycle)
        var found: [String] = []
        if Double(written) < produced.lowerBound - cycle || Double(written) > produced.upperBound + cycle {
            found.append(
                "\(written) samples written, \(Int(produced.lowerBound))…\(Int(produced.upperBound)) produced ± \(Self.cycle)"
            )
        }
        if head > Self.cycle { found.append("\(head) samples before the bit-exact tone (at most \(Self.cycle))") }
        if tail > Self.cycle { found.append("\(tail) samples after the bit-exact tone (at most \(Self.cycle))") }
        return found
    }

    /// The longest chain of `AudioAnalysis.alignedExactRuns` joined only by digital silence
    /// (as `AudioAnalysis.exactSamplesAcrossSourceDropouts` counts it), as a range of `samples`.
    private static func longestChain(in samples: [Int16]) -> Range<Int> {
        var longest = 0..<0
        var chain = 0..<0
        for run in AudioAnalysis.alignedExactRuns(recorded: samples, period: Stimulus.period) {
            let gap = chain.upperBound..<run.lowerBound
            // Adjacent runs are a jump in the tone, not a dropout: only a gap of silence joins.
            let joins = !chain.isEmpty && !gap.isEmpty && samples[gap].allSatisfy { $0 == 0 }
            chain = joins ? chain.lowerBound..<run.upperBound : run
            if chain.count > longest.count { longest = chain }
        }
        return longest
    }
}
