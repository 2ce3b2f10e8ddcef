import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract

extension RecorderBenchmark {
    /// `Record` → reply and → first frame in the file, `Stop` → reply and →
    /// `RecordingFinished`, and the same through `Toggle`, over `plan.latencyRuns` cycles
    /// each, in one format and at the same points of the capture's fragments, so that the two
    /// ways of stopping are compared like with like; then `Stop` of an Opus memo, for what the
    /// format adds. The baseline is parecord launched → first frame, and SIGTERM → exited.
    func measureLatency() throws {
        let daemon = try fixture.launchDaemon()
        defer { daemon.stop() }
        let client = try VoiceMemoProxy(session: fixture.session, marksEachCall: false)
        try client.setProperty(RecorderMember.format, .string("wav"))
        try client.setProperty(RecorderMember.channels, .uint32(1))

        let record = { _ = try client.call(RecorderMember.record) }
        let stop = { _ = try client.call(RecorderMember.stop) }
        let toggle = { _ = try client.call(RecorderMember.toggle) }
        let stops = try measureCycles(client, start: record, stop: stop)
        let toggles = try measureCycles(client, start: toggle, stop: toggle)
        try client.setProperty(RecorderMember.format, .string("opus"))
        let opusStops = try measureCycles(client, start: record, stop: stop)

        var launchFirstFrame: [Double] = []
        var terminateExit: [Double] = []
        for _ in 0..<plan.latencyRuns {
            let launched = clock.now
            let parecord = try BaselineRecorder(format: nil, in: fixture.session)
            try waitUntil("parecord's first frame is on disk", timeout: .seconds(5), pollingEvery: .milliseconds(1)) {
                parecord.fileSize > 0
            }
            launchFirstFrame.append((clock.now - launched).milliseconds)
            elapse(plan.latencyRecording)
            let stopping = clock.now
            try parecord.stop()
            terminateExit.append((clock.now - stopping).milliseconds)
            try? FileManager.default.removeItem(at: parecord.file)
        }

        table.beginSection("Latency over \(plan.latencyRuns) cycles (ms; parecord: process launch and SIGTERM)")
        addPercentiles("Record → reply", stops.map(\.startReply), target: .below(50))
        addPercentiles("Record → first frame in the file", stops.map(\.firstFrame), baseline: launchFirstFrame)
        addPercentiles("Record reply → first frame in the file", stops.map(\.firstFrameAfterReply), target: .below(50))
        addPercentiles(Self.stopFigure, stops.map(\.stopReply), baseline: terminateExit, target: .atMost(25))
        addPercentiles(
            "Stop → RecordingFinished received", stops.map(\.stopFinished), baseline: terminateExit, target: .below(50))
        addPercentiles("Toggle → reply, starting", toggles.map(\.startReply), target: .below(20))
        addPercentiles(Self.toggleStopFigure, toggles.map(\.stopReply), target: .atMost(25))
        addPercentiles("Stop → reply, opus (file finalized)", opusStops.map(\.stopReply))
    }

    /// The stopping latencies held to 25 ms at p95.
    static let stopFigure = "Stop → reply (file finalized)"
    static let toggleStopFigure = "Toggle → reply, stopping"

    /// One cycle's latencies, in milliseconds.
    private struct CycleLatency {
        var startReply: Double
        var firstFrame: Double
        var firstFrameAfterReply: Double
        var stopReply: Double
        var stopFinished: Double
    }

    /// `plan.latencyRuns` recordings begun by `start` and ended by
    /// `stop`. A stop waits for the capture's fragment in flight (20 ms), so where in it the
    /// request lands is most of its latency: the first frame on disk ties the clock to the
    /// fragments, and each cycle then stops one step further into a fragment, the same steps
    /// for every caller of this.
    private func measureCycles(
        _ client: VoiceMemoProxy, start: () throws -> Void, stop: () throws -> Void
    ) throws -> [CycleLatency] {
        let fragment = Duration.milliseconds(20)
        return try (0..<plan.latencyRuns).map { run in
            let called = clock.now
            try start()
            let replied = clock.now
            // Read after the clock, so that a start's latency is its own call's alone.
            guard let memo = try client.property(RecorderMember.currentMemo).objectPath else {
                throw BenchmarkError.unexpected("the start call began no recording")
            }
            let file = try client.file(of: memo)
            // The daemon rewrites the WAV header after every write, so its length is the frames
            // on disk; an Opus file grows by its first page.
            try waitUntil("the memo's first frame is on disk", timeout: .seconds(5), pollingEvery: .milliseconds(1)) {
                ((try? SoundFileReader(path: file.path))?.frameCount ?? 0) > 0
            }
            let captured = clock.now
            elapse(plan.latencyRecording + fragment * run / plan.latencyRuns)
            let mark = try client.markSignals()
            let stopping = clock.now
            try stop()
            let stopped = clock.now
            try client.waitForSignal(RecorderMember.recordingFinished.name.rawValue, timeout: .seconds(10), after: mark)
            return CycleLatency(
                startReply: (replied - called).milliseconds, firstFrame: (captured - called).milliseconds,
                firstFrameAfterReply: (captured - replied).milliseconds, stopReply: (stopped - stopping).milliseconds,
                stopFinished: (clock.now - stopping).milliseconds)
        }
    }

    /// Adds the p50 and p95 rows of `values`; the target, if any, applies to p95.
    func addPercentiles(
        _ figure: String, _ values: [Double], baseline: [Double]? = nil, target: BenchmarkTable.Bound? = nil
    ) {
        table.add(.init(figure: "\(figure), p50", voicememod: values.median, baseline: baseline?.median))
        let p95 = values.percentile(95)
        table.add(
            .init(
                figure: "\(figure), p95", voicememod: p95, baseline: baseline?.percentile(95),
                target: target?.description ?? "", isMet: target?.isMet(by: p95)))
    }
}
