import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract

extension RecorderBenchmark {
    /// What waiting for sound costs (`start-on-sound`): the daemon captures a silent input
    /// and keeps its pre-roll, writing nothing, for `plan.idleWindow`; CPU scaled to an hour,
    /// for the daemon alone and with the audio server's share, and the daemon's wake-ups.
    func measureWaitingCost() throws {
        fixture.stimulus.stop()  // silence, so the wait lasts the whole window
        defer { try? fixture.stimulus.start() }
        let daemon = try fixture.launchDaemon()
        defer { daemon.stop() }
        let client = try VoiceMemoProxy(session: fixture.session, marksEachCall: false)
        let idleStreams = try recordStreamCount()
        let options: [String: BusValue] = ["format": .string("opus"), "start-on-sound": .boolean(true)]
        try client.call(RecorderMember.recordWithOptions, [.stringDictionary(options)])
        try waitForRecordStreams(idleStreams + 1)
        let window = plan.idleWindow
        let waited = try accounting(of: [daemon.process.pid], recordingFor: window)
        let state = try client.property(RecorderMember.state).string
        try client.call(RecorderMember.cancel)
        guard state == "scheduled" else {
            throw BenchmarkError.unexpected("the recorder stopped waiting (State \(state ?? "?")) on a silent input")
        }

        let hour = 3600 / window.timeInterval
        table.beginSection("Waiting for sound over \(Int(window.timeInterval)) s (start-on-sound, silent input)")
        table.add(.init(figure: "CPU of voicememod (s per hour)", voicememod: waited.client.cpuSeconds * hour))
        table.add(
            .init(
                figure: "CPU of voicememod and the audio server (s per hour)",
                voicememod: (waited.client.cpuSeconds + waited.server.cpuSeconds) * hour))
        table.add(
            .init(
                figure: "context switches per s (all threads)",
                voicememod: Double(waited.client.contextSwitches) / window.timeInterval))
        table.notes.append(
            "waiting: RecordWithOptions start-on-sound (opus, 48 kHz mono, pre-roll 0.5 s) with the stimulus stopped; "
                + "user + system time of voicememod (and of every audio server process) over the window, scaled to one hour"
        )
    }
}
