import Bus
import Foundation
import IntegrationSupport

extension RecorderBenchmark {
    /// What cleaning the voice costs (issue 27): CPU per minute of the daemon recording a
    /// 48 kHz mono WAV with `noise-suppression`, `auto-gain` and both, each against the same
    /// memo without them, in interleaved runs.
    func measureVoiceCleaningCost() throws {
        let daemon = try fixture.launchDaemon()
        defer { daemon.stop() }
        let client = try VoiceMemoProxy(session: fixture.session, marksEachCall: false)
        let streams = try recordStreamCount() + 1
        let plain: [String: BusValue] = [
            "format": .string("wav"), "channels": .uint32(1), "sample-rate": .uint32(48_000),
        ]
        table.beginSection(
            "Cleaning the voice: 48 kHz mono WAV (s of CPU per minute), against the same memo without it")
        for cleaning in [["noise-suppression"], ["auto-gain"], ["noise-suppression", "auto-gain"]] {
            var cleaned: [Double] = []
            var uncleaned: [Double] = []
            let options = plain.merging(cleaning.map { ($0, BusValue.boolean(true)) }) { $1 }
            for _ in 0..<plan.cpuRuns {
                uncleaned.append(try recordingCPU(client, daemon, plain, streams: streams))
                cleaned.append(try recordingCPU(client, daemon, options, streams: streams))
            }
            table.add(
                .init(
                    figure: "wav mono, \(cleaning.joined(separator: " + ")): client, vs without",
                    voicememod: cleaned.mean, baseline: uncleaned.mean))
        }
        table.notes.append(
            "cleaning the voice: speexdsp's preprocessor on 10 ms frames; noise-suppression runs two stages, "
                + "auto-gain one (the second, with noise suppression too)")
    }
}
