import TestSupport
import Testing
import VoiceMemoCore

/// A call's two streams replayed through the alignment: each stream is timed as the server
/// times it, from when its frames were really captured, so every test can say how far apart
/// the two sides of the memo are, not only which steps were taken.
@Suite("Input alignment")
struct InputAlignmentTests {
    static let rate = 48_000.0
    /// Half a frame, in seconds: as close as whole frames can align two streams.
    static let halfFrame = 0.5 / rate
    /// The dead band in frames at 48 kHz: 96.
    static let deadBandFrames = Int((InputAlignment.deadBand * rate).rounded())

    @Test func theMicrophoneIsTheFirstInput() {
        // The position of each input's sums in `CapturedFragment.inputs`.
        #expect(CaptureInput.allCases == [.microphone, .systemAudio])
        #expect(CaptureInput.allCases.map(\.rawValue) == [0, 1])
    }

    @Test func theStreamWhoseAudioBeganEarlierSkipsTheDifference() {
        // The system stream began 12 ms after the microphone's: the microphone's first 576
        // frames have no partner.
        var systemLater = Call(systemLater: 0.012)
        #expect(systemLater.start() == .skip(.microphone, frames: 576))
        #expect(abs(systemLater.misalignment(at: 0)) < Self.halfFrame)

        var systemEarlier = Call(systemLater: -0.012)
        #expect(systemEarlier.start() == .skip(.systemAudio, frames: 576))
        #expect(abs(systemEarlier.misalignment(at: 0)) < Self.halfFrame)

        var together = Call(systemLater: 0.000_01)
        #expect(together.start() == .none, "under half a frame apart is as close as frames get")
    }

    @Test(arguments: [1, 100, 959, 960, 961, 2_400, 48_000])
    func wholeFragmentsOrNotASkipIsACountOfFrames(frames: Int) {
        var systemLater = Call(systemLater: Double(frames) / Self.rate)
        #expect(systemLater.start() == .skip(.microphone, frames: frames))
        #expect(abs(systemLater.misalignment(at: 0)) < Self.halfFrame)

        var systemEarlier = Call(systemLater: -Double(frames) / Self.rate)
        #expect(systemEarlier.start() == .skip(.systemAudio, frames: frames))
        #expect(abs(systemEarlier.misalignment(at: 0)) < Self.halfFrame)
    }

    @Test func whatEachStreamHasReadAndWhenItWasMeasuredDoNotMoveTheStart() {
        // The system began 5 ms (240 frames) later; it has delivered three fragments, the
        // microphone one, and the system was measured 3 ms before the microphone.
        let call = Call(systemLater: 0.005)
        let time = call.systemStart + 2_880 / Self.rate + 0.001
        let microphone = call.timing(of: .microphone, framesRead: 960, at: time + 0.003)
        let system = call.timing(of: .systemAudio, framesRead: 2_880, at: time)
        #expect(system.clock < microphone.clock)
        var alignment = InputAlignment(sampleRate: 48_000)
        #expect(alignment.start(microphone: microphone, system: system) == .skip(.microphone, frames: 240))
    }

    @Test(arguments: [
        // Where the new stream's frame 0 was captured, in frames after the timeline's next
        // microphone frame; frames it had delivered; the step.
        (1_200, 0, AlignmentStep.pad(.systemAudio, frames: 1_200)),
        (-500, 960, .pad(.systemAudio, frames: 460)),
        (-2_000, 960, .skip(.systemAudio, frames: 1_040)),
        (-960, 960, AlignmentStep.none),
    ])
    func aReopenedSystemStreamIsPlacedWhereItsAudioBelongs(beginsAt: Int, framesRead: Int, step: AlignmentStep) {
        // Started with the microphone's first 300 frames skipped; 10 s later the system
        // stream is opened again, its side silent meanwhile.
        var call = Call(systemLater: 300 / Self.rate)
        #expect(call.start() == .skip(.microphone, frames: 300))
        call.read(fragments: 500)
        #expect(call.timelineFrames == 480_000)

        #expect(call.reopenSystem(beginningAt: beginsAt, framesRead: framesRead) == step)
        #expect(abs(call.misalignment(at: call.timelineFrames)) < Self.halfFrame)
        // Refined from scratch after a rejoin, and nothing to refine.
        call.read(fragments: 2_000)
        #expect(call.steps == (step == .none ? [] : [step]))
        #expect(call.worstMisalignment < Self.halfFrame)
    }

    @Test func aStartThrownOffByOneBadPairIsPutRightAfterHalfASecond() {
        // Both began together, but the system's latency was read 8 ms short: its audio
        // seemed to begin 8 ms later.
        var call = Call()
        #expect(call.start(latencyErrors: (0, -0.008)) == .skip(.microphone, frames: 384))
        call.read(fragments: InputAlignment.firstSettlingCorrection - 1)
        #expect(call.steps == [])
        call.read(fragments: 1)
        #expect(call.steps == [.skip(.systemAudio, frames: 384)], "the microphone's skip is not undone")
        #expect(abs(call.misalignment(at: call.timelineFrames)) < Self.halfFrame)
        call.read(fragments: 3_000)
        #expect(call.steps.count == 1)
    }

    @Test(arguments: [0, 20, 22, 24, 25, 70, 74, 75, 77, 79])
    func aMedianIgnoresOneOutlier(pair outlier: Int) {
        // Settling pairs are 0 to 74 (the medians of 20 to 24 and 70 to 74 count), a pair
        // every second after.
        var call = Call(systemLater: 0.002)
        _ = call.start()
        call.latencyErrors = { $0 == outlier ? (0.025, -0.030) : (0, 0) }
        call.read(untilPairs: 85)
        #expect(call.steps == [])
        #expect(call.worstMisalignment < Self.halfFrame)
    }

    @Test func aRejoinTimedFromAStaleMicrophoneIsPutRightAtASecondAndAHalf() {
        // The server changed its graph as the system stream was opened again, and the
        // microphone lost 36 ms of audio then: for its next second, its timing still says its
        // frame 0 came 36 ms earlier than its audio now shows.
        var call = Call(systemLater: 0.004)
        _ = call.start()
        call.read(fragments: 500)
        call.microphoneStart += 0.036
        let rejoined = call.pairs
        call.latencyErrors = { $0 - rejoined < 50 ? (0.036, 0) : (0, 0) }
        #expect(call.reopenSystem(beginningAt: 0, framesRead: 960) != .none, "placed where the stale timing says")
        #expect(abs(call.misalignment(at: call.timelineFrames)) > 0.030)
        call.read(fragments: InputAlignment.settlingPairs)
        #expect(abs(call.misalignment(at: call.timelineFrames)) < Self.halfFrame)
    }

    @Test func aRealShiftIsFollowedAtTheThirdPairThatShowsIt() {
        var call = Call(systemLater: 0.003)
        _ = call.start()
        call.read(untilPairs: 80)
        #expect(call.steps == [])
        // The system stream's queue overflowed: 10 ms of its audio never reached us, so its
        // audio runs 10 ms ahead of the microphone's.
        call.systemStart += 0.010
        call.read(untilPairs: 82)
        #expect(call.steps == [])
        call.read(untilPairs: 83)
        #expect(call.steps == [.pad(.systemAudio, frames: 480)])
        #expect(abs(call.misalignment(at: call.timelineFrames)) < Self.halfFrame)
    }

    @Test func withFreeTimingsALostQuantumIsFollowedWithinThreeFragments() {
        var call = Call(systemLater: 0.003)
        call.alignment.samplesEveryFragment = true
        _ = call.start()
        call.read(fragments: 500)
        #expect(call.steps == [])
        #expect(call.pairs == 500, "a pair every fragment once settled")
        // PipeWire dropped one quantum (1,024 frames) of the microphone's stream: what it
        // delivers next was captured a quantum later, and the system side (the only side
        // that moves) waits as long.
        call.microphoneStart -= 1_024 / InputAlignmentTests.rate
        call.read(fragments: 2)
        #expect(call.steps == [])
        call.read(fragments: 1)
        #expect(call.steps == [.pad(.systemAudio, frames: 1_024)])
        call.read(fragments: 3_000)
        #expect(call.steps.count == 1, "one correction, then the same median holds it")
        #expect(abs(call.misalignment(at: call.timelineFrames)) < Self.halfFrame)
    }

    /// Timings told from deliveries wander by a few milliseconds from one half second to the
    /// next; a pair per fragment follows none of that, which would move the system side (and
    /// break its audio) every half second, and leaves it to the pairs a second apart.
    @Test func withFreeTimingsAWanderWithinFiveMillisecondsWaitsForFivePairsASecondApart() {
        var call = Call(systemLater: 0.003)
        call.alignment.samplesEveryFragment = true
        _ = call.start()
        call.read(fragments: InputAlignment.settlingPairs)
        let settled = call.pairs
        call.latencyErrors = { pair in pair < settled ? (0, 0) : (0, -0.004) }
        call.read(fragments: 4 * 50)
        #expect(call.steps == [], "four seconds of a 4 ms wander: no pair a second apart agrees yet")
        call.read(fragments: 50)
        #expect(call.steps == [.pad(.systemAudio, frames: 192)], "the fifth second's pair")
    }

    @Test func aPairBeforeItIsDueIsIgnored() {
        var call = Call()
        _ = call.start()
        call.read(fragments: InputAlignment.settlingPairs)
        let frames = call.timelineFrames
        let (microphone, system) = call.pair(microphoneFrames: frames, systemFrames: frames, latencyErrors: (0, 0.05))
        #expect(!call.alignment.isSampleDue(at: microphone.clock))
        for _ in 0..<InputAlignment.steadyPairs {
            #expect(call.alignment.sample(microphone: microphone, system: system) == .none)
        }
        #expect(call.alignment.isSampleDue(at: microphone.clock + 1_000_000_000))
        call.read(fragments: 3_000)
        #expect(call.steps == [])
    }

    @Test func oneServerClockNeverMovesAFrameInAnHour() {
        // Every latency off by up to 0.4 ms, the start's too, so no pair is 2 ms off the
        // truth or the start; and one system latency in seven is 15 ms off besides.
        var noise = SeededGenerator(seed: 25)
        let latencyError = { (noise: inout SeededGenerator) in Double.random(in: -0.000_4...0.000_4, using: &noise) }
        let errors = (0..<3_700).map { pair in
            (
                microphone: latencyError(&noise),
                system: latencyError(&noise) + (pair % 7 == 3 ? 0.015 : 0)
            )
        }
        var call = Call(systemLater: 0.017_3)
        _ = call.start(latencyErrors: (latencyError(&noise), latencyError(&noise)))
        call.latencyErrors = { errors[$0] }
        call.read(fragments: 3_600 * 50)
        #expect(call.steps == [])
        #expect(
            call.pairs == InputAlignment.settlingPairs + 3_598, "a second and a half's at the start, then one a second")
        #expect(call.worstMisalignment < InputAlignment.deadBand)
    }

    @Test(arguments: [50.0, -50.0])
    func twoDeviceClocksAreHeldTogetherFromTheSystemSide(ppm: Double) {
        var call = Call(systemLater: 0.004, systemDrift: ppm)
        _ = call.start()
        call.read(fragments: 3_600 * 50)
        // A fast system clock delivers more frames than the timeline takes: its side skips the
        // extra ones; a slow one is padded.
        var moved = 0
        for step in call.steps {
            switch step {
            case .skip(.systemAudio, let frames) where ppm > 0, .pad(.systemAudio, let frames) where ppm < 0:
                #expect(
                    (Self.deadBandFrames...2 * Self.deadBandFrames).contains(frames),
                    "each correction just past the dead band")
                moved += frames
            default:
                Issue.record("\(step) for a system clock \(ppm) ppm off")
            }
        }
        // An hour at 50 ppm is 180 ms, made up a little at a time.
        #expect(call.steps.count >= 50)
        #expect(abs(Double(moved) / Self.rate - 0.18) < 0.005)
        #expect(call.worstMisalignment < 0.005, "within the 5 ms a call's inputs must agree to")
    }
}

/// Two streams of a call, timed as the server times them and read as the pump reads them (a
/// fragment of each per fragment of the memo, a pair after a fragment whenever one is due),
/// with the alignment's steps carried out. It knows when each frame was really captured.
private struct Call {
    static let fragment = 960
    /// How long after a read's last frame was captured the pair is measured.
    static let readLatency = 0.010
    /// Between the microphone's and the system's measurement of a pair.
    static let pairSpacing = 0.000_05

    /// When each stream captured its frame 0, in seconds of the monotonic clock (a day after
    /// boot).
    var microphoneStart = 86_400.0
    var systemStart: Double
    /// The system device's frames per microphone frame.
    var systemClockRatio: Double
    /// Where each stream's frame 0 lies on the timeline, as the steps carried out put it.
    var microphoneOrigin = 0
    var systemOrigin = 0
    /// Fragments of the timeline read.
    var fragments = 0
    /// Pairs given to `sample`.
    var pairs = 0
    /// What the server gets wrong about each stream's latency in each pair (by its number).
    var latencyErrors: (Int) -> (microphone: Double, system: Double) = { _ in (0, 0) }
    var alignment = InputAlignment(sampleRate: 48_000)
    /// Every step carried out after the start.
    var steps: [AlignmentStep] = []
    /// The worst misalignment after a fragment, in seconds.
    var worstMisalignment = 0.0

    var rate: Double { InputAlignmentTests.rate }
    var timelineFrames: Int { fragments * Self.fragment }

    /// A call whose system stream began `systemLater` seconds after the microphone's, with a
    /// clock `systemDrift` parts per million fast.
    init(systemLater: Double = 0, systemDrift: Double = 0) {
        systemStart = microphoneStart + systemLater
        systemClockRatio = 1 + systemDrift / 1_000_000
    }

    /// The timing of `input`'s stream with `framesRead` frames taken, measured at `time`.
    func timing(of input: CaptureInput, framesRead: Int, at time: Double, latencyError: Double = 0) -> StreamTiming {
        let (start, ratio) = input == .microphone ? (microphoneStart, 1.0) : (systemStart, systemClockRatio)
        let captured = (time - start) * rate * ratio
        let latency = (captured - Double(framesRead)) / rate + latencyError
        return StreamTiming(framesRead: framesRead, latency: latency, clock: UInt64((time * 1e9).rounded()))
    }

    /// A pair measured once both streams have captured what they delivered.
    func pair(
        microphoneFrames: Int, systemFrames: Int, latencyErrors errors: (microphone: Double, system: Double) = (0, 0)
    ) -> (microphone: StreamTiming, system: StreamTiming) {
        let delivered = max(
            microphoneStart + Double(microphoneFrames) / rate,
            systemStart + Double(systemFrames) / (rate * systemClockRatio))
        let time = delivered + Self.readLatency
        return (
            timing(of: .microphone, framesRead: microphoneFrames, at: time, latencyError: errors.microphone),
            timing(of: .systemAudio, framesRead: systemFrames, at: time + Self.pairSpacing, latencyError: errors.system)
        )
    }

    /// How much later the system side's audio at timeline frame `position` was captured than
    /// the microphone side's, in seconds.
    func misalignment(at position: Int) -> Double {
        let system = systemStart + Double(position - systemOrigin) / (rate * systemClockRatio)
        let microphone = microphoneStart + Double(position - microphoneOrigin) / rate
        return system - microphone
    }

    /// Starts with the first fragment of each stream read.
    mutating func start(latencyErrors errors: (microphone: Double, system: Double) = (0, 0)) -> AlignmentStep {
        let timings = pair(microphoneFrames: Self.fragment, systemFrames: Self.fragment, latencyErrors: errors)
        let step = alignment.start(microphone: timings.microphone, system: timings.system)
        switch step {
        case .none:
            break
        case .skip(.microphone, let frames):
            microphoneOrigin = -frames
        case .skip(.systemAudio, let frames):
            systemOrigin = -frames
        case .pad:
            Issue.record("a start pads nothing: \(step)")
        }
        return step
    }

    /// Reads `count` fragments of each side.
    mutating func read(fragments count: Int) {
        for _ in 0..<count {
            fragments += 1
            let timings = pair(
                microphoneFrames: timelineFrames - microphoneOrigin, systemFrames: timelineFrames - systemOrigin,
                latencyErrors: latencyErrors(pairs))
            if alignment.isSampleDue(at: timings.microphone.clock) {
                carryOut(alignment.sample(microphone: timings.microphone, system: timings.system))
                pairs += 1
            }
            worstMisalignment = max(worstMisalignment, abs(misalignment(at: timelineFrames)))
        }
    }

    /// Reads fragments until `count` pairs in all were given to `sample`.
    mutating func read(untilPairs count: Int) {
        while pairs < count {
            read(fragments: 1)
        }
    }

    /// Opens the system stream again: its frame 0 captured `offset` frames after the
    /// timeline's next microphone frame, and `framesRead` frames already delivered.
    mutating func reopenSystem(beginningAt offset: Int, framesRead: Int) -> AlignmentStep {
        systemStart = microphoneStart + Double(timelineFrames - microphoneOrigin + offset) / rate
        // Until placed, its next frame would go where the timeline goes on.
        systemOrigin = timelineFrames - framesRead
        let timings = pair(
            microphoneFrames: timelineFrames - microphoneOrigin, systemFrames: framesRead,
            latencyErrors: latencyErrors(pairs))
        let step = alignment.rejoin(
            system: timings.system, microphone: timings.microphone, timelineFrames: timelineFrames)
        carryOut(step)
        return step
    }

    private mutating func carryOut(_ step: AlignmentStep) {
        switch step {
        case .none:
            return
        case .pad(.systemAudio, let frames):
            systemOrigin += frames
        case .skip(.systemAudio, let frames):
            systemOrigin -= frames
        case .pad(.microphone, _), .skip(.microphone, _):
            Issue.record("the microphone never loses or gains a frame after the start: \(step)")
        }
        steps.append(step)
    }
}
