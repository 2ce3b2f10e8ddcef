import Dispatch
import VoiceMemoCore

/// What a recording reads each fragment from: its input alone, read straight into the memo's
/// buffer, or a call's two inputs, the microphone and what the computer plays, aligned on one
/// timeline and mixed into it.
///
/// Owned by the capture thread in charge, like the policy. In a call the microphone is the
/// timeline's clock: it never loses a frame, and the capture thread waits on it alone. The
/// system side is read on a thread of its own (`SystemAudioReader`) and placed on the timeline
/// by `InputAlignment` from the two streams' timings; what it has not delivered in time, or
/// while it is lost, is silence, exactly as long as it lasts, so the timeline stays true. A
/// lost side is opened again with `ReconnectBackoff`'s pauses.
final class CaptureSet {
    /// What happened to one input of a call, for the pipeline to report.
    enum InputEvent {
        case lost(CaptureInput, RecorderError)
        case back(CaptureInput, name: String)
    }

    /// The input the recording was asked for.
    let microphone: AudioCapture
    private let call: Call?
    /// Cleans the microphone's voice (a call's system side is what the desktop played, clean
    /// already, and gain control on it would pump the far side).
    private let voice: VoiceCleaner?

    /// A single input.
    init(microphone: AudioCapture, voice: VoiceCleaner?) {
        self.microphone = microphone
        self.voice = voice
        call = nil
    }

    /// A call: `system` is open (nil: lost, to be opened again by `openSystemAudio`);
    /// `takeReopenRequest` says, once, that it should be opened again (the default output
    /// changed).
    init(
        microphone: AudioCapture, voice: VoiceCleaner?, system: AudioCapture?, request: RecordingRequest,
        framesPerRead: Int, openSystemAudio: @escaping () throws(RecorderError) -> AudioCapture,
        takeReopenRequest: @escaping () -> Bool
    ) {
        self.microphone = microphone
        self.voice = voice
        call = Call(
            system: system, request: request, framesPerRead: framesPerRead, openSystemAudio: openSystemAudio,
            takeReopenRequest: takeReopenRequest)
    }

    /// Frames per read of a call's system side: half the microphone's, so the frames of a
    /// fragment of the memo are complete at most half a fragment after the microphone's (the
    /// two streams' fragments need not begin together), within `SystemAudioReader.arrivalWait`.
    static func systemFramesPerRead(_ framesPerRead: Int) -> Int { framesPerRead / 2 }

    /// The output whose audio the call records; nil for a single input or while it is lost.
    var systemAudioName: String? { call?.reader?.name }

    /// Reads the next fragment of the memo into `slot` and measures it. A failure of the
    /// microphone is thrown (the capture is lost); one of the system side is not: the call
    /// goes on without it (see `takeEvents`).
    func read(into slot: UnsafeMutableRawBufferPointer, sampleType: SampleType, channels: Int)
        throws(RecorderError) -> CapturedFragment
    {
        let frames = slot.count / (channels * sampleType.byteCount)
        guard let call else {
            try microphone.read(into: slot)
            voice?.process(slot)
            return CapturedFragment(
                SampleSums(of: UnsafeRawBufferPointer(slot), frameCount: frames, channels: channels, type: sampleType))
        }
        return try call.read(microphone: microphone, voice: voice, into: slot, frames: frames)
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
    private(set) var reader: SystemAudioReader?
    var events: [CaptureSet.InputEvent] = []
    private let openSystemAudio: () throws(RecorderError) -> AudioCapture
    private let takeReopenRequest: () -> Bool
    private let mixer: InputMixer
    private let sampleType: SampleType
    private let sampleRate: UInt32
    private let framesPerRead: Int
    private let bytesPerInputFrame: Int
    private var alignment: InputAlignment
    private let microphoneFragment: UnsafeMutableRawBufferPointer
    private let systemFragment: UnsafeMutableRawBufferPointer
    /// Frames of the memo's timeline so far: where the next fragment goes.
    private var timelineFrames = 0
    /// Where the system stream's frame 0 lies on the timeline; nil until a timing pair placed it.
    private var systemOrigin: Int?
    private var backoff = ReconnectBackoff()
    /// When to try opening a lost system side again (monotonic nanoseconds).
    private var nextAttempt: UInt64 = 0

    init(
        system: AudioCapture?, request: RecordingRequest, framesPerRead: Int,
        openSystemAudio: @escaping () throws(RecorderError) -> AudioCapture, takeReopenRequest: @escaping () -> Bool
    ) {
        self.openSystemAudio = openSystemAudio
        self.takeReopenRequest = takeReopenRequest
        self.framesPerRead = framesPerRead
        sampleRate = request.sampleRate
        sampleType = request.format.sampleType(for: request.quality)
        mixer = InputMixer(layout: request.channelLayout, channels: Int(request.channels), sampleType: sampleType)
        bytesPerInputFrame = mixer.inputChannels * sampleType.byteCount
        alignment = InputAlignment(sampleRate: request.sampleRate)
        microphoneFragment = .allocate(byteCount: framesPerRead * bytesPerInputFrame, alignment: 16)
        systemFragment = .allocate(byteCount: framesPerRead * bytesPerInputFrame, alignment: 16)
        if let system { attach(system) } else { scheduleAttempt() }
    }

    deinit {
        reader?.close()
        microphoneFragment.deallocate()
        systemFragment.deallocate()
    }

    func read(microphone: AudioCapture, voice: VoiceCleaner?, into slot: UnsafeMutableRawBufferPointer, frames: Int)
        throws(RecorderError) -> CapturedFragment
    {
        precondition(frames == framesPerRead, "a call reads whole fragments")
        if takeReopenRequest() {
            let wasOpen = reader != nil
            detach()  // one stream at a time: the old one closes before the new one opens
            if let error = reopen(), wasOpen { events.append(.lost(.systemAudio, error)) }
        } else if reader == nil, DispatchTime.now().uptimeNanoseconds >= nextAttempt {
            _ = reopen()
        }
        try microphone.read(into: microphoneFragment)
        voice?.process(microphoneFragment)
        if let failure = reader?.failure {
            detach()
            events.append(.lost(.systemAudio, failure))
            scheduleAttempt()
        }
        place(microphone: microphone, frames: frames)
        if let reader, let systemOrigin {
            let first = timelineFrames - systemOrigin
            reader.take(first..<(first + frames), into: systemFragment)
        } else {
            systemFragment.initializeMemory(as: UInt8.self, repeating: 0)
        }
        timelineFrames += frames
        mixer.mix(
            microphone: UnsafeRawBufferPointer(microphoneFragment), system: UnsafeRawBufferPointer(systemFragment),
            frames: frames, into: slot)
        let memo = sums(UnsafeRawBufferPointer(slot), channels: mixer.channels)
        switch mixer.layout {
        case .split:
            // Each side is one channel of the memo: its sums are the side's, summed once.
            return CapturedFragment(memo: memo, inputs: [memo.channel(0), memo.channel(1)])
        case .mix:
            return CapturedFragment(
                memo: memo,
                inputs: [
                    sums(UnsafeRawBufferPointer(microphoneFragment), channels: mixer.inputChannels),
                    sums(UnsafeRawBufferPointer(systemFragment), channels: mixer.inputChannels),
                ])
        }
    }

    /// Places the system side on the timeline from a pair of timings taken now: the
    /// microphone's, just after the read of the fragment that goes at `timelineFrames`, and
    /// the system stream's, after its latest read. A stream not placed yet is placed by its
    /// first pair; then `InputAlignment` refines the place as pairs come due. Without
    /// timings (a server that gives none) the system side's audio goes where it arrives, a
    /// fragment late: what it has delivered ends with the fragment before this one, so a
    /// reader a little behind the microphone still has its frames there in time.
    private func place(microphone: AudioCapture, frames: Int) {
        // A fresh stream's first timings can be far off (the earliest of a few reads, or a
        // burst the server had kept for it): it is placed once it has delivered a few.
        guard let reader, reader.framesRead >= Self.readsBeforePlacing * CaptureSet.systemFramesPerRead(frames)
        else { return }
        alignment.samplesEveryFragment = microphone.isTimingFree && reader.isTimingFree
        guard systemOrigin == nil || alignment.isSampleDue(at: DispatchTime.now().uptimeNanoseconds) else { return }
        guard let systemTiming = reader.timing, let microphoneTiming = microphone.timing() else {
            let delivered = reader.framesRead
            if systemOrigin == nil && delivered > 0 { systemOrigin = timelineFrames + 2 * frames - delivered }
            return
        }
        guard let origin = systemOrigin else {
            // Where the step is measured from: the system's next frame right after this fragment.
            let baseline = timelineFrames + frames - systemTiming.framesRead
            let step = alignment.rejoin(
                system: systemTiming, microphone: microphoneTiming, timelineFrames: timelineFrames + frames)
            systemOrigin = baseline + Self.frames(step)
            return
        }
        systemOrigin = origin + Self.frames(alignment.sample(microphone: microphoneTiming, system: systemTiming))
    }

    /// Reads of a new system stream before its timing places it on the timeline.
    private static let readsBeforePlacing = 3

    /// How many frames later on the timeline a step puts the system side's audio.
    private static func frames(_ step: AlignmentStep) -> Int {
        switch step {
        case .none: 0
        case .pad(.systemAudio, let frames): frames
        case .skip(.systemAudio, let frames): -frames
        case .pad(.microphone, _), .skip(.microphone, _):
            preconditionFailure("the microphone is the timeline's clock: no step moves it")
        }
    }

    /// Opens the system side again; it is placed on the timeline once it has delivered. The
    /// error when it cannot be opened (then it is tried again after a pause).
    private func reopen() -> RecorderError? {
        do {
            let opened = try openSystemAudio()
            attach(opened)
            backoff = ReconnectBackoff()
            events.append(.back(.systemAudio, name: opened.sourceName))
            return nil
        } catch {
            scheduleAttempt()
            return error
        }
    }

    private func attach(_ stream: AudioCapture) {
        let reader = SystemAudioReader(
            stream: stream, bytesPerFrame: bytesPerInputFrame,
            framesPerRead: CaptureSet.systemFramesPerRead(framesPerRead), sampleRate: sampleRate)
        reader.start()
        self.reader = reader
        systemOrigin = nil
    }

    private func detach() {
        reader?.close()
        reader = nil
        systemOrigin = nil
    }

    private func scheduleAttempt() {
        nextAttempt = DispatchTime.now().uptimeNanoseconds + UInt64(backoff.nextPause() * 1e9)
    }

    private func sums(_ buffer: UnsafeRawBufferPointer, channels: Int) -> SampleSums {
        SampleSums(of: buffer, frameCount: framesPerRead, channels: channels, type: sampleType)
    }
}
