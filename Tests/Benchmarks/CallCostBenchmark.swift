import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract

extension RecorderBenchmark {
    /// What recording a call costs (`system-audio`, `split`): CPU per minute of the daemon
    /// recording the microphone and the default output's monitor into a stereo WAV, against
    /// the same memo of the microphone alone (interleaved runs), and against two C reference
    /// recorders on `pa_simple`, one per input, each into a mono WAV: what reading both
    /// streams costs by itself.
    func measureCallCost() throws {
        let referenceProgram = try ReferenceProgram.build(
            into: fixture.session.root, environment: fixture.session.environment)
        let farSide = Stimulus(
            session: fixture.session, server: fixture.audioServer, sink: AudioDevices.speaker, frequency: 1000)
        try farSide.start()
        defer { farSide.stop() }
        let daemon = try fixture.launchDaemon()
        defer { daemon.stop() }
        let client = try VoiceMemoProxy(session: fixture.session, marksEachCall: false)
        let idleStreams = try recordStreamCount()
        let memo: [String: BusValue] = [
            "format": .string("wav"), "channels": .uint32(2), "sample-rate": .uint32(48_000),
        ]
        var call = memo
        call["system-audio"] = .boolean(true)
        call["channel-layout"] = .string("split")
        var single: [Double] = []
        var calls: [Double] = []
        var references: [Double] = []
        for _ in 0..<plan.cpuRuns {
            single.append(try recordingCPU(client, daemon, memo, streams: idleStreams + 1))
            calls.append(try recordingCPU(client, daemon, call, streams: idleStreams + 2))
            let microphone = try BaselineRecorder(
                reference: referenceProgram, format: .wavStereo, channels: 1, in: fixture.session)
            let output = try BaselineRecorder(
                reference: referenceProgram, format: .wavStereo, channels: 1,
                device: "\(AudioDevices.speaker).monitor", in: fixture.session)
            try waitForRecordStreams(idleStreams + 2)
            let both = try accounting(of: microphone.pids + output.pids, recordingFor: plan.cpuWindow)
            for recorder in [microphone, output] {
                try recorder.stop()
                try? FileManager.default.removeItem(at: recorder.file)
            }
            try waitForRecordStreams(idleStreams)
            references.append(perMinute(both.client.cpuSeconds, over: plan.cpuWindow))
        }
        table.beginSection(
            "Recording a call: microphone and system audio, 48 kHz stereo WAV, split (s of CPU per minute)")
        table.add(Self.bar(Self.callFigure, calls.mean, single.mean, at: 2))
        table.add(
            .init(
                figure: "call: client, vs two C reference recorders on pa_simple (one per input)",
                voicememod: calls.mean, baseline: references.mean))
        table.notes.append(
            "call: RecordWithOptions system-audio, channel-layout split (the microphone left, the default output's "
                + "monitor right, a 1 kHz tone playing to it), against the same memo with the microphone alone in "
                + "interleaved runs; the C references are two `simple-recorder.c` processes, each reading one input "
                + "into its own mono WAV (CPU of both)")
    }

    /// The call row held to a ratio target.
    static let callFigure = "call: client, vs the same memo of the microphone alone"

    /// CPU per minute of the daemon recording with `options` over one CPU window, once the
    /// server has `streams` record streams; the memo is stopped after.
    func recordingCPU(
        _ client: VoiceMemoProxy, _ daemon: Daemon, _ options: [String: BusValue], streams: Int
    ) throws -> Double {
        _ = try client.recordWithOptions(options)
        try waitForRecordStreams(streams)
        let recorded = try accounting(of: [daemon.process.pid], recordingFor: plan.cpuWindow)
        let stopping = try client.markSignals()
        try client.call(RecorderMember.stop)
        try client.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(10), after: stopping)
        return perMinute(recorded.client.cpuSeconds, over: plan.cpuWindow)
    }
}
