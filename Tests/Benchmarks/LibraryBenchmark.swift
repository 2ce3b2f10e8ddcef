import Foundation
import IntegrationSupport
import VoiceMemoContract

extension RecorderBenchmark {
    /// The daemon holding the library `measureStartup` made (`plan.memoCount` memos): its
    /// idle resident memory without and with the library cache, and the ObjectManager
    /// listing a panel applet or GNOME Shell extension asks for, from GLib.
    func measureLibrary() throws {
        let session = fixture.session
        let cache = session.runtimeDirectory.appendingPathComponent("voicememo/library.cache")
        table.beginSection("A library of \(plan.memoCount) one-second Opus memos")
        for warm in [false, true] {
            if !warm { try? FileManager.default.removeItem(at: cache) }
            let daemon = try fixture.launchDaemon()
            defer { daemon.stop() }
            // Cold, the cache is saved a second after the read, and the freed memory handed
            // back with it; warm, it is fresh and not saved. Then the daemon is idle.
            if !warm {
                try waitUntil("the library cache is saved", timeout: .seconds(60), pollingEvery: .milliseconds(50)) {
                    FileManager.default.fileExists(atPath: cache.path)
                }
            }
            try waitForDispatchWorkers(of: daemon)
            let pid = daemon.process.pid
            let idle = try Self.residentMiB(of: pid)
            table.add(
                .init(
                    figure: "idle resident memory, \(warm ? "library cache (warm)" : "no cache (cold)") (MiB)",
                    voicememod: idle, target: "≤ 20", isMet: idle <= 20))
            guard warm else { continue }

            let before = try ProcessSample.read(pid)
            let listings = try glibListings(count: plan.isFull ? 10 : 2)
            let daemonShare = (try ProcessSample.read(pid) - before).cpuSeconds * 1000 / Double(listings.count)
            guard let listed = listings.first?.objects, listings.allSatisfy({ $0.objects == plan.memoCount }) else {
                throw BenchmarkError.unexpected(
                    "GetManagedObjects listed \(listings.map(\.objects)), not \(plan.memoCount) memos")
            }
            let times = listings.map(\.milliseconds)
            table.add(
                .init(
                    figure: "GetManagedObjects from a GLib client, round trip (ms, p50)", voicememod: times.median,
                    target: "≤ 100", isMet: times.median <= 100))
            let gdbusStarted = clock.now
            let gdbus = try session.run(
                "gdbus",
                [
                    "call", "--session", "--dest", Contract.busName.rawValue, "--object-path",
                    Contract.recorderPath.rawValue,
                    "--method", "org.freedesktop.DBus.ObjectManager.GetManagedObjects",
                ], timeout: .seconds(120))
            let gdbusTime = (clock.now - gdbusStarted).milliseconds
            guard gdbus.succeeded else { throw BenchmarkError.unexpected("gdbus call: \(gdbus)") }
            table.add(.init(figure: "  of which voicememod's CPU (ms per listing)", voicememod: daemonShare))
            table.add(.init(figure: "the same through `gdbus call`, which also prints it (ms)", voicememod: gdbusTime))
            // The last reply's buffers are freed once it is written, which nothing marks.
            Thread.sleep(forTimeInterval: 1)
            let growth = try Self.residentMiB(of: pid) - idle
            table.add(
                .init(
                    figure: "resident memory after \(listings.count + 1) listings, growth (MiB)", voicememod: growth,
                    target: "≤ 2", isMet: growth <= 2))
            table.notes.append(
                String(
                    format: "GetManagedObjects of %d memos from GLib (Gio call_sync, parsed, not printed; "
                        + "`Tests/Benchmarks/glib-managed-objects.py`): p50 %.1f ms, max %.1f ms over %d calls",
                    listed, times.median, times.max() ?? 0, times.count))
        }
        try session.resetUserData()
        try? FileManager.default.removeItem(at: cache)
    }

    /// One GetManagedObjects round trip as GLib's client measured it.
    struct Listing {
        var milliseconds: Double
        var objects: Int
    }

    /// Runs the GLib client for `count` GetManagedObjects calls.
    private func glibListings(count: Int) throws -> [Listing] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "glib-managed-objects.py")
        let result = try fixture.session.run(
            "/usr/bin/python3", [script.path, "\(count)", Contract.busName.rawValue, Contract.recorderPath.rawValue],
            timeout: .seconds(300))
        guard result.succeeded else { throw BenchmarkError.unexpected("the GLib client failed: \(result)") }
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 2, let milliseconds = Double(fields[0]), let objects = Int(fields[1]) else {
                return nil
            }
            return Listing(milliseconds: milliseconds, objects: objects)
        }
    }

    /// The process's resident memory now, in MiB.
    static func residentMiB(of pid: pid_t) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        return Double(ProcessSample.field("VmRSS", in: status)) / 1024
    }
}
