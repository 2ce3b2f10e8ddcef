import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract

extension RecorderBenchmark {
    /// CPU per minute of recording for each `RecordingFormat`, voicememod against parecord
    /// in interleaved runs: the client alone, and client plus audio server over the same
    /// window; and resident memory while recording. For WAV and FLAC the bars run too: the
    /// C reference on `pa_simple` (what the API voicememo records through costs by itself)
    /// and GNOME Sound Recorder's GStreamer pipeline (what a desktop user would otherwise run).
    func measureRecordingCost() throws {
        let referenceProgram = try ReferenceProgram.build(
            into: fixture.session.root, environment: fixture.session.environment)
        let daemon = try fixture.launchDaemon()
        defer { daemon.stop() }
        let client = try VoiceMemoProxy(session: fixture.session, marksEachCall: false)
        let window = plan.cpuWindow
        let idleStreams = try recordStreamCount()
        var residentRecording: [Double] = []
        var residentBaseline: [Double] = []
        table.beginSection("CPU per minute of recording, 48 kHz, 20 ms fragments (s; steady state)")
        for format in RecordingFormat.allCases {
            var own: [Double] = []
            var ownWithServer: [Double] = []
            var baseline: [Double] = []
            var baselineWithServer: [Double] = []
            var reference: [Double] = []
            var gstreamer: [Double] = []
            var opusBitrate = 48_000
            for _ in 0..<plan.cpuRuns {
                let memo = try client.recordWithOptions([
                    "format": .string(format.daemonFormat), "channels": .uint32(format.channels),
                    "sample-rate": .uint32(48_000),
                ])
                try waitForRecordStreams(idleStreams + 1)
                let recorded = try accounting(of: [daemon.process.pid], recordingFor: window)
                let stopping = try client.markSignals()
                try client.call(RecorderMember.stop)
                try client.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(10), after: stopping)
                own.append(perMinute(recorded.client.cpuSeconds, over: window))
                ownWithServer.append(perMinute(recorded.client.cpuSeconds + recorded.server.cpuSeconds, over: window))
                residentRecording.append(Double(recorded.client.residentKilobytes) / 1024)
                if format == .opusMono { opusBitrate = try Self.bitrate(of: client.file(of: memo)) }

                let base = try cost(
                    of: BaselineRecorder(format: format, opusBitrate: opusBitrate, in: fixture.session), idleStreams)
                baseline.append(perMinute(base.client.cpuSeconds, over: window))
                baselineWithServer.append(perMinute(base.client.cpuSeconds + base.server.cpuSeconds, over: window))
                residentBaseline.append(Double(base.client.residentKilobytes) / 1024)

                guard format != .opusMono else { continue }
                let simple = try cost(
                    of: BaselineRecorder(reference: referenceProgram, format: format, in: fixture.session), idleStreams)
                reference.append(perMinute(simple.client.cpuSeconds, over: window))
                let pipeline = try cost(of: BaselineRecorder(gstreamer: format, in: fixture.session), idleStreams)
                gstreamer.append(perMinute(pipeline.client.cpuSeconds, over: window))
            }
            // parecord is shown, no longer the bar: any pa_simple recorder costs about twice its CPU.
            table.add(
                .init(figure: "\(format.label): client, vs parecord", voicememod: own.mean, baseline: baseline.mean))
            table.add(
                .init(
                    figure: "\(format.label): client + server, vs parecord", voicememod: ownWithServer.mean,
                    baseline: baselineWithServer.mean))
            if !reference.isEmpty {
                table.add(Self.bar(format.label + ": " + Self.referenceFigure, own.mean, reference.mean, at: 1.1))
                table.add(Self.bar(format.label + ": " + Self.gstreamerFigure, own.mean, gstreamer.mean, at: 0.65))
            }
            if format == .opusMono {
                table.notes.append(
                    "parecord has no Opus: its opus figures are `parecord --raw | opusenc --bitrate \(opusBitrate / 1000)` "
                        + "(voicememod's measured bitrate), two processes through a FIFO")
            }
        }
        table.add(
            .init(
                figure: "resident memory while recording (MiB, max over runs)",
                voicememod: residentRecording.max() ?? 0,
                baseline: residentBaseline.max()))
        table.notes.append(
            "CPU: user + system time from /proc/<pid>/stat over \(Int(window.timeInterval)) s windows scaled to one minute, "
                + "pooled over \(plan.cpuRuns) interleaved runs (their mean: one run counts in 10 ms ticks, ±7 % of a recorder's window); the window opens once the record stream exists; "
                + "server = every process of the audio server, including its share for the stimulus playing into the microphone"
        )
        table.notes.append(
            "C reference on pa_simple: `Tests/Benchmarks/simple-recorder.c`, one thread reading 20 ms fragments with "
                + "`pa_simple_read` into `sf_writef_short`, with voicememod's durability (once a second of frames: "
                + "`SFC_UPDATE_HEADER_NOW` for WAV, then `fsync`) and its container (WAV as RF64 that stays a plain WAV "
                + "until 4 GiB); no metering, no bus: what a recorder through `pa_simple` that keeps the same promise "
                + "costs at least")
        table.notes.append(
            "GStreamer: `gst-launch-1.0 pulsesrc ! audio/x-raw,rate=48000 ! audioconvert ! level ! wavenc|flacenc ! filesink`, "
                + "GNOME Sound Recorder's pipeline at its defaults (level every 100 ms, pulsesrc's 10 ms latency)")
        table.notes.append(
            "FLAC: voicememod at its default quality (compression level 4), parecord at libsndfile's default (5), "
                + "GStreamer's flacenc at its default (5)")
    }

    /// Lets `recorder` record for one CPU window once its stream exists, then stops it and
    /// removes its file: what it and the audio server cost meanwhile.
    func cost(of recorder: BaselineRecorder, _ idleStreams: Int) throws -> (
        client: ProcessSample, server: ProcessSample
    ) {
        try waitForRecordStreams(idleStreams + 1)
        let cost = try accounting(of: recorder.pids, recordingFor: plan.cpuWindow)
        try recorder.stop()
        try? FileManager.default.removeItem(at: recorder.file)
        try waitForRecordStreams(idleStreams)
        return cost
    }

    /// The figures whose baseline is the C reference on `pa_simple`, and GStreamer's pipeline.
    static let referenceFigure = "client, vs the C reference on pa_simple"
    static let gstreamerFigure = "client, vs GNOME Sound Recorder's GStreamer pipeline"

    /// A row held to a ratio target: voicememod's value at most `limit` times the baseline's.
    static func bar(_ figure: String, _ own: Double, _ baseline: Double, at limit: Double) -> BenchmarkTable.Row {
        var row = BenchmarkTable.Row(
            figure: figure, voicememod: own, baseline: baseline, target: "≤ " + String(format: "%.2g", limit) + "×")
        row.isMet = (row.ratio ?? .infinity) <= limit
        return row
    }

    /// The average bitrate of the audio file at `url`, in bits per second.
    private static func bitrate(of url: URL) throws -> Int {
        let reader = try SoundFileReader(path: url.path)
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        return reader.duration > 0 ? Int(Double(size * 8) / reader.duration) : 48_000
    }
}
