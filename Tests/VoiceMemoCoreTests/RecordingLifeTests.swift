import FoundationEssentials
import Testing
import VoiceMemoCore

/// One recording's life in the machine, stage by stage: each event fed by hand, and the
/// outcomes of effects (a memo named, a file created or removed) fed back only when the test
/// says, so each stage can be looked at while it lasts.
@Suite("A recording's life")
struct RecordingLifeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let memo1 = MemoReference(id: "memo1", path: "/memos/memo1.wav")
    static let memo2 = MemoReference(id: "memo2", path: "/memos/memo2.wav")

    /// A machine with a recording asked for by `Record` and named `memo1`, its file being
    /// created; its number.
    static func starting(_ machine: inout RecorderMachine, options: [String: OptionValue] = [:]) -> RecordingNumber {
        let asked = machine.handle(.recordWithOptions(1, options, now: now))
        guard case .prepareMemo(let start, _, _)? = asked.first else {
            Issue.record("no memo asked for: \(asked)")
            return 0
        }
        let named = machine.handle(.memoPrepared(start, .success(memo1)))
        for case .createFile(let number, _, _, _) in named { return number }
        return machine.open?.number ?? 0
    }

    /// A machine with `memo1` open and recording from "mic"; its number.
    static func recording(_ machine: inout RecorderMachine, options: [String: OptionValue] = [:]) -> RecordingNumber {
        let number = starting(&machine, options: options)
        if !options.keys.contains("start-on-sound") { _ = machine.handle(.fileCreated(number, .start, .success(()))) }
        _ = machine.handle(.captureStarted(number, source: "mic"))
        _ = machine.handle(.audioFlowing(number))
        return number
    }

    @Test func aStartIsStartingWhileItsFileIsCreatedThenOpen() throws {
        var machine = RecorderMachine(defaults: RecorderDefaults())
        let number = Self.starting(&machine)
        let life = try #require(machine.recordings[number])
        guard case .starting(let recording) = life else {
            Issue.record("not starting: \(life)")
            return
        }
        #expect(recording.memo == Self.memo1)
        #expect(machine.open == nil && machine.state == .idle, "nothing is open before its file exists")
        #expect(machine.filesInProgress.isEmpty)

        _ = machine.handle(.fileCreated(number, .start, .success(())))
        #expect(machine.recordings[number]?.open?.phase == .recording)
        #expect(machine.open?.number == number && machine.state == .recording)
    }

    @Test func aStartWhoseFileFailsLeavesNoRecordingBehind() {
        var machine = RecorderMachine(defaults: RecorderDefaults())
        let number = Self.starting(&machine)
        let failed = machine.handle(.fileCreated(number, .start, .failure(.storage("disk full"))))
        #expect(failed == [.answer(1, .failure(.storage("disk full")))])
        #expect(machine.recordings.isEmpty && machine.state == .idle)
    }

    @Test func aStopClosesTheRecordingUntilItsFileIsFinalized() {
        var machine = RecorderMachine(defaults: RecorderDefaults())
        let number = Self.recording(&machine)
        _ = machine.handle(.stop(2))
        guard case .closing(let closed)? = machine.recordings[number] else {
            Issue.record("not closing: \(String(describing: machine.recordings[number]))")
            return
        }
        #expect(closed.recording.memo == Self.memo1)
        #expect(machine.open == nil && machine.state == .idle)
        #expect(machine.filesInProgress == ["memo1.wav"], "still being finalized")

        _ = machine.handle(.captureEnded(number, .stopped, closeError: nil, recordedFrames: 960, now: Self.now))
        #expect(machine.recordings.isEmpty && machine.filesInProgress.isEmpty)
    }

    @Test func aCancelClosesThenRemovesTheFileBeforeItsCallerHears() {
        var machine = RecorderMachine(defaults: RecorderDefaults())
        let number = Self.recording(&machine)
        _ = machine.handle(.cancel(2))
        #expect(machine.recordings[number]?.closing != nil)
        let ended = machine.handle(
            .captureEnded(number, .stopped, closeError: nil, recordedFrames: 960, now: Self.now))
        #expect(ended.contains(.removeFile(Self.memo1, reportsTo: number)))
        #expect(ended.answers[2] == nil, "not before the file is gone")
        guard case .removing? = machine.recordings[number] else {
            Issue.record("not removing: \(String(describing: machine.recordings[number]))")
            return
        }
        #expect(machine.filesInProgress.isEmpty, "no longer written")

        #expect(machine.handle(.fileRemoved(number, .success(()))) == [.answer(2, .success(.done))])
        #expect(machine.recordings.isEmpty)
        #expect(machine.handle(.fileRemoved(number, .success(()))) == [], "answered once")
    }

    @Test func aMemoThatEndsByItselfLeavesNothingBehind() {
        var machine = RecorderMachine(defaults: RecorderDefaults())
        let number = Self.recording(&machine)
        _ = machine.handle(
            .captureEnded(number, .durationReached, closeError: nil, recordedFrames: 960, now: Self.now))
        #expect(machine.recordings.isEmpty && machine.state == .idle)
    }

    @Test func reArmingIsAPhaseOfItsOwnThatShowsTheStateItHadUntilTheNextMemoIsNamed() throws {
        var machine = RecorderMachine(defaults: RecorderDefaults())
        let number = Self.recording(
            &machine, options: ["start-on-sound": .boolean(true), "stop-after-silence": .double(2)])
        _ = machine.handle(.soundStarted(number))
        _ = machine.handle(.fileCreated(number, .soundHeard, .success(())))
        #expect(machine.state == .recording)

        let ended = machine.handle(
            .captureEnded(number, .silenceReached, closeError: nil, recordedFrames: 96_000, now: Self.now))
        #expect(machine.recordings[number] == .rearming(shownState: .recording))
        #expect(machine.state == .recording, "no flicker through idle between two memos")
        #expect(machine.open == nil && machine.filesInProgress.isEmpty, "the memo is finished")
        #expect(!ended.notifications.contains(.changed([.state, .currentMemo, .activeSource])))

        guard case .prepareMemo(let start, _, _)? = ended.last else {
            Issue.record("no re-arm: \(ended)")
            return
        }
        let named = machine.handle(.memoPrepared(start, .success(Self.memo2)))
        #expect(machine.recordings[number] == nil, "re-armed: the memo before is done")
        let next = try #require(machine.open)
        #expect(next.memo == Self.memo2 && next.number != number && machine.state == .scheduled)
        #expect(named.notifications.contains(.changed([.state, .currentMemo])))
    }

    @Test func aReArmWhoseNextMemoCannotBeNamedEndsIdle() {
        var machine = RecorderMachine(defaults: RecorderDefaults())
        let number = Self.recording(
            &machine, options: ["start-on-sound": .boolean(true), "stop-after-silence": .double(2)])
        _ = machine.handle(.soundStarted(number))
        _ = machine.handle(.fileCreated(number, .soundHeard, .success(())))
        let ended = machine.handle(
            .captureEnded(number, .silenceReached, closeError: nil, recordedFrames: 96_000, now: Self.now))
        guard case .prepareMemo(let start, _, _)? = ended.last else {
            Issue.record("no re-arm: \(ended)")
            return
        }
        let failed = machine.handle(.memoPrepared(start, .failure(.storage("no room"))))
        #expect(machine.recordings.isEmpty && machine.state == .idle)
        #expect(failed.notifications == [.changed([.state, .currentMemo, .activeSource])])
    }
}
