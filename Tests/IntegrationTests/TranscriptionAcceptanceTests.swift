import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// Transcripts against the real daemon and the real engine (faster-whisper with `tiny.en`,
/// in the virtual environment `make test-deps` builds): speech with a known reference,
/// played through the fixture's microphone or written as memos, transcribed, searched,
/// carried through rename, trim and the trash, and a daemon and a worker killed mid-job.
final class TranscriptionAcceptanceTests: RecorderTestCase {
    override class func daemonEnvironment() throws -> [String: String] {
        try TestTranscriptionEngine.environment()
    }

    /// How long one short memo may take: the worker starts Python and loads the model
    /// (about a second), then transcribes at several times real time, at idle priority.
    private static let transcriptionTimeout: Duration = .seconds(120)

    private var clips: [SpeechClip] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        clips = try SpeechClip.all()
    }

    // MARK: Helpers

    /// Writes `samples` (48 kHz mono) as a memo of `format` an hour older than the last.
    private func addSpeechMemo(_ samples: [Int16], title: String, format: AudioFormat = .wav) throws -> ObjectPath {
        let age = 3600.0 * Double(try recorder.managedMemos().count + 1)
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -age), title: title, format: format)
        return try addMemo(samples, named: name, format: format, title: title)
    }

    /// The clip as a 48 kHz memo.
    private func addClipMemo(_ clip: SpeechClip, format: AudioFormat = .wav) throws -> ObjectPath {
        try addSpeechMemo(SpeechClip.upsampled(clip.samples), title: "Clip \(clip.id.suffix(4))", format: format)
    }

    /// Waits for memo `memo`'s `TranscriptStatus` to be announced as `done` or `failed` after
    /// `mark`; returns the statuses announced since, in order.
    @discardableResult
    private func waitForTranscript(
        of memo: ObjectPath, after mark: VoiceMemoProxy.SignalMark, expecting final: String = "done"
    ) throws -> [String] {
        try recorder.waitForSignal("PropertiesChanged", timeout: Self.transcriptionTimeout, after: mark) {
            $0.path == memo
                && ["done", "failed"].contains(
                    $0.arguments[1].stringDictionary?[MemoMember.transcriptStatus.name]?.string ?? "")
        }
        let statuses = recorder.received[mark.index...].compactMap { signal -> String? in
            guard signal.path == memo, signal.member.rawValue == "PropertiesChanged" else { return nil }
            return signal.arguments[1].stringDictionary?[MemoMember.transcriptStatus.name]?.string
        }
        XCTAssertEqual(statuses.last, final, "memo \(memo): \(statuses)")
        return statuses
    }

    private func transcript(of memo: ObjectPath) throws -> String {
        try XCTUnwrap(try recorder.memoProperty(memo, MemoMember.transcript).string)
    }

    private func segments(of memo: ObjectPath) throws -> [(start: Double, end: Double, text: String)] {
        let reply = try recorder.callMemo(memo, MemoMember.transcriptSegments)
        return try XCTUnwrap(reply.first?.array).map { entry in
            let fields = try XCTUnwrap(entry.structure)
            return (try XCTUnwrap(fields[0].double), try XCTUnwrap(fields[1].double), try XCTUnwrap(fields[2].string))
        }
    }

    private func find(_ text: String) throws -> [ObjectPath] {
        try XCTUnwrap(try recorder.call(RecorderMember.findMemos, [.string(text)]).first?.array).compactMap(
            \.objectPath)
    }

    /// Word errors of `text` against `clip`'s reference.
    private func errors(_ text: String, _ clip: SpeechClip) -> Int {
        WordErrorRate.errors(reference: clip.words, hypothesis: WordErrorRate.words(text))
    }

    /// Plays `clip` into the fixture's microphone and waits until it has been played.
    private func play(_ clip: SpeechClip) throws {
        // 200 ms of buffer: a shorter one drags PipeWire's cycle down and drops audio under load.
        let played = try fixture.session.run(
            try Executable.find("paplay"),
            ["--device=\(AudioDevices.stimulusSink)", "--latency-msec=200", clip.path], timeout: .seconds(60))
        XCTAssertEqual(played.status, 0, "\(played)")
    }

    // MARK: Acceptance

    func testFiveClipsRecordedThroughTheMicrophoneComeOutWithinTenPercentWordErrors() throws {
        try recorder.setProperty(RecorderMember.transcribeNewMemos, .boolean(true))
        XCTAssertTrue(
            try XCTUnwrap(try recorder.property(RecorderMember.transcriptionEngine).string).hasPrefix(
                "faster-whisper "))
        fixture.stimulus.stop()
        var memos: [(ObjectPath, SpeechClip, VoiceMemoProxy.SignalMark)] = []
        for clip in clips {
            let memo = try recorder.memo(in: try recorder.call(RecorderMember.record))
            try recorder.waitUntilRecorded(0.3)
            try play(clip)
            // The tail of paplay's buffer, and a breath.
            try recorder.waitUntilRecorded(further: 0.5)
            let mark = try recorder.markSignals()
            _ = try recorder.call(RecorderMember.stop)
            memos.append((memo, clip, mark))
        }
        var (wrong, total) = (0, 0)
        for (memo, clip, mark) in memos {
            let statuses = try waitForTranscript(of: memo, after: mark)
            XCTAssertEqual(statuses, ["queued", "running", "done"], "each status announced once, in order")
            let text = try transcript(of: memo)
            let errors = errors(text, clip)
            print("\(clip.id): \(errors) of \(clip.words.count) words wrong: \(text)")
            (wrong, total) = (wrong + errors, total + clip.words.count)
        }
        let rate = Double(wrong) / Double(total)
        print("word error rate over the five clips: \(wrong)/\(total) = \(rate)")
        XCTAssertLessThanOrEqual(rate, 0.10)
    }

    func testThreeClipsApartGiveSegmentsStartingWhereEachClipStarts() throws {
        let silence = [Int16](repeating: 0, count: 3 * SpeechClip.sampleRate)
        let parts = [clips[0], clips[2], clips[4]]
        var samples: [Int16] = []
        var onsets: [Double] = []
        for clip in parts {
            if !samples.isEmpty { samples += silence }
            onsets.append(Double(samples.count) / Double(SpeechClip.sampleRate) + clip.speechOnset)
            samples += clip.samples
        }
        let memo = try addSpeechMemo(SpeechClip.upsampled(samples), title: "Three clips")
        let mark = try recorder.markSignals()
        _ = try recorder.callMemo(memo, MemoMember.transcribe)
        try waitForTranscript(of: memo, after: mark)
        let segments = try segments(of: memo)
        print("onsets \(onsets); segments \(segments.map { ($0.start, $0.end) })")
        XCTAssertGreaterThanOrEqual(segments.count, 3)
        for onset in onsets {
            let nearest = segments.map { abs($0.start - onset) }.min() ?? .infinity
            XCTAssertLessThanOrEqual(nearest, 0.5, "a segment starts within 0.5 s of speech at \(onset) s")
        }
        XCTAssertEqual(segments.map(\.start), segments.map(\.start).sorted(), "in order")
        XCTAssertEqual(
            try transcript(of: memo), segments.map(\.text).joined(separator: " "), "Transcript is the segments' words")
    }

    func testAWordOfOneMemoFindsItAloneThroughRenameTrimAndTheTrash() throws {
        // "dashwood" is said in the first clip only, "selfish" in the third only. (tiny.en
        // hears the second clip's "ill disposed" as "old-sposed".)
        let memo = try addClipMemo(clips[0])
        let other = try addClipMemo(clips[2])
        for each in [memo, other] {
            let mark = try recorder.markSignals()
            _ = try recorder.callMemo(each, MemoMember.transcribe)
            try waitForTranscript(of: each, after: mark)
        }
        XCTAssertEqual(try find("DASHWOOD"), [memo], "case ignored, and only the memo that says it")
        XCTAssertEqual(try find("Selfish"), [other])
        let said = try transcript(of: memo)

        try recorder.setMemoTitle(memo, "Family money")
        XCTAssertEqual(try transcript(of: memo), said, "a rename keeps the transcript")
        XCTAssertEqual(try find("dashwood"), [memo])

        let before = try segments(of: memo)
        let duration = try XCTUnwrap(try recorder.memoProperty(memo, MemoMember.duration).double)
        _ = try recorder.callMemo(memo, MemoMember.trim, [.double(0.25), .double(duration)])
        let after = try segments(of: memo)
        XCTAssertEqual(after.count, before.count, "nothing said was cut")
        for (old, new) in zip(before, after) {
            XCTAssertEqual(new.start, max(0, old.start - 0.25), accuracy: 0.01, "moved to the trimmed memo's times")
            XCTAssertEqual(new.text, old.text)
        }
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.transcriptStatus).string, "done")
        XCTAssertEqual(try find("dashwood"), [memo])

        let mark = try recorder.markSignals()
        _ = try recorder.callMemo(memo, MemoMember.delete)
        try recorder.waitForSignal("InterfacesRemoved", after: mark) { $0.arguments.first?.objectPath == memo }
        XCTAssertEqual(try find("dashwood"), [], "a trashed memo is found no more")
        let trash = fixture.session.dataDirectory.appendingPathComponent("Trash/files").path
        let trashed = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: trash).first)
        let gvfsd = try fixture.session.launch("/usr/libexec/gvfsd", [], logName: "gvfsd")
        defer { _ = gvfsd.terminate() }
        try waitUntil("gvfsd owns org.gtk.vfs.Daemon", timeout: .seconds(10)) {
            try fixture.session.busNameHasOwner("org.gtk.vfs.Daemon")
        }
        let uri = "trash:///" + trashed.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
        let restoring = try fixture.session.run(try Executable.find("gio"), ["trash", "--restore", uri])
        XCTAssertEqual(restoring.status, 0, "\(restoring)")
        try waitUntil("the memo is back", timeout: .seconds(10)) { try self.recorder.managedMemos()[memo] != nil }
        XCTAssertEqual(try transcript(of: memo), after.map(\.text).joined(separator: " "))
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.transcriptStatus).string, "done")
        XCTAssertEqual(try find("dashwood"), [memo])
    }

    func testEachFormatKeepsItsTranscriptInItsOwnTagsAcrossARestart() throws {
        let clip = clips[4]  // "he might even have been made amiable himself"
        var memos: [(ObjectPath, AudioFormat)] = []
        for format in [AudioFormat.wav, .flac, .opus, .mp3] {
            let memo = try addClipMemo(clip, format: format)
            let mark = try recorder.markSignals()
            _ = try recorder.callMemo(memo, MemoMember.transcribe)
            try waitForTranscript(of: memo, after: mark)
            let text = try transcript(of: memo)
            XCTAssertLessThanOrEqual(errors(text, clip), 2, "\(format): \(text)")
            memos.append((memo, format))
        }
        // The file's own tags, as another program reads them.
        let ffprobe = try Executable.find("ffprobe")
        for (memo, format) in memos where format != .wav {
            let file = try recorder.file(of: memo)
            let shown = try fixture.session.run(
                ffprobe, ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", file.path])
            XCTAssertTrue(shown.stdout.contains("WEBVTT"), "\(format): ffprobe shows the transcript tag: \(shown)")
            XCTAssertTrue(shown.stdout.lowercased().contains("amiable"), "\(format)")
        }
        let wave = try Data(contentsOf: try recorder.file(of: memos[0].0))
        XCTAssertNotNil(wave.range(of: Data("ITRS".utf8)), "the WAV memo's LIST/INFO holds an ITRS item")

        // Without the library cache, the new daemon reads each transcript from its file.
        let before = try memos.map { try transcript(of: $0.0) }
        daemon.stop()
        try? FileManager.default.removeItem(
            at: fixture.session.runtimeDirectory.appendingPathComponent("voicememo/library.cache"))
        let restarted = try fixture.launchDaemon(environment: try Self.daemonEnvironment())
        defer { restarted.stop() }
        XCTAssertEqual(try memos.map { try transcript(of: $0.0) }, before)
        for (memo, _) in memos {
            XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.transcriptStatus).string, "done")
        }
    }

    func testADaemonKilledMidJobTranscribesTheMemoAfterItsRestart() throws {
        // Thirty seconds of speech: long enough to be killed in the middle of.
        let memo = try addSpeechMemo(SpeechClip.upsampled(clips.flatMap(\.samples)), title: "All five")
        let mark = try recorder.markSignals()
        _ = try recorder.callMemo(memo, MemoMember.transcribe)
        try recorder.waitForSignal("PropertiesChanged", timeout: .seconds(30), after: mark) {
            $0.path == memo && $0.arguments[1].stringDictionary?[MemoMember.transcriptStatus.name]?.string == "running"
        }
        _ = daemon.kill()
        let restarted = try fixture.launchDaemon(environment: try Self.daemonEnvironment())
        defer { restarted.stop() }
        let status = try recorder.memoProperty(memo, MemoMember.transcriptStatus).string
        XCTAssertTrue(["queued", "running", "done"].contains(status), "picked up again: \(status ?? "")")
        try waitUntil("the memo is transcribed", timeout: Self.transcriptionTimeout, pollingEvery: .milliseconds(250)) {
            try self.recorder.memoProperty(memo, MemoMember.transcriptStatus).string == "done"
        }
        let words = WordErrorRate.words(try transcript(of: memo))
        let reference = clips.flatMap(\.words)
        XCTAssertLessThanOrEqual(
            Double(WordErrorRate.errors(reference: reference, hypothesis: words)) / Double(reference.count), 0.15)
    }

    func testAKilledWorkerFailsItsMemoAndTheDaemonGoesOnWithTheNext() throws {
        let first = try addSpeechMemo(SpeechClip.upsampled(clips.flatMap(\.samples)), title: "Long")
        let second = try addClipMemo(clips[4])
        let mark = try recorder.markSignals()
        _ = try recorder.callMemo(first, MemoMember.transcribe)
        _ = try recorder.callMemo(second, MemoMember.transcribe)
        XCTAssertEqual(try recorder.memoProperty(second, MemoMember.transcriptStatus).string, "queued")
        try recorder.waitForSignal("PropertiesChanged", timeout: .seconds(30), after: mark) {
            $0.path == first && $0.arguments[1].stringDictionary?[MemoMember.transcriptStatus.name]?.string == "running"
        }
        let workers = ProcessTree.children(of: daemon.process.pid)
        XCTAssertEqual(workers.count, 1, "one worker: \(workers)")
        for worker in workers { kill(worker, SIGKILL) }
        try waitForTranscript(of: first, after: mark, expecting: "failed")
        XCTAssertTrue(daemon.isRunning)
        XCTAssertTrue(daemon.log.contains("failed: the worker was killed by signal 9"), daemon.log)
        try waitForTranscript(of: second, after: mark)
        XCTAssertLessThanOrEqual(errors(try transcript(of: second), clips[4]), 1)
        XCTAssertEqual(try transcript(of: first), "", "the failed memo is untouched")
        try waitUntil("the worker is gone once the queue is empty", timeout: .seconds(10)) {
            ProcessTree.children(of: self.daemon.process.pid).isEmpty
        }
    }

    /// A recording that starts while a memo is transcribed has the worker stopped until its
    /// reply (the first audio): at idle priority the worker still made Record late by a graph
    /// cycle or two on PipeWire. Stopped during the call, running again after it, and the
    /// transcript as good.
    func testTheWorkerIsStoppedWhileARecordingStarts() throws {
        let memo = try addSpeechMemo(SpeechClip.upsampled(clips.flatMap(\.samples)), title: "All five")
        let mark = try recorder.markSignals()
        _ = try recorder.callMemo(memo, MemoMember.transcribe)
        try recorder.waitForSignal("PropertiesChanged", timeout: .seconds(30), after: mark) {
            $0.path == memo && $0.arguments[1].stringDictionary?[MemoMember.transcriptStatus.name]?.string == "running"
        }
        let worker = try XCTUnwrap(ProcessTree.children(of: daemon.process.pid).first)
        XCTAssertEqual(getpgid(worker), worker, "a process group of its own")

        let states = ProcessStates(of: worker)
        let started = states.start()
        _ = try recorder.recordWithOptions(["format": .string("wav")])
        let answered = states.now
        try waitUntil("the worker runs again", timeout: .seconds(1)) { states.latest != "T" }
        let seen = states.stop()
        XCTAssertTrue(
            seen.contains { $0.state == "T" && $0.time >= started && $0.time <= answered },
            "stopped during the call; states read: \(Dictionary(grouping: seen, by: \.state).mapValues(\.count))")

        try recorder.waitUntilRecorded(0.3)
        _ = try recorder.call(RecorderMember.stop)
        try waitForTranscript(of: memo, after: mark)
        let reference = clips.flatMap(\.words)
        let words = WordErrorRate.words(try transcript(of: memo))
        let errors = WordErrorRate.errors(reference: reference, hypothesis: words)
        XCTAssertLessThanOrEqual(Double(errors) / Double(reference.count), 0.15)
    }

    func testTheMemoBeingRecordedIsBusyAndTheRecordingIsQueuedWhenItEnds() throws {
        let memo = try recorder.recordWithOptions(["transcribe": .boolean(true), "format": .string("flac")])
        try recorder.waitUntilRecorded(0.3)
        let busy = try recorder.callMemoFailing(memo, MemoMember.transcribe)
        XCTAssertEqual(busy?.name, ContractError.busy.name)
        let mark = try recorder.markSignals()
        _ = try recorder.call(RecorderMember.stop)
        // Queued by the option alone (TranscribeNewMemos is off), once finished.
        XCTAssertEqual(try recorder.property(RecorderMember.transcribeNewMemos).boolean, false)
        let statuses = try waitForTranscript(of: memo, after: mark)
        XCTAssertEqual(statuses, ["queued", "running", "done"])
    }

    func testTheModelIsAValidatedPersistedSetting() throws {
        XCTAssertEqual(try recorder.property(RecorderMember.transcriptionModel).string, "tiny.en")
        XCTAssertEqual(try recorder.property(RecorderMember.transcribeNewMemos).boolean, false)
        for bad in ["", "../tiny.en", "tiny en", "a/b/c", "relative/../x", "tiny.en\n"] {
            let error = try recorder.setPropertyFailing(RecorderMember.transcriptionModel, .string(bad))
            XCTAssertEqual(error?.name, ContractError.invalidArgument.name, "'\(bad)'")
            XCTAssertTrue(error?.message.contains(RecorderMember.transcriptionModel.name) ?? false)
        }
        let mark = try recorder.markSignals()
        try recorder.setProperty(RecorderMember.transcriptionModel, .string("base.en"))
        let changed = try recorder.waitForSignal("PropertiesChanged", after: mark) {
            $0.arguments[1].stringDictionary?[RecorderMember.transcriptionEngine.name] != nil
        }
        XCTAssertTrue(
            changed.arguments[1].stringDictionary?[RecorderMember.transcriptionEngine.name]?.string?.hasSuffix(
                "model base.en") ?? false)
        XCTAssertEqual(
            changed.arguments[1].stringDictionary?[RecorderMember.transcriptionModel.name]?.string, "base.en",
            "the model and the engine it changes in one PropertiesChanged")
        daemon.stop()
        let restarted = try fixture.launchDaemon(environment: try Self.daemonEnvironment())
        defer { restarted.stop() }
        XCTAssertEqual(try recorder.property(RecorderMember.transcriptionModel).string, "base.en")
    }

    func testTheCommandLineTranscribesPrintsEachFormatAndSearchesWhatWasSaid() throws {
        let memo = try addClipMemo(clips[0])
        let id = String(memo.lastElement)
        let waited = try fixture.voicememo(["transcribe", id, "--wait"], timeout: .seconds(120))
        XCTAssertEqual(waited.status, 0, "\(waited)")
        XCTAssertTrue(waited.stdout.lowercased().contains("dashwood"), waited.stdout)
        let vtt = try fixture.voicememo(["transcript", id, "--format", "vtt"]).stdout
        XCTAssertTrue(vtt.hasPrefix("WEBVTT\n\n"), vtt)
        XCTAssertTrue(vtt.contains(" --> "), vtt)
        let srt = try fixture.voicememo(["transcript", id, "--format", "srt"]).stdout
        XCTAssertTrue(srt.hasPrefix("1\n00:00:0"), srt)
        XCTAssertTrue(srt.contains(","), "SubRip times have a comma: \(srt)")
        let json = try fixture.voicememo(["transcript", id, "--format", "json"]).stdout
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        XCTAssertEqual(parsed.count, try segments(of: memo).count)
        XCTAssertNotNil(parsed.first?["start"] as? Double)
        let text = try fixture.voicememo(["transcript", id]).stdout
        XCTAssertEqual(text.trimmingCharacters(in: .newlines), try transcript(of: memo))

        let found = try fixture.voicememo(["list", "--search", "Dashwood"]).stdout.split(separator: "\n")
        XCTAssertEqual(found.count, 2, "the memo and the words it was found by: \(found)")
        XCTAssertTrue(found.first?.hasPrefix(id) ?? false)
        let excerpt = String(found.last ?? "")
        XCTAssertTrue(excerpt.hasPrefix("    0:0"), "the time in the memo first: \(excerpt)")
        XCTAssertTrue(excerpt.lowercased().contains("dashwood"), excerpt)
        let bad = try fixture.voicememo(["transcript", id, "--format", "doc"])
        XCTAssertEqual(bad.status, 64)
    }
}

/// Without an engine: the setting's environment is empty.
final class TranscriptionWithoutEngineTests: RecorderTestCase {
    static let emptyEnvironment = FileManager.default.temporaryDirectory.appendingPathComponent(
        "voicememo-no-engine-\(getpid())"
    ).path

    override class func daemonEnvironment() throws -> [String: String] {
        try FileManager.default.createDirectory(atPath: emptyEnvironment, withIntermediateDirectories: true)
        return ["VOICEMEMO_TRANSCRIPTION_ENGINE": emptyEnvironment]
    }

    func testTranscribeIsNotAvailableAndNamesTheCommandThatInstallsTheEngine() throws {
        XCTAssertEqual(try recorder.property(RecorderMember.transcriptionEngine).string, "")
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -60), title: "Tone", format: .wav)
        let memo = try addMemo(Array(Stimulus.period), named: name)
        let error = try recorder.callMemoFailing(memo, MemoMember.transcribe)
        XCTAssertEqual(error?.name, ContractError.notAvailable.name)
        XCTAssertTrue(error?.message.contains("pip install faster-whisper") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains(Self.emptyEnvironment) ?? false)
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.transcriptStatus).string, "none")
        let cli = try fixture.voicememo(["transcribe", String(memo.lastElement)])
        XCTAssertEqual(cli.status, 1)
        XCTAssertTrue(cli.stderr.contains("pip install faster-whisper"), cli.stderr)
    }
}

/// A process's scheduling state (`R`, `S`, `T` for stopped…) read from `/proc/<pid>/stat` as
/// often as a thread can, with when it was read: a stop of 20 ms is seen hundreds of times.
private final class ProcessStates: @unchecked Sendable {
    private let pid: pid_t
    private let lock = NSLock()
    private var samples: [(time: ContinuousClock.Instant, state: Character)] = []
    private var isRunning = false
    private let finished = DispatchSemaphore(value: 0)

    init(of pid: pid_t) { self.pid = pid }

    var now: ContinuousClock.Instant { ContinuousClock.now }

    /// The last state read.
    var latest: Character? { lock.withLock { samples.last?.state } }

    /// Starts reading; returns when reading began.
    func start() -> ContinuousClock.Instant {
        let began = ContinuousClock.now
        lock.withLock { isRunning = true }
        Thread.detachNewThread { [self] in
            while lock.withLock({ isRunning }) {
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let end = stat.lastIndex(of: ")")
                else { break }
                let state = stat[stat.index(end, offsetBy: 2)]
                lock.withLock { samples.append((ContinuousClock.now, state)) }
            }
            finished.signal()
        }
        return began
    }

    /// Stops reading and returns every state read.
    func stop() -> [(time: ContinuousClock.Instant, state: Character)] {
        lock.withLock { isRunning = false }
        finished.wait()
        return lock.withLock { samples }
    }
}
