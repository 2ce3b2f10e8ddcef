import Bus
import Foundation
import IntegrationSupport

extension RecorderBenchmark {
    /// Daemon start → `org.example.VoiceMemo` owned, with an empty memo directory and with
    /// `plan.memoCount` memos, without the library cache (cold) and with it (warm).
    func measureStartup() throws {
        let session = fixture.session
        let cache = session.runtimeDirectory.appendingPathComponent("voicememo/library.json")
        table.beginSection("Start-up: launch → name owned on the bus (ms, p50 / p95 in the notes)")
        let empty = try startTimes(removingCache: cache)
        try MemoLibraryFiles.create(plan.memoCount, in: session.memoDirectory)
        let cold = try startTimes(removingCache: cache)
        // Each start above saved the cache on SIGTERM; these starts read it.
        let warm = try startTimes(removingCache: nil)
        for (label, times) in [
            ("empty memo directory", empty), ("\(plan.memoCount) memos, no cache (cold)", cold),
            ("\(plan.memoCount) memos, library cache (warm)", warm),
        ] {
            table.add(.init(figure: label, voicememod: times.median))
            table.notes.append(
                String(format: "start-up, %@: p50 %.1f ms, p95 %.1f ms over %d starts", label, times.median,
                    times.percentile(95), times.count))
        }
        try session.resetUserData()
        try? FileManager.default.removeItem(at: cache)
    }

    /// Starts and stops voicememod `plan.startRuns` times; the milliseconds from spawning it
    /// until the bus announces it owns the name (NameOwnerChanged, as a bus client sees it).
    private func startTimes(removingCache cache: URL?) throws -> [Double] {
        let session = fixture.session
        var times: [Double] = []
        for _ in 0..<plan.startRuns {
            if let cache { try? FileManager.default.removeItem(at: cache) }
            let watcher = try BusConnection.connect(address: session.busAddress)
            try watcher.addMatch(
                "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Daemon.busName)'")
            let started = clock.now
            let daemon = try session.launch(BuildProducts.voicememod().path, [], logName: "bench-startup")
            defer { daemon.terminate(gracePeriod: .seconds(10)) }
            guard try watcher.nextSignal(timeout: .seconds(60)) != nil else {
                throw BenchmarkError.unexpected("voicememod did not own \(Daemon.busName) within 60 s")
            }
            times.append((clock.now - started).milliseconds)
        }
        return times
    }
}
