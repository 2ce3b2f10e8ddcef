/// A stream's timing after a read: enough to tell when the stream's frame 0 was captured.
///
/// The latency is what the stream had captured and not yet delivered, so its next frame was
/// captured at `clock − latency`, and its frame 0 at `clock − latency − framesRead / rate`.
/// (The PulseAudio back end tells the latency from its reads' deliveries: see
/// `DeliveryTiming`.)
public struct StreamTiming: Equatable, Sendable {
    /// Frames taken from the stream since it was opened, skipped ones included (padding adds
    /// none: that silence is not the stream's).
    public var framesRead: Int
    /// Seconds of audio captured and not yet read when it was measured.
    public var latency: Double
    /// When it was measured, on the monotonic clock, in nanoseconds.
    public var clock: UInt64

    public init(framesRead: Int, latency: Double, clock: UInt64) {
        self.framesRead = framesRead
        self.latency = latency
        self.clock = clock
    }
}

/// What keeps a call's inputs aligned, carried out on one input before its next frame.
public enum AlignmentStep: Equatable, Sendable {
    /// Nothing to do.
    case none
    /// Read the input's next `frames` frames and drop them: its audio began, or ran, early.
    case skip(CaptureInput, frames: Int)
    /// Put `frames` frames of silence on the input's side before its next frame: its audio
    /// belongs later on the timeline.
    case pad(CaptureInput, frames: Int)
}

/// Keeps the two inputs of a call aligned on the memo's timeline, from timing pairs of their
/// streams (the microphone's `StreamTiming` and the system audio's, taken back to back).
///
/// The timeline is the frames the capture produces, one fragment of each input per fragment
/// of the memo (paused or not), from 0 at the start. The microphone is its clock: after the
/// start every step is on the system side, so the microphone never loses a frame.
///
/// A pair tells where the system stream's frame 0 belongs on the timeline: where the
/// microphone's frame 0 lies, plus how much later (in frames) the system's was captured.
/// Where the system's frame 0 lies is known from the steps taken; the difference is the
/// error a step corrects.
/// - `start`: the stream whose audio began earlier skips the difference, so both sides are
///   real audio from frame 0. More than a fragment or less, it is just a count of frames.
/// - `rejoin`: a system stream opened again mid-memo is padded or skipped to where its
///   audio belongs.
/// - `sample`: one pair can be off by a hiccup between its two measurements, and a new
///   stream's timing is rough until it has delivered for a while, so after a start or a
///   rejoin a pair per fragment gives a correction at half a second and another at a second
///   and a half, each from the median of the last five pairs (the second because the other
///   stream's timing may still be from before it lost audio as the server changed its graph);
///   then a pair every second gives one from the median of the last five. A median ignores
///   the odd late measurement, and nothing is corrected inside a dead band of 2 ms, so the
///   jitter of timings on one server clock never moves a frame, while a stream that lost
///   audio (a stall, a server reconfiguring its graph as the default output changes) or two
///   device clocks drifting apart (a USB microphone, a sound card's output) are followed
///   within seconds.
/// - Where timings cost nothing (`samplesEveryFragment`), a pair per fragment also watches
///   for a jump: when the median of the last five is out by more than the 5 ms the inputs
///   must agree to (a lost quantum is 21 ms), it is corrected at once, and the pairs a
///   second apart start afresh from there. A smaller error waits for those: timings told
///   from deliveries wander by a few milliseconds from one half second to the next, and
///   following each wander moved the system side, and broke its audio, every half second.
public struct InputAlignment: Sendable {
    /// Pairs, one per fragment, after a start or a rejoin (a second and a half); the median
    /// of the last `steadyPairs` gives a correction after all of them, and one after the
    /// first `firstSettlingCorrection` (half a second).
    public static let settlingPairs = 75
    public static let firstSettlingCorrection = 25
    /// Seconds between the pairs after those. Where timings cost nothing (PipeWire, see
    /// `AudioCapture.isTimingFree`), every fragment also gives one that watches for a jump.
    public static let sampleInterval = 1.0
    /// The pairs (the newest) whose median gives each correction: one outlier among them
    /// moves nothing, a real shift is followed within three pairs.
    public static let steadyPairs = 5
    /// The error, in seconds, below which nothing is corrected: above a pair's jitter, well
    /// within the 5 ms the inputs must agree to.
    public static let deadBand = 0.002
    /// The error, in seconds, that a pair per fragment corrects at once (see
    /// `samplesEveryFragment`): the most the inputs may disagree by.
    public static let jump = 0.005

    private let sampleRate: Double
    private let deadBandFrames: Double
    private let jumpFrames: Double
    private let sampleIntervalNanoseconds: Int64
    /// Where each stream's frame 0 lies on the timeline: the microphone's is set by `start`
    /// (or found again by `rejoin`), the system's moves with each step on its side.
    private var microphoneOrigin = 0
    private var systemOrigin = 0
    private var refinement: Refinement = .settling(estimates: [])

    /// Where the refinement of the system side's place stands. Each estimate is where a pair
    /// put the system stream's frame 0 on the timeline: it stays true across corrections,
    /// which move only where the frame lies.
    private enum Refinement {
        /// The first pairs of a stream, one per fragment.
        case settling(estimates: [Double])
        /// A pair every `sampleInterval`; `lastClock` is when the last one was measured.
        /// `recent` holds the last pairs of every fragment, when those are taken.
        case steady(estimates: [Double], lastClock: UInt64, recent: [Double])
    }

    /// Alignment for streams of `sampleRate` frames per second.
    public init(sampleRate: UInt32) {
        precondition(sampleRate > 0, "a stream has a sample rate")
        self.sampleRate = Double(sampleRate)
        deadBandFrames = Self.deadBand * Double(sampleRate)
        jumpFrames = Self.jump * Double(sampleRate)
        sampleIntervalNanoseconds = Int64(Self.sampleInterval * 1e9)
    }

    /// The step that starts the memo with both streams open and their first fragment read:
    /// skip the leading frames of the one whose audio began earlier, by the difference
    /// `Δ = round((S_sys − S_mic) · rate)` of their frame 0's capture times (a positive `Δ`:
    /// the microphone began earlier).
    public mutating func start(microphone: StreamTiming, system: StreamTiming) -> AlignmentStep {
        let delta = Int(offset(microphone: microphone, system: system).rounded())
        refinement = .settling(estimates: [])
        if delta >= 0 {
            microphoneOrigin = -delta
            systemOrigin = 0
            return delta == 0 ? .none : .skip(.microphone, frames: delta)
        }
        microphoneOrigin = 0
        systemOrigin = delta
        return .skip(.systemAudio, frames: -delta)
    }

    /// The step that places a system stream opened again mid-memo, whose next frame would
    /// go at `timelineFrames` (the timeline so far): pad its side with the silence before
    /// where its audio belongs, or skip what it holds from before that.
    ///
    /// The pair is taken between fragments, when the microphone's next frame also goes at
    /// `timelineFrames`; that finds the microphone's place afresh, whatever happened to it
    /// since the start. The place is taken to the nearest frame, without a dead band: the
    /// new stream has no place yet to keep, and `sample` refines it as after a start.
    public mutating func rejoin(
        system: StreamTiming, microphone: StreamTiming, timelineFrames: Int
    ) -> AlignmentStep {
        microphoneOrigin = timelineFrames - microphone.framesRead
        systemOrigin = timelineFrames - system.framesRead
        refinement = .settling(estimates: [])
        let error = systemFrameZero(microphone: microphone, system: system) - Double(systemOrigin)
        return moveSystem(by: Int(error.rounded()))
    }

    /// Whether a pair is taken every fragment once settled, besides one every
    /// `sampleInterval`, to follow a jump at once: for streams whose timings cost nothing to
    /// take.
    public var samplesEveryFragment = false

    /// Whether `sample` would use a pair measured at `clock`: when it would not, the capture
    /// can spare itself the two measurements.
    public func isSampleDue(at clock: UInt64) -> Bool {
        switch refinement {
        case .settling:
            return true
        case .steady(_, let lastClock, _):
            return samplesEveryFragment || isIntervalOver(since: lastClock, at: clock)
        }
    }

    private func isIntervalOver(since lastClock: UInt64, at clock: UInt64) -> Bool {
        Int64(bitPattern: clock &- lastClock) >= sampleIntervalNanoseconds
    }

    /// The step, on the system side only, that a pair taken after a fragment calls for: none
    /// until enough pairs give a median, none inside the dead band, else one that moves the
    /// system side by the median's error, to the nearest frame (never further: it corrects
    /// what was measured, it does not guess at a drift to come). A pair that comes before it
    /// is due (`isSampleDue`) is ignored.
    public mutating func sample(microphone: StreamTiming, system: StreamTiming) -> AlignmentStep {
        guard isSampleDue(at: microphone.clock) else { return .none }
        let estimate = systemFrameZero(microphone: microphone, system: system)
        switch refinement {
        case .settling(var estimates):
            estimates.append(estimate)
            guard estimates.count == Self.settlingPairs else {
                refinement = .settling(estimates: estimates)
                guard estimates.count == Self.firstSettlingCorrection else { return .none }
                return correct(toward: Self.median(estimates.suffix(Self.steadyPairs)))
            }
            // The next pairs start afresh: these came one per fragment, not one a second.
            refinement = .steady(estimates: [], lastClock: microphone.clock, recent: [])
            return correct(toward: Self.median(estimates.suffix(Self.steadyPairs)))
        case .steady(var estimates, let lastClock, var recent):
            if samplesEveryFragment {
                Self.keep(estimate, in: &recent)
                let error = recent.count == Self.steadyPairs ? Self.median(recent) - Double(systemOrigin) : 0
                if abs(error) > jumpFrames {
                    // The pairs a second apart are from before the jump: they would move it back.
                    refinement = .steady(estimates: [], lastClock: microphone.clock, recent: [])
                    return moveSystem(by: Int(error.rounded()))
                }
                guard isIntervalOver(since: lastClock, at: microphone.clock) else {
                    refinement = .steady(estimates: estimates, lastClock: lastClock, recent: recent)
                    return .none
                }
            }
            Self.keep(estimate, in: &estimates)
            refinement = .steady(estimates: estimates, lastClock: microphone.clock, recent: recent)
            guard estimates.count == Self.steadyPairs else { return .none }
            return correct(toward: Self.median(estimates))
        }
    }

    /// Appends `estimate` to `estimates`, keeping the newest `steadyPairs`.
    private static func keep(_ estimate: Double, in estimates: inout [Double]) {
        estimates.append(estimate)
        if estimates.count > steadyPairs {
            estimates.removeFirst()
        }
    }

    /// How many frames after the microphone's frame 0 the system's frame 0 was captured.
    private func offset(microphone: StreamTiming, system: StreamTiming) -> Double {
        // The clocks' difference first: nanoseconds of uptime lose precision as a Double.
        let clocks = Double(Int64(bitPattern: system.clock &- microphone.clock)) / 1e9
        let frames = Double(system.framesRead - microphone.framesRead)
        return (clocks - (system.latency - microphone.latency)) * sampleRate - frames
    }

    /// Where a pair puts the system stream's frame 0 on the timeline.
    private func systemFrameZero(microphone: StreamTiming, system: StreamTiming) -> Double {
        Double(microphoneOrigin) + offset(microphone: microphone, system: system)
    }

    /// The step that puts the system's frame 0 at `estimate`, if that is past the dead band.
    private mutating func correct(toward estimate: Double) -> AlignmentStep {
        let error = estimate - Double(systemOrigin)
        guard abs(error) >= deadBandFrames else { return .none }
        return moveSystem(by: Int(error.rounded()))
    }

    /// Moves the system side's audio `frames` later on the timeline (earlier when negative).
    private mutating func moveSystem(by frames: Int) -> AlignmentStep {
        systemOrigin += frames
        if frames > 0 {
            return .pad(.systemAudio, frames: frames)
        }
        return frames < 0 ? .skip(.systemAudio, frames: -frames) : .none
    }

    private static func median(_ values: some Collection<Double>) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
