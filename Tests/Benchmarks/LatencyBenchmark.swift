import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract

extension RecorderBenchmark {
    /// `Record` → reply and → first frame in the file, `Stop` → reply and →
    /// `RecordingFinished`, and `Toggle` round trips, over `plan.latencyRuns` cycles each;
    /// the baseline is parecord launched → first frame, and SIGTERM → exited.
    func measureLatency() throws {
        let daemon = try fixture.launchDaemon()
        defer { daemon.stop() }
        let client = try VoiceMemoProxy(session: fixture.session, marksEachCall: false)
        try client.setProperty(RecorderMember.format, .string("wav"))
        try client.setProperty(RecorderMember.channels, .uint32(1))

        var recordReply: [Double] = []
        var firstFrame: [Double] = []
        var firstFrameAfterReply: [Double] = []
        var stopReply: [Double] = []
        var stopFinished: [Double] = []
        for _ in 0..<plan.latencyRuns {
            let called = clock.now
            let reply = try client.call(RecorderMember.record)
            let replied = clock.now
            let file = try client.file(of: client.memo(in: reply))
            // The daemon rewrites the WAV header after every write, so its length is the frames on disk.
            try waitUntil("the memo's first frame is on disk", timeout: .seconds(5), pollingEvery: .milliseconds(1)) {
                ((try? SoundFileReader(path: file.path))?.frameCount ?? 0) > 0
            }
            let captured = clock.now
            keepRecording(for: plan.latencyRecording)
            let mark = try client.markSignals()
            let stopping = clock.now
            try client.call(RecorderMember.stop)
            let stopped = clock.now
            try client.waitForSignal(RecorderMember.recordingFinished.name.rawValue, timeout: .seconds(10), after: mark)
            let finished = clock.now
            recordReply.append((replied - called).milliseconds)
            firstFrame.append((captured - called).milliseconds)
            firstFrameAfterReply.append((captured - replied).milliseconds)
            stopReply.append((stopped - stopping).milliseconds)
            stopFinished.append((finished - stopping).milliseconds)
        }

        var toggleStart: [Double] = []
        var toggleStop: [Double] = []
        try client.setProperty(RecorderMember.format, .string("opus"))
        for _ in 0..<plan.latencyRuns {
            let starting = clock.now
            try client.call(RecorderMember.toggle)
            toggleStart.append((clock.now - starting).milliseconds)
            keepRecording(for: plan.latencyRecording)
            let mark = try client.markSignals()
            let stopping = clock.now
            try client.call(RecorderMember.toggle)
            toggleStop.append((clock.now - stopping).milliseconds)
            try client.waitForSignal(RecorderMember.recordingFinished.name.rawValue, timeout: .seconds(10), after: mark)
        }

        var launchFirstFrame: [Double] = []
        var terminateExit: [Double] = []
        for _ in 0..<plan.latencyRuns {
            let launched = clock.now
            let parecord = try BaselineRecorder(format: nil, in: fixture.session)
            try waitUntil("parecord's first frame is on disk", timeout: .seconds(5), pollingEvery: .milliseconds(1)) {
                parecord.fileSize > 0
            }
            launchFirstFrame.append((clock.now - launched).milliseconds)
            keepRecording(for: plan.latencyRecording)
            let stopping = clock.now
            try parecord.stop()
            terminateExit.append((clock.now - stopping).milliseconds)
            try? FileManager.default.removeItem(at: parecord.file)
        }

        table.beginSection("Latency over \(plan.latencyRuns) cycles (ms; parecord: process launch and SIGTERM)")
        addPercentiles("Record → reply", recordReply, target: .below(50))
        addPercentiles("Record → first frame in the file", firstFrame, baseline: launchFirstFrame)
        addPercentiles("Record reply → first frame in the file", firstFrameAfterReply, target: .below(50))
        addPercentiles(Self.stopFigure, stopReply, baseline: terminateExit, target: .atMost(25))
        addPercentiles("Stop → RecordingFinished received", stopFinished, baseline: terminateExit, target: .below(50))
        addPercentiles("Toggle → reply, starting (opus)", toggleStart, target: .below(20))
        addPercentiles(Self.toggleStopFigure, toggleStop, target: .atMost(25))
    }

    /// The stopping latencies held to 25 ms at p95.
    static let stopFigure = "Stop → reply (file finalized)"
    static let toggleStopFigure = "Toggle → reply, stopping (opus)"

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
