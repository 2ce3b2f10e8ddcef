/// What the recorder's queue asks of the capture thread, as a snapshot taken before and after
/// each read, so a fragment is never judged by half of a request.
public struct CaptureRequests: Equatable, Sendable {
    /// Whether the memo's file exists: from the start, or once a recording that waited for
    /// sound has its file.
    public var isFileAttached: Bool
    /// The pause in force, if any, with what becomes of the audio held back when it began.
    public var pause: Pause?
    /// The endings asked for; the strongest of them wins (see `Ending`).
    public private(set) var endings: Set<Ending> = []
    /// Whether levels are delivered as they are measured (they are measured either way).
    public var isMeteringEnabled = false
    /// Someone waits for the file on disk to hold everything written so far.
    public var isSynchronizationRequested = false

    public init(isFileAttached: Bool) {
        self.isFileAttached = isFileAttached
    }

    /// A pause: nothing read is written until it ends. Audio held back when it begins (a
    /// pinned recording's newest tenth of a second) is written first, or dropped.
    public enum Pause: Comparable, Sendable {
        case keepingHeldAudio
        /// The audio held may come from a stand-in for a vanished input. A drop, once asked
        /// for, holds until the pause ends: a later pause that keeps does not undo it.
        case droppingHeldAudio
    }

    /// How the stream in hand should end, after what is held is written. When more than one
    /// was asked for, the greatest wins: a stop ends the memo even if its input changed
    /// meanwhile, and a reopen is tried before giving up on a lost input (which follows once
    /// the new stream is open, being asked for still). A stop before anything was written
    /// waits for one fragment, so no memo is empty; meanwhile the next strongest applies.
    public enum Ending: Comparable, Sendable {
        /// Nobody reconnects the input any more: the recording ends, failed.
        case giveUp
        /// The input changed or came back without the server moving the stream: open a new
        /// one for the same file. Forgotten once a new stream is open.
        case reopen
        /// `Stop` or `Cancel` (or the daemon's own end): the recording ends.
        case stop

        /// Whether it ends the recording (a reopen goes on in a new stream).
        public var isFinal: Bool { self != .reopen }
    }

    /// Asks for a pause; a drop asked for earlier in the same pause stays.
    public mutating func request(_ pause: Pause) {
        self.pause = max(self.pause ?? pause, pause)
    }

    /// Asks for `ending`; the strongest asked for wins.
    public mutating func request(_ ending: Ending) {
        endings.insert(ending)
    }

    /// A new stream is open: the reopen asked for, if any, is done.
    public mutating func reopened() {
        endings.remove(.reopen)
    }

    /// Whether a stop or a give-up was asked for: the recording ends, and no new stream is
    /// sought.
    public var isEnding: Bool { endings.contains(where: \.isFinal) }
}

/// What one fragment holds, as the policy needs it: the sums of the fragment as the memo
/// holds it, and of each input's own fragment (the microphone, and for a call the system's
/// audio too: sound on either starts a memo, silence ends one only when all are silent).
public struct CapturedFragment: Equatable, Sendable {
    /// The sums of the fragment as it goes into the memo (the inputs mixed or side by side).
    public var memo: SampleSums
    /// The sums of each input's own fragment, in the request's order of inputs.
    public var inputs: [SampleSums]

    public init(memo: SampleSums, inputs: [SampleSums]) {
        precondition(!inputs.isEmpty, "a fragment comes from at least one input")
        self.memo = memo
        self.inputs = inputs
    }

    /// A fragment of a single input, which the memo holds as it is.
    public init(_ sums: SampleSums) {
        self.init(memo: sums, inputs: [sums])
    }

    /// The first `count` frames of it (see `SampleSums.prefix`).
    func prefix(_ count: Int) -> CapturedFragment {
        guard count < memo.frameCount else { return self }
        return CapturedFragment(memo: memo.prefix(count), inputs: inputs.map { $0.prefix(count) })
    }

    /// Adds `fragment`'s sums to these, input by input (an empty window takes its inputs' count).
    mutating func add(_ fragment: CapturedFragment) {
        memo.add(fragment.memo)
        if inputs.count != fragment.inputs.count {
            inputs = fragment.inputs.map { SampleSums(channels: $0.channels) }
        }
        for index in fragment.inputs.indices { inputs[index].add(fragment.inputs[index]) }
    }
}

/// One step of carrying out the policy's answer, in the order given.
public enum CaptureAction: Equatable, Sendable {
    /// Keep the fragment just read, as the newest audio held back from the file.
    case hold
    /// Write the first `frames` frames of the oldest fragment held; it is held no more.
    case write(frames: Int)
    /// Forget the `count` oldest fragments held, unwritten.
    case drop(count: Int)
    /// Bring the file on disk up to date (header included), and tell whoever waits for that.
    case synchronize
    /// A metering window ended with `levels` (the memo's) and each input's, in `CaptureInput`
    /// order, at `time` seconds of the memo.
    case reportLevels(Levels, inputs: [Levels], time: Double)
    /// The first audio has been read: the input works.
    case reportAudioFlowing
    /// A recording that waits for sound heard it; its file can be made.
    case reportSoundStarted
    /// The input delivers again after a stall.
    case reportInputBack
    /// The recording ends here.
    case end(CaptureEnding)
    /// The stream is lost: the file stays open while a new stream is sought.
    case declareLost(RecorderError)
    /// Close this stream and open a new one for the same file.
    case reopen
}

/// The capture policy: what to do with each fragment of captured audio, decided from its
/// facts and the requests in force, apart from the thread that reads and writes.
///
/// It keeps the books of the audio in flight (what is held back, written, metered, silent)
/// and answers with `CaptureAction`s; the capture pipeline only carries them out. The rules:
/// - a duration ends the memo at exactly its frame count; a silence limit after that much
///   continuous silence, not counting the pre-roll;
/// - a stop keeps the fragment in flight (it holds audio from before the request), and a stop
///   before anything was written waits for one fragment, so no memo is empty;
/// - a recording pinned to a source holds its newest `pinnedHoldback` back, droppable if the
///   source turns out to have vanished;
/// - waiting for sound keeps only the newest pre-roll, and the memo begins with it;
/// - a pause drops what is read meanwhile, writes (or drops) what was held, and brings the
///   file on disk up to date; the file is also synced every second and on request;
/// - anything held is written before the stream ends, unless a lost input had it dropped.
public struct CapturePolicy: Sendable {
    /// Frames per read: 20 ms keeps stop and pause within a fragment of the request.
    public static func framesPerRead(sampleRate: UInt32) -> Int { Int(sampleRate) / 50 }

    /// How much of its newest audio a recording pinned to a source keeps back from the file,
    /// in seconds. When the source vanishes, the server may move the stream to a stand-in
    /// at once and the news comes a few fragments later.
    public static let pinnedHoldback = 0.1

    /// How long, beyond its pre-roll, a recording that heard its sound keeps audio while its
    /// file is being created: a second, far more than creating a file takes.
    public static let attachSlack = 1.0

    public let framesPerRead: Int
    /// The most fragments ever held, counting the one being read.
    public let heldCapacity: Int
    /// Frames written so far (pauses excluded).
    public private(set) var recordedFrames = 0
    /// Fragments read and not yet written or dropped.
    public private(set) var heldCount = 0

    private let sampleRate: Double
    private let frameLimit: Int?
    private let silenceFrameLimit: Int?
    private let silenceThreshold: Double
    private let trigger: SoundTrigger
    /// Fragments a pinned recording holds back while it writes.
    private let heldBack: Int
    private let syncInterval: Int
    private let fragmentsPerWindow: Int
    /// Each fragment held, oldest first.
    private var heldFragments: [CapturedFragment] = []
    /// The memo's metering window, and each input's (for the silence limit).
    private var window: CapturedFragment
    private var fragmentsInWindow = 0
    private var isWaitingForSound: Bool
    /// Frames of pre-roll the memo begins with: silence that must not count towards the
    /// silence limit, or a long pre-roll would end the memo before its sound.
    private var preRollFrames = 0
    private var silentFrames = 0
    private var framesSinceSync = 0
    private var hasAudioFlowed = false

    /// The policy for `request`; `waitsForSound` when it has no file until it hears sound.
    public init(request: RecordingRequest, waitsForSound: Bool) {
        framesPerRead = Self.framesPerRead(sampleRate: request.sampleRate)
        sampleRate = Double(request.sampleRate)
        frameLimit = request.frameLimit
        silenceFrameLimit = request.silenceFrameLimit
        silenceThreshold = request.silenceThreshold
        trigger = SoundTrigger(request: request, framesPerRead: framesPerRead)
        isWaitingForSound = waitsForSound
        let fragmentsPerSecond = sampleRate / Double(framesPerRead)
        heldBack = request.source == nil ? 0 : Int((Self.pinnedHoldback * fragmentsPerSecond).rounded(.up))
        let slack = Int((Self.attachSlack * fragmentsPerSecond).rounded(.up))
        let waitingRoom = waitsForSound ? trigger.preRollFragments + slack : 0
        heldCapacity = max(heldBack, waitingRoom) + 1
        // Sync every second: at most a second lost to a power failure, little disk churn.
        syncInterval = Int(request.sampleRate)
        // About 100 ms, in whole fragments, so a window never splits a fragment.
        fragmentsPerWindow = max(1, Int((fragmentsPerSecond / 10).rounded()))
        let silence = SampleSums(channels: Int(request.channels))
        window = CapturedFragment(memo: silence, inputs: [silence])
        heldFragments.reserveCapacity(heldCapacity)
    }

    /// Frames in one metering window.
    public var windowFrames: Int { fragmentsPerWindow * framesPerRead }

    /// A new stream begins: what a stream abandoned in a hung read held went with it (one that
    /// ended normally held nothing by then).
    public mutating func forgetHeld() {
        heldFragments.removeAll(keepingCapacity: true)
        heldCount = 0
    }

    /// Before each read: whether the requests end or turn this stream instead (empty: read).
    public mutating func beforeRead(_ requests: CaptureRequests) -> [CaptureAction] {
        var actions: [CaptureAction] = []
        // Nothing written yet: a stop waits for one fragment more, so a memo toggled off at
        // once holds audio (an Opus stream with no packets is malformed).
        let awaitsFirstFragment =
            recordedFrames == 0 && heldCount == 0 && requests.pause == nil && requests.isFileAttached
        let ending = requests.endings.lazy.filter { $0 != .stop || !awaitsFirstFragment }.max()
        switch ending {
        case .stop: finish(with: .end(.stopped), requests, into: &actions)
        case .reopen: finish(with: .reopen, requests, into: &actions)
        case .giveUp: finish(with: .end(.captureFailed(Self.gaveUp)), requests, into: &actions)
        case nil: break
        }
        return actions
    }

    /// `fragment` was read; `endedStall` when the read had been declared stalled. The
    /// actions begin with `.hold` when the fragment is kept.
    public mutating func fragmentRead(_ fragment: CapturedFragment, _ requests: CaptureRequests, endedStall: Bool)
        -> [CaptureAction]
    {
        var actions: [CaptureAction] = []
        actions.reserveCapacity(4)  // hold, write, and now and then levels and a sync: one allocation
        if !hasAudioFlowed {
            hasAudioFlowed = true
            actions.append(.reportAudioFlowing)
        }
        if endedStall { actions.append(.reportInputBack) }
        // A read that completes after a pause request holds mostly audio from after it: dropped.
        guard requests.pause == nil else {
            if writeHeld(requests, into: &actions) { return actions }
            startWindow()
            // Entering a pause: the file on disk is brought up to date, so a paused memo is
            // whole on disk for as long as the pause lasts.
            if framesSinceSync > 0 || requests.isSynchronizationRequested { synchronize(into: &actions) }
            return actions
        }
        actions.append(.hold)
        heldFragments.append(fragment)
        heldCount += 1
        guard requests.isFileAttached else {
            awaitFile(into: &actions)
            return actions
        }
        var syncRequest = requests.isSynchronizationRequested
        while heldCount > heldBack {
            if writeOldest(syncRequest: &syncRequest, into: &actions) { return actions }
        }
        if let frameLimit, recordedFrames + heldCount * framesPerRead >= frameLimit {
            _ = writeHeld(requests, into: &actions)
        }
        return actions
    }

    /// A read failed with `error`: what is held is written, then the stream is declared lost.
    public mutating func readFailed(_ error: RecorderError, _ requests: CaptureRequests) -> [CaptureAction] {
        var actions: [CaptureAction] = []
        finish(with: .declareLost(error), requests, into: &actions)
        return actions
    }

    /// Why a recording ends when nobody reconnects its input any more.
    public static let gaveUp = RecorderError.audioServer("the audio input did not come back in time")

    // MARK: Rules

    /// Writes everything held, then `last`, unless writing ends the recording first.
    private mutating func finish(
        with last: CaptureAction, _ requests: CaptureRequests, into actions: inout [CaptureAction]
    ) {
        if !writeHeld(requests, into: &actions) { actions.append(last) }
    }

    /// No file yet: keep the pre-roll while waiting for sound, and everything since it was
    /// heard while the file is being made (up to the room there is).
    private mutating func awaitFile(into actions: inout [CaptureAction]) {
        if isWaitingForSound {
            if heldFragments[heldCount - 1].inputs.contains(where: trigger.hears) {
                isWaitingForSound = false
                preRollFrames = (heldCount - 1) * framesPerRead
                actions.append(.reportSoundStarted)
            } else {
                // Only the newest pre-roll is kept; the fragment read last is its end.
                drop(heldCount - trigger.preRollFragments, into: &actions)
            }
        } else if heldCount == heldCapacity {
            drop(1, into: &actions)  // the file is late beyond all reason: the oldest pre-roll goes
        }
    }

    /// Writes all that is held (or drops it: no file, or a lost input asked so); true when
    /// the recording ended.
    private mutating func writeHeld(_ requests: CaptureRequests, into actions: inout [CaptureAction]) -> Bool {
        // Still waiting for sound (or for its file): the pre-roll is not a memo.
        // Nothing is held while paused, so a drop seen again on a later fragment is harmless.
        if !requests.isFileAttached || requests.pause == .droppingHeldAudio { drop(heldCount, into: &actions) }
        var syncRequest = requests.isSynchronizationRequested
        while heldCount > 0 {
            if writeOldest(syncRequest: &syncRequest, into: &actions) { return true }
        }
        return false
    }

    /// Writes the oldest fragment held, no further than the frame limit, and meters it;
    /// true when that ends the recording.
    private mutating func writeOldest(syncRequest: inout Bool, into actions: inout [CaptureAction]) -> Bool {
        let frames = frameLimit.map { min(framesPerRead, $0 - recordedFrames) } ?? framesPerRead
        let fragment = heldFragments.removeFirst().prefix(frames)
        heldCount -= 1
        actions.append(.write(frames: frames))
        recordedFrames += frames
        framesSinceSync += frames
        if framesSinceSync >= syncInterval || syncRequest {
            synchronize(into: &actions)
            syncRequest = false
        }
        window.add(fragment)
        fragmentsInWindow += 1
        if fragmentsInWindow == fragmentsPerWindow, let ending = endWindow(into: &actions) {
            actions.append(.end(ending))
            return true
        }
        if let frameLimit, recordedFrames >= frameLimit {
            actions.append(.end(.durationReached))
            return true
        }
        return false
    }

    /// Reports a full metering window; the silence ending, if it brings one.
    private mutating func endWindow(into actions: inout [CaptureAction]) -> CaptureEnding? {
        let levels = window.memo.levels
        let inputLevels = window.inputs.map(\.levels)
        let frames = window.memo.frameCount
        // Silent when every input is: a call's far side speaking is not silence.
        let isSilent = window.inputs.allSatisfy { ($0.levels.average.max() ?? Levels.floor) < silenceThreshold }
        startWindow()
        actions.append(.reportLevels(levels, inputs: inputLevels, time: Double(recordedFrames) / sampleRate))
        let isPreRoll = recordedFrames <= preRollFrames
        silentFrames = isSilent && !isPreRoll ? silentFrames + frames : 0
        if let silenceFrameLimit, silentFrames >= silenceFrameLimit { return .silenceReached }
        return nil
    }

    private mutating func drop(_ count: Int, into actions: inout [CaptureAction]) {
        guard count > 0 else { return }
        heldFragments.removeFirst(count)
        heldCount -= count
        actions.append(.drop(count: count))
    }

    /// Begins a new metering window, empty.
    private mutating func startWindow() {
        window.memo.reset()
        for index in window.inputs.indices { window.inputs[index].reset() }
        fragmentsInWindow = 0
    }

    private mutating func synchronize(into actions: inout [CaptureAction]) {
        actions.append(.synchronize)
        framesSinceSync = 0
    }
}
