import Dispatch
import Synchronization
import VoiceMemoCore

/// What a recording reads each fragment from: its input alone, read straight into the memo's
/// buffer, or a call's two inputs, the microphone and what the computer plays, aligned on one
/// timeline and mixed into it.
///
/// Owned by the capture thread in charge, like the policy. In a call the microphone is the
/// clock: it never loses a frame. The system side is read right after it (in steady state
/// the same server cycle has filled both), padded or skipped as `InputAlignment` says, and
/// filled with silence while it is lost, exactly one fragment per fragment of the microphone,
/// so the timeline stays true; it is opened again with `ReconnectBackoff`'s pauses.
final class CaptureSet {
    /// What happened to one input of a call, for the pipeline to report.
    enum InputEvent {
        case lost(CaptureInput, RecorderError)
        case back(CaptureInput, name: String)
    }

    /// The input the recording was asked for.
    let microphone: AudioCapture
    private let call: Call?

    /// A single input.
    init(microphone: AudioCapture) {
        self.microphone = microphone
        call = nil
    }

    /// A call: `system` is open (nil: lost, to be opened again by `openSystemAudio`).
    init(
        microphone: AudioCapture, system: AudioCapture?, request: RecordingRequest, framesPerRead: Int,
        openSystemAudio: @escaping () throws(RecorderError) -> AudioCapture
    ) {
        self.microphone = microphone
        call = Call(
            system: system, request: request, framesPerRead: framesPerRead, openSystemAudio: openSystemAudio)
    }

    /// The output whose audio the call records; nil for a single input or while it is lost.
    var systemAudioName: String? { call?.system?.sourceName }

    /// Reads the next fragment of the memo into `slot` and measures it. A failure of the
    /// microphone is thrown (the capture is lost); one of the system side is not: the call
    /// goes on without it (see `takeEvents`).
    func read(into slot: UnsafeMutableRawBufferPointer, sampleType: SampleType, channels: Int)
        throws(RecorderError) -> CapturedFragment
    {
        let frames = slot.count / (channels * sampleType.byteCount)
        guard let call else {
            try microphone.read(into: slot)
            return CapturedFragment(
                SampleSums(of: UnsafeRawBufferPointer(slot), frameCount: frames, channels: channels, type: sampleType))
        }
        return try call.read(microphone: microphone, into: slot, frames: frames)
    }

    /// Asks for the system side to be opened again before the next fragment (the default
    /// output changed). Safe from any thread.
    func reopenSystemAudio() {
        call?.isReopenRequested.store(true, ordering: .relaxed)
    }

    /// What happened to the inputs since last asked.
    func takeEvents() -> [InputEvent] {
        guard let call, !call.events.isEmpty else { return [] }
        defer { call.events = [] }
        return call.events
    }
}

/// The part of a `CaptureSet` only a call has.
private final class Call {
    var system: AudioCapture?
    var events: [CaptureSet.InputEvent] = []
    let isReopenRequested = Atomic<Bool>(false)
    private let openSystemAudio: () throws(RecorderError) -> AudioCapture
    private let mixer: InputMixer
    private let sampleType: SampleType
    private let framesPerRead: Int
    private let bytesPerInputFrame: Int
    private var alignment: InputAlignment
    private let microphoneFragment: UnsafeMutableRawBufferPointer
    private let systemFragment: UnsafeMutableRawBufferPointer
    private var isStarted = false
    /// The system side was opened again and is placed on the timeline after its first read.
    private var isRejoining = false
    /// Frames of the memo's timeline so far: where the next fragment goes.
    private var timelineFrames = 0
    /// Steps on the system side still to be carried out, in frames.
    private var systemPad = 0
    private var systemSkip = 0
    private var backoff = ReconnectBackoff()
    /// When to try opening a lost system side again (monotonic nanoseconds).
    private var nextAttempt: UInt64 = 0

    init(
        system: AudioCapture?, request: RecordingRequest, framesPerRead: Int,
        openSystemAudio: @escaping () throws(RecorderError) -> AudioCapture
    ) {
        self.system = system
        self.openSystemAudio = openSystemAudio
        self.framesPerRead = framesPerRead
        sampleType = request.format.sampleType(for: request.quality)
        mixer = InputMixer(layout: request.channelLayout, channels: Int(request.channels), sampleType: sampleType)
        bytesPerInputFrame = mixer.inputChannels * sampleType.byteCount
        alignment = InputAlignment(sampleRate: request.sampleRate)
        microphoneFragment = .allocate(byteCount: framesPerRead * bytesPerInputFrame, alignment: 16)
        systemFragment = .allocate(byteCount: framesPerRead * bytesPerInputFrame, alignment: 16)
        if system == nil { lose(nil) }
    }

    deinit {
        microphoneFragment.deallocate()
        systemFragment.deallocate()
    }

    func read(microphone: AudioCapture, into slot: UnsafeMutableRawBufferPointer, frames: Int)
        throws(RecorderError) -> CapturedFragment
    {
        precondition(frames == framesPerRead, "a call reads whole fragments")
        if !isStarted { try start(microphone: microphone) }
        if isReopenRequested.exchange(false, ordering: .relaxed) {
            system = nil  // one stream at a time: the old one closes before the new one opens
            reopen(microphone: microphone)
        } else if system == nil, DispatchTime.now().uptimeNanoseconds >= nextAttempt {
            reopen(microphone: microphone)
        }
        try microphone.read(into: microphoneFragment)
        readSystemSide()
        timelineFrames += frames
        mixer.mix(
            microphone: UnsafeRawBufferPointer(microphoneFragment), system: UnsafeRawBufferPointer(systemFragment),
            frames: frames, into: slot)
        if let system, isRejoining || alignment.isSampleDue(at: DispatchTime.now().uptimeNanoseconds),
            let microphoneTiming = microphone.timing(), let systemTiming = system.timing()
        {
            // Both streams' next frames go at `timelineFrames` now: the moment a pair measures.
            if isRejoining {
                isRejoining = false
                carryOut(
                    alignment.rejoin(
                        system: systemTiming, microphone: microphoneTiming, timelineFrames: timelineFrames),
                    microphone: microphone)
            } else {
                carryOut(alignment.sample(microphone: microphoneTiming, system: systemTiming), microphone: microphone)
            }
        }
        return CapturedFragment(
            memo: sums(UnsafeRawBufferPointer(slot), channels: mixer.channels),
            inputs: [
                sums(UnsafeRawBufferPointer(microphoneFragment), channels: mixer.inputChannels),
                sums(UnsafeRawBufferPointer(systemFragment), channels: mixer.inputChannels),
            ])
    }

    /// Both streams are open: their first fragments (read and dropped) start them, and the
    /// one whose audio began earlier skips the difference, so both sides are real audio from
    /// the memo's first frame.
    private func start(microphone: AudioCapture) throws(RecorderError) {
        isStarted = true
        try microphone.read(into: microphoneFragment)
        guard let system else { return }
        do { try system.read(into: systemFragment) } catch {
            return lose(error)
        }
        if let microphoneTiming = microphone.timing(), let systemTiming = system.timing() {
            carryOut(alignment.start(microphone: microphoneTiming, system: systemTiming), microphone: microphone)
        }
    }

    /// Opens the system side again and places its audio on the timeline.
    private func reopen(microphone: AudioCapture) {
        do {
            let opened = try openSystemAudio()
            system = opened
            systemPad = 0
            systemSkip = 0
            backoff = ReconnectBackoff()
            events.append(.back(.systemAudio, name: opened.sourceName))
            // Placed once its first fragment is read: a stream that has delivered nothing may
            // have no timing yet.
            isRejoining = true
        } catch {
            scheduleAttempt()
        }
    }

    /// The system side's next fragment: its pending steps first, silence while it is lost.
    private func readSystemSide() {
        let bytes = framesPerRead * bytesPerInputFrame
        guard let system else {
            systemFragment.initializeMemory(as: UInt8.self, repeating: 0)
            return
        }
        do {
            while systemSkip > 0 {
                let frames = min(systemSkip, framesPerRead)
                try system.read(
                    into: UnsafeMutableRawBufferPointer(rebasing: systemFragment[0..<(frames * bytesPerInputFrame)]))
                systemSkip -= frames
            }
            let padFrames = min(systemPad, framesPerRead)
            systemPad -= padFrames
            let padBytes = padFrames * bytesPerInputFrame
            UnsafeMutableRawBufferPointer(rebasing: systemFragment[0..<padBytes]).initializeMemory(
                as: UInt8.self, repeating: 0)
            if padBytes < bytes {
                try system.read(into: UnsafeMutableRawBufferPointer(rebasing: systemFragment[padBytes..<bytes]))
            }
        } catch {
            lose(error)
            systemFragment.initializeMemory(as: UInt8.self, repeating: 0)
        }
    }

    /// Carries out an alignment step: the microphone's skip at once (only a start asks one),
    /// the system side's before its next frames.
    private func carryOut(_ step: AlignmentStep, microphone: AudioCapture) {
        switch step {
        case .none:
            break
        case .skip(.microphone, let frames):
            var left = frames
            while left > 0 {
                let chunk = min(left, framesPerRead)
                // The microphone is read again right after this; a failure shows there.
                try? microphone.read(
                    into: UnsafeMutableRawBufferPointer(rebasing: microphoneFragment[0..<(chunk * bytesPerInputFrame)]))
                left -= chunk
            }
        case .skip(.systemAudio, let frames):
            let cancelled = min(frames, systemPad)
            systemPad -= cancelled
            systemSkip += frames - cancelled
        case .pad(.systemAudio, let frames):
            let cancelled = min(frames, systemSkip)
            systemSkip -= cancelled
            systemPad += frames - cancelled
        case .pad(.microphone, _):
            preconditionFailure("the microphone is the timeline's clock: it is never padded")
        }
    }

    /// The system side is gone (`error` nil: it never opened): silence until it opens again.
    private func lose(_ error: RecorderError?) {
        system = nil
        if let error { events.append(.lost(.systemAudio, error)) }
        scheduleAttempt()
    }

    private func scheduleAttempt() {
        nextAttempt = DispatchTime.now().uptimeNanoseconds + UInt64(backoff.nextPause() * 1e9)
    }

    private func sums(_ buffer: UnsafeRawBufferPointer, channels: Int) -> SampleSums {
        SampleSums(of: buffer, frameCount: framesPerRead, channels: channels, type: sampleType)
    }
}
