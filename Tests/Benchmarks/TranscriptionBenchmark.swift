import Bus
import Foundation
import IntegrationSupport
import SoundFile
import TestSupport
import VoiceMemoContract
import VoiceMemoCore

extension RecorderBenchmark {
    static let transcriptionSpeedFigure = "speed (minutes of speech per minute)"
    static let workerMemoryFigure = "worker peak resident memory (MiB)"
    static let transcribingRecordFigure = "Record → reply p95 while transcribing, − idle (ms)"
    static let transcribingStopFigure = "Stop → reply p95 while transcribing, − idle (ms)"

    /// A memo of speech (the five LibriVox clips with pauses, over and over: ten minutes in
    /// the full plan) transcribed by the real engine: CPU and wall time per minute of speech,
    /// the worker's peak memory, what the daemon keeps of it, and what a recording made
    /// meanwhile pays (its samples and its Stop latency, against the same daemon idle).
    func measureTranscription() throws {
        let daemon = try fixture.launchDaemon(environment: try TestTranscriptionEngine.environment())
        defer { daemon.stop() }
        let client = try VoiceMemoProxy(session: fixture.session, marksEachCall: false)
        try client.setProperty(RecorderMember.format, .string("wav"))
        try client.setProperty(RecorderMember.channels, .uint32(1))
        try client.call(RecorderMember.getLevels)
        let idle = try commandLatencies(client)
        let seconds = plan.isFull ? 600 : 20
        let memo = try writeSpeechMemo(seconds: seconds, client: client)
        // Its 57 MB were written at once and are still the kernel's to write back, where a
        // recorded memo is synced every second: flushed here, so that the writeback is not
        // charged to the recordings measured next.
        sync()
        // The daemon before it: it has recorded and listed memos already (those first uses are
        // the recording's, not the transcription's), and its workers are gone.
        try waitForDispatchWorkers(of: daemon)
        let idleBefore = try ProcessSample.read(daemon.process.pid).residentKilobytes
        let kindsBefore = try ProcessSample.residentKinds(of: daemon.process.pid)
        let mappingsBefore = MemoryMap.largestMappings(of: daemon.process.pid, count: .max)

        let mark = try client.markSignals()
        let started = clock.now
        try client.callMemo(memo, MemoMember.transcribe)
        var worker: pid_t?
        try waitUntil("the daemon starts its worker", timeout: .seconds(10)) {
            worker = ProcessTree.children(of: daemon.process.pid).first
            return worker != nil
        }
        let watch = WorkerWatch(pid: worker!)
        watch.start()
        // While the worker runs: Record and Stop latencies first, then a recording's samples.
        let busy = try commandLatencies(client)
        var span = RecordingSpan()
        let recorded = try span.start {
            try client.recordWithOptions(["format": .string("wav"), "channels": .uint32(1)])
        }
        elapse(plan.isFull ? .seconds(15) : .seconds(2))
        let stopping = try client.markSignals()
        _ = try span.stop { try client.call(RecorderMember.stop) }
        try client.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(10), after: stopping)
        let samples = try SoundFileReader(path: client.file(of: recorded).path).readInt16()
        let produced = span.seconds.lowerBound * Double(Stimulus.sampleRate)
        let stillRunning = ProcessTree.children(of: daemon.process.pid).contains(worker!)

        try client.waitForSignal("PropertiesChanged", timeout: .seconds(1200), after: mark) {
            $0.path == memo
                && ["done", "failed"].contains(
                    $0.arguments[1].stringDictionary?[MemoMember.transcriptStatus.name]?.string ?? "")
        }
        let wall = (clock.now - started).timeInterval
        let status = try client.memoProperty(memo, MemoMember.transcriptStatus).string
        guard status == "done" else {
            throw BenchmarkError.unexpected("the transcription ended \(status ?? "?"); the log:\n\(daemon.log)")
        }
        let usage = watch.stop()
        try waitUntil("the worker is gone", timeout: .seconds(10)) {
            ProcessTree.children(of: daemon.process.pid).isEmpty
        }
        try waitForDispatchWorkers(of: daemon)
        let idleAfter = try ProcessSample.read(daemon.process.pid).residentKilobytes
        let kindsAfter = try ProcessSample.residentKinds(of: daemon.process.pid)
        let mappingsAfter = MemoryMap.largestMappings(of: daemon.process.pid, count: .max)
        let minutes = Double(seconds) / 60

        table.beginSection("Transcription of \(seconds) s of speech (tiny.en, faster-whisper, in the worker)")
        table.add(.init(figure: "worker CPU (s per minute of speech)", voicememod: usage.cpuSeconds / minutes))
        table.add(.init(figure: "wall time (s per minute of speech)", voicememod: wall / minutes))
        table.add(.init(figure: Self.transcriptionSpeedFigure, voicememod: minutes * 60 / wall, bound: .atLeast(4)))
        table.add(
            .init(figure: Self.workerMemoryFigure, voicememod: Double(usage.peakKilobytes) / 1024, bound: .atMost(400)))
        table.add(
            .init(
                figure: "daemon idle resident memory growth after it (MiB)",
                voicememod: Double(idleAfter - idleBefore) / 1024, bound: .atMost(0.5)))
        // What grew: the heap (anonymous pages), or code first run by this transcription and
        // kept as the file's pages (64 KiB around each page faulted), the daemon's or a library's.
        table.add(
            .init(
                figure: "  of which anonymous: heap and stacks (MiB)",
                voicememod: Double(kindsAfter.anonymous - kindsBefore.anonymous) / 1024))
        table.add(
            .init(
                figure: "  of which file-backed: code, the daemon's and its libraries' (MiB)",
                voicememod: Double(kindsAfter.file - kindsBefore.file) / 1024))
        let before = Dictionary(mappingsBefore, uniquingKeysWith: +)
        let grown = mappingsAfter.map { ($0.name, $0.kilobytes - (before[$0.name] ?? 0)) }
            .filter { $0.1 != 0 }.sorted { $0.1 > $1.1 }.prefix(6)
        table.notes.append(
            "transcription: the daemon's resident memory that grew, by mapping (KiB): "
                + grown.map { "\($0.0) \($0.1 > 0 ? "+" : "")\($0.1)" }.joined(separator: ", "))
        let buffer = Double(Stimulus.sampleRate / 50)
        let difference = Double(samples.count) - produced
        table.add(
            .init(
                figure: "written − produced while transcribing (samples)", voicememod: difference,
                target: "0 … +\(Int(buffer))", isMet: difference >= -buffer / 10 && difference <= buffer * 1.1))
        let extraRecord = busy.record.percentile(95) - idle.record.percentile(95)
        table.add(.init(figure: Self.transcribingRecordFigure, voicememod: extraRecord, bound: .atMost(5)))
        let extraStop = busy.stop.percentile(95) - idle.stop.percentile(95)
        table.add(.init(figure: Self.transcribingStopFigure, voicememod: extraStop, bound: .atMost(5)))
        table.notes.append(
            String(
                format:
                    "transcription: Record p95 %.1f ms idle (each: %@), %.1f ms while transcribing (each: %@); "
                    + "Stop p95 %.1f ms idle, %.1f ms while transcribing (each: %@); the worker %@ running when the last recording ended",
                idle.record.percentile(95), idle.record.map { String(format: "%.0f", $0) }.joined(separator: " "),
                busy.record.percentile(95),
                busy.record.map { String(format: "%.0f", $0) }.joined(separator: " "), idle.stop.percentile(95),
                busy.stop.percentile(95), busy.stop.map { String(format: "%.0f", $0) }.joined(separator: " "),
                stillRunning ? "still" : "no longer")
        )
    }

    /// Record → reply and Stop → reply over `plan.latencyRuns` short recordings, each Record
    /// sent at a random point of the audio server's cycle, the same points for every call of this.
    ///
    /// Record's reply waits for the first fragment, so it takes from a few ms to a whole cycle
    /// more, by when in the cycle it comes. A loop of fixed waits locks onto that cycle (Stop's
    /// reply comes on a fragment): every idle Record met it at the same point (16–20 ms on
    /// PulseAudio), and a millisecond's nudge cost a busy one a whole cycle (33–46 ms). A
    /// person's Record falls anywhere in it; so do these, and the idle and the busy daemon get
    /// the same offsets, so that their figures differ only by what the transcription costs.
    private func commandLatencies(_ client: VoiceMemoProxy) throws -> (record: [Double], stop: [Double]) {
        var (records, stops): ([Double], [Double]) = ([], [])
        var random = SeededGenerator(seed: 37)
        for _ in 0..<plan.latencyRuns {
            elapse(.seconds(Double.random(in: 0..<0.1, using: &random)))
            let mark = try client.markSignals()
            let recording = clock.now
            try client.call(RecorderMember.record)
            records.append((clock.now - recording).milliseconds)
            elapse(plan.latencyRecording)
            let stopping = clock.now
            try client.call(RecorderMember.stop)
            stops.append((clock.now - stopping).milliseconds)
            try client.waitForSignal(RecorderMember.recordingFinished.name.rawValue, timeout: .seconds(10), after: mark)
        }
        return (records, stops)
    }

    /// Writes `seconds` of speech as a 48 kHz WAV memo and waits for it to be listed.
    private func writeSpeechMemo(seconds: Int, client: VoiceMemoProxy) throws -> ObjectPath {
        let clips = try SpeechClip.all()
        let pause = [Int16](repeating: 0, count: SpeechClip.sampleRate)
        var speech: [Int16] = []
        while speech.count < seconds * SpeechClip.sampleRate {
            for clip in clips { speech += clip.samples + pause }
        }
        speech = Array(speech.prefix(seconds * SpeechClip.sampleRate))
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -86_400), title: "Speech", format: .wav)
        return try client.addMemo(
            SpeechClip.upsampled(speech), named: name, in: fixture.session, title: "Speech", timeout: .seconds(10))
    }
}

/// Follows a worker process until it ends: its CPU time and its peak resident memory
/// (`VmHWM`), read every 50 ms, the last reading before it went being its total.
final class WorkerWatch: @unchecked Sendable {
    struct Usage {
        var cpuSeconds: Double = 0
        var peakKilobytes = 0
    }

    private let pid: pid_t
    private let lock = NSLock()
    private var usage = Usage()
    private var isWatching = true
    private let finished = DispatchSemaphore(value: 0)

    init(pid: pid_t) { self.pid = pid }

    func start() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ isWatching }) {
                guard let sample = try? ProcessSample.read(pid),
                    let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
                else { break }
                lock.withLock {
                    usage.cpuSeconds = sample.cpuSeconds
                    usage.peakKilobytes = max(usage.peakKilobytes, ProcessSample.field("VmHWM", in: status))
                }
                elapse(.milliseconds(50))
            }
            finished.signal()
        }
    }

    /// Stops watching (the worker is gone by then) and gives what was seen.
    func stop() -> Usage {
        lock.withLock { isWatching = false }
        finished.wait()
        return lock.withLock { usage }
    }
}
