import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract

extension RecorderBenchmark {
    /// One start of the daemon as a hotkey meets it: launch → name owned, and launch → the
    /// first `Record` answered (sent as soon as the name is owned, as D-Bus activation
    /// delivers a queued call); and whether the log shows the name served before the
    /// library was read.
    struct Start {
        var nameOwned: Double
        var recordAnswered: Double
        var servedBeforeLibraryRead: Bool
    }

    /// Start-up with an empty memo directory and with `plan.memoCount` one-second Opus
    /// memos, without the library cache (cold: a first login, a cleared runtime directory)
    /// and with it (warm).
    func measureStartup() throws {
        let session = fixture.session
        let cache = session.runtimeDirectory.appendingPathComponent("voicememo/library.cache")
        table.beginSection("Start-up: launch → first Record answered (ms; name owned in the notes)")
        let empty = try starts(removingCache: cache)
        try MemoLibraryFiles.create(plan.memoCount, in: session.memoDirectory, copying: try oneSecondOpus())
        let cold = try starts(removingCache: cache)
        // Each start above saved the cache at SIGTERM; these starts read it.
        let warm = try starts(removingCache: nil)
        for (label, starts, limit) in [
            ("empty memo directory", empty, 50.0), ("\(plan.memoCount) memos, no cache (cold)", cold, 100),
            ("\(plan.memoCount) memos, library cache (warm)", warm, 100),
        ] {
            let answered = starts.map(\.recordAnswered)
            table.add(.init(figure: "\(label), p50", voicememod: answered.median, bound: .atMost(limit)))
            table.add(.init(figure: "\(label), p95", voicememod: answered.percentile(95)))
            table.notes.append(
                String(
                    format:
                        "start-up, %@: first Record answered p50 %.1f ms, p95 %.1f ms; name owned p50 %.1f ms; %d starts",
                    label, answered.median, answered.percentile(95), starts.map(\.nameOwned).median, starts.count))
        }
        startOrder = (cold + warm).map(\.servedBeforeLibraryRead)
        table.notes.append(
            "start-up: the library (\(plan.memoCount) copies of a 1 s Opus memo) is read after the name is owned, "
                + "alongside the recording; the daemon logs when it is done")
    }

    /// Starts, records and stops voicememod `plan.startRuns` times.
    private func starts(removingCache cache: URL?) throws -> [Start] {
        let session = fixture.session
        var starts: [Start] = []
        for _ in 0..<plan.startRuns {
            if let cache { try? FileManager.default.removeItem(at: cache) }
            let watcher = try BusConnection.connect(address: session.busAddress)
            try watcher.addMatch(
                "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Contract.busName.rawValue)'"
            )
            let client = try VoiceMemoProxy(session: session, marksEachCall: false)
            let logName = "bench-startup-\(UUID().uuidString.prefix(8))"
            let started = clock.now
            let daemon = try session.launch(BuildProducts.voicememod().path, [], logName: logName)
            defer { daemon.terminate(gracePeriod: .seconds(10)) }
            guard try watcher.nextSignal(timeout: .seconds(60)) != nil else {
                throw BenchmarkError.unexpected("voicememod did not own \(Contract.busName.rawValue) within 60 s")
            }
            let owned = clock.now
            try client.call(RecorderMember.record)
            let answered = clock.now
            let stopping = try client.markSignals()
            try client.call(RecorderMember.stop)
            try client.waitForSignal(
                RecorderMember.recordingFinished.name.rawValue, timeout: .seconds(10), after: stopping)
            let log = try waitForLibraryRead(logName: logName)
            let served = log.range(of: "voicememod: serving ")
            let read = log.range(of: Daemon.libraryReadMessage)
            starts.append(
                Start(
                    nameOwned: (owned - started).milliseconds, recordAnswered: (answered - started).milliseconds,
                    servedBeforeLibraryRead: served != nil && read != nil && served!.lowerBound < read!.lowerBound))
            try removeRecordedMemos()
        }
        return starts
    }

    /// The daemon's log once it says the library is read.
    func waitForLibraryRead(logName: String) throws -> String {
        var log = ""
        try waitUntil("voicememod has read the library", timeout: .seconds(120)) {
            log = fixture.session.log(logName)
            return log.contains(Daemon.libraryReadMessage)
        }
        return log
    }

    /// Removes what the start-up runs recorded, keeping the library of copies.
    private func removeRecordedMemos() throws {
        let directory = fixture.session.memoDirectory
        // Hidden files are the daemon's own: its recording journal, which it removes a moment after Stop.
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where !name.contains(" Memo ") && !name.hasPrefix(".") {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// A one-second Opus memo of a 440 Hz tone, made by sox and opusenc in the session.
    func oneSecondOpus() throws -> URL {
        let root = fixture.session.root
        let wave = root.appendingPathComponent("one-second.wav")
        let opus = root.appendingPathComponent("one-second.opus")
        for (program, arguments) in [
            (
                "sox",
                ["-n", "-r", "48000", "-c", "1", "-b", "16", wave.path, "synth", "1", "sine", "440", "vol", "0.5"]
            ),
            ("opusenc", ["--quiet", wave.path, opus.path]),
        ] {
            let result = try fixture.session.run(program, arguments, timeout: .seconds(30))
            guard result.succeeded else { throw BenchmarkError.unexpected("\(program): \(result)") }
        }
        return opus
    }
}
