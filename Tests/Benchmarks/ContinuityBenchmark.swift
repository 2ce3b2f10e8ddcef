import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract

extension RecorderBenchmark {
    /// Records the stimulus for `plan.continuityRecording` into a 16-bit mono WAV and
    /// counts its samples: against what the source produced between the `Record` reply
    /// and the `Stop` call, and against the longest bit-exact run of the tone (a lost or
    /// repeated sample anywhere breaks the run); keeps the figures the test asserts in
    /// `continuity`.
    func measureContinuity() throws {
        let daemon = try fixture.launchDaemon()
        defer { daemon.stop() }
        let client = try VoiceMemoProxy(session: fixture.session, marksEachCall: false)
        var span = RecordingSpan()
        let memo = try span.start {
            try client.recordWithOptions(
                ["format": .string("wav"), "channels": .uint32(1), "sample-rate": .uint32(48_000)])
        }
        elapse(plan.continuityRecording)
        let stopping = try client.markSignals()
        _ = try span.stop { try client.call(RecorderMember.stop) }
        try client.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(10), after: stopping)

        let samples = try SoundFileReader(path: client.file(of: memo).path).readInt16()
        continuity = SampleContinuity(samples: samples, span: span)
        let produced = span.seconds.lowerBound * Double(Stimulus.sampleRate)
        let exactRun = AudioAnalysis.alignedExactRun(recorded: samples, period: Stimulus.period)
        let leadingSilence = samples.firstIndex { $0 != 0 } ?? samples.count
        let buffer = Double(Stimulus.sampleRate / 50)
        let seconds = Int(plan.continuityRecording.timeInterval)

        table.beginSection("Samples over a \(seconds) s recording (wav mono; one buffer = \(Int(buffer)) samples)")
        table.add(.init(figure: "samples written", voicememod: Double(samples.count)))
        let difference = Double(samples.count) - produced
        table.add(
            .init(
                figure: "written − produced (48 kHz × Record reply → Stop call)", voicememod: difference,
                target: "0 … +\(Int(buffer))", isMet: difference >= -buffer / 10 && difference <= buffer * 1.1))
        let outsideRun = Double(samples.count - leadingSilence - exactRun)
        table.add(
            .init(
                figure: "samples outside the one bit-exact run of the tone", voicememod: outsideRun,
                target: "≤ \(Int(buffer))", isMet: outsideRun <= buffer))
        table.notes.append(
            "produced: the source runs at 48 kHz, so it produced 48 000 samples a second between the Record reply "
                + "(audio flows: one fragment is already captured) and the Stop call; up to one more buffer is expected"
        )
    }
}
