import Foundation
import IntegrationSupport
import VoiceMemoContract

extension RecorderBenchmark {
    /// The idle daemon's resident memory with an empty memo directory, held to 16 MiB.
    static let idleMemoryFigure = "resident memory, empty memo directory (MiB)"

    /// The idle daemon over `plan.idleWindow`: CPU, context switches (each voluntary one is
    /// a wake-up), resident memory; and the audio server's CPU with only the stimulus playing.
    func measureIdle() throws {
        let daemon = try fixture.launchDaemon()
        defer { daemon.stop() }
        // One round trip, so whatever the daemon does after owning its name is done; idle
        // begins once the worker that ran it is gone.
        try VoiceMemoProxy(session: fixture.session, marksEachCall: false).call(RecorderMember.getLevels)
        try waitForDispatchWorkers(of: daemon)
        let pid = daemon.process.pid
        let (idle, server) = try accounting(of: [pid], recordingFor: plan.idleWindow)
        guard daemon.isRunning else {
            throw BenchmarkError.unexpected("voicememod ended while idle; its log:\n\(daemon.log)")
        }
        let kinds = try ProcessSample.residentKinds(of: pid)
        let seconds = plan.idleWindow.timeInterval

        table.beginSection("Idle daemon over \(Int(seconds)) s")
        table.add(
            .init(
                figure: "CPU (s per minute)", voicememod: perMinute(idle.cpuSeconds, over: plan.idleWindow),
                target: "0", isMet: idle.cpuSeconds == 0))
        table.add(
            .init(
                figure: "context switches per s (all threads)", voicememod: Double(idle.contextSwitches) / seconds,
                target: "0", isMet: idle.contextSwitches == 0))
        let resident = Double(idle.residentKilobytes) / 1024
        table.add(.init(figure: Self.idleMemoryFigure, voicememod: resident, bound: .atMost(16)))
        table.add(
            .init(
                figure: "audio server CPU, stimulus only (s per minute)",
                voicememod: perMinute(server.cpuSeconds, over: plan.idleWindow)))
        table.notes.append(
            String(
                format:
                    "idle resident memory: %.1f MiB anonymous, %.1f MiB file-backed (shared libraries), %.1f MiB shared memory",
                Double(kinds.anonymous) / 1024, Double(kinds.file) / 1024, Double(kinds.shared) / 1024)
                + String(
                    format: "; proportional share (Pss) %.1f MiB; largest: ",
                    Double(MemoryMap.proportionalKilobytes(of: pid)) / 1024)
                + MemoryMap.largestMappings(of: pid, count: 8).map {
                    "\($0.name) \(String(format: "%.1f", Double($0.kilobytes) / 1024))"
                }
                .joined(separator: ", "))
        table.notes.append(try codeLayoutNote())
    }

    /// How many of the functions `data/voicememod.order` lays out first the daemon under test
    /// has: a list gone stale as the code changed lays out less and shows here.
    private func codeLayoutNote() throws -> String {
        let order = try String(
            contentsOf: Checkout.root.appendingPathComponent("data/voicememod.order"), encoding: .utf8)
        let listed = Set(order.split(separator: "\n").map { $0.dropFirst(".text.".count) })
        let symbols = try ChildProcess.run(
            "/usr/bin/nm", ["--defined-only", try BuildProducts.voicememod().path], environment: [:],
            timeout: .seconds(60))
        let present = Set(symbols.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last })
            .intersection(listed)
        return "code layout: \(present.count) of the \(listed.count) functions data/voicememod.order lists are in "
            + "this daemon (the static build lays them out first, `make function-order` lists them again)"
    }
}
