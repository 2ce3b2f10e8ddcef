import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract

extension RecorderBenchmark {
    /// The daemon holding the library `measureStartup` made (`plan.memoCount` memos): its
    /// idle resident memory without and with the library cache, the ObjectManager listing a
    /// panel applet or GNOME Shell extension asks for, and a page (`ListMemos`) and a search
    /// (`FindMemos`) of the library, each from GLib.
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

            // The first listing marshals every memo, and the daemon keeps its reply; the
            // repeats, with nothing changed, are copies of it. CPU comes in 10 ms clock ticks, so
            // a repeat's is the mean over all of them, not a per-call percentile.
            let beforeFirst = try ProcessSample.read(pid)
            let first = try glibCalls(InterfaceName.objectManager, MemberName("GetManagedObjects"), count: 1)
            let beforeRepeats = try ProcessSample.read(pid)
            let repeats = try glibCalls(
                InterfaceName.objectManager, MemberName("GetManagedObjects"), count: plan.isFull ? 20 : 5)
            let repeatsCPU = (try ProcessSample.read(pid) - beforeRepeats).cpuSeconds * 1000
            let firstCPU = (beforeRepeats - beforeFirst).cpuSeconds * 1000
            let listings = first + repeats
            guard let listed = listings.first?.items, listings.allSatisfy({ $0.items == plan.memoCount }) else {
                throw BenchmarkError.unexpected(
                    "GetManagedObjects listed \(listings.map(\.items)), not \(plan.memoCount) memos")
            }
            let firstTime = first[0].milliseconds
            let repeatTimes = repeats.map(\.milliseconds)
            table.add(
                .init(
                    figure: Self.firstListingFigure, voicememod: firstTime, target: "≤ 100", isMet: firstTime <= 100))
            table.add(.init(figure: Self.listingCPUFigure, voicememod: firstCPU, bound: .atMost(50)))
            table.add(.init(figure: Self.repeatListingFigure, voicememod: repeatTimes.median))
            table.add(
                .init(
                    figure: Self.repeatListingCPUFigure, voicememod: repeatsCPU / Double(repeats.count),
                    bound: .atMost(10)))
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
            table.add(.init(figure: "the same through `gdbus call`, which also prints it (ms)", voicememod: gdbusTime))
            // Each reply's copy is freed once it is written, in the work item that wrote it:
            // once the workers that ran it have ended, only the kept reply is left.
            try waitForDispatchWorkers(of: daemon)
            let keptGrowth = try Self.residentMiB(of: pid) - idle
            table.add(
                .init(
                    figure: "resident memory after \(listings.count + 1) listings, reply kept, growth (MiB)",
                    voicememod: keptGrowth))
            // The kept reply goes a while after the last listing; the idle daemon is then as before.
            let lifetime = BusObjectServer.keptListingLifetime
            elapse(lifetime + .seconds(2))
            try waitForDispatchWorkers(of: daemon)
            let growth = try Self.residentMiB(of: pid) - idle
            table.add(
                .init(
                    figure: "resident memory \(lifetime.components.seconds + 2) s after the last listing, growth (MiB)",
                    voicememod: growth, target: "≤ 2", isMet: growth <= 2))
            table.notes.append(
                String(
                    format: "GetManagedObjects of %d memos from GLib (Gio call_sync, parsed, not printed; "
                        + "`Tests/Benchmarks/glib-call.py`): first listing %.1f ms (voicememod's CPU %.0f ms, "
                        + "in 10 ms ticks); %d repeats with nothing changed, answered from the kept reply: "
                        + "p50 %.1f ms, max %.1f ms, voicememod's CPU %.0f ms in all",
                    listed, firstTime, firstCPU, repeats.count, repeatTimes.median, repeatTimes.max() ?? 0,
                    repeatsCPU))
            try measureLibraryQueries()
        }
        try session.resetUserData()
        try? FileManager.default.removeItem(at: cache)
    }

    /// The rows of the ObjectManager listing: the first marshals every memo, a repeat with
    /// nothing changed is answered from the reply kept since.
    static let firstListingFigure = "GetManagedObjects from a GLib client, first listing, round trip (ms)"
    static let listingCPUFigure = "  of which voicememod's CPU, first listing (ms)"
    static let repeatListingFigure =
        "GetManagedObjects from a GLib client, repeat with nothing changed, round trip (ms, p50)"
    static let repeatListingCPUFigure = "  of which voicememod's CPU, repeat with nothing changed (ms per listing)"
    /// The rows of the library's page and searches, held to their targets at p95.
    static let pageFigure =
        "\(RecorderMember.listMemos.name)(0, \(pageSize), \"\") from a GLib client, round trip (ms)"
    static let someFoundFigure =
        "\(RecorderMember.findMemos.name)(\"\(someFoundText)\") from a GLib client, some memos found, round trip (ms)"
    static let noneFoundFigure =
        "\(RecorderMember.findMemos.name)(\"\(noneFoundText)\") from a GLib client, none found, round trip (ms)"
    /// The memos a page holds: a panel's list.
    static let pageSize = 50
    /// Found in the titles and file names ("… Memo 12.opus", titled "Memo 12") of memo 12,
    /// 120 to 129 and 1200 to 1299: 111 of 10,000, 1 of a smoke run's 100.
    static let someFoundText = "Memo 12"
    /// In no memo's title or file name.
    static let noneFoundText = "Kilimanjaro"

    /// A page of the newest 50 memos (`ListMemos`) and two searches (`FindMemos`), one that
    /// finds some memos and one that finds none, each `plan.queryRuns` times from GLib on the
    /// idle daemon holding the library; every answer is checked.
    private func measureLibraryQueries() throws {
        let pageSize = Self.pageSize
        let pages = try glibCalls(
            RecorderMember.listMemos, [.uint32(0), .uint32(UInt32(pageSize)), .string("")], count: plan.queryRuns)
        guard pages.allSatisfy({ $0.items == min(pageSize, plan.memoCount) }) else {
            throw BenchmarkError.unexpected("\(Self.pageFigure): \(pages.map(\.items)) memos listed")
        }
        let some = try glibCalls(RecorderMember.findMemos, [.string(Self.someFoundText)], count: plan.queryRuns)
        guard let found = some.first?.items, found > 0, found < plan.memoCount, some.allSatisfy({ $0.items == found })
        else {
            throw BenchmarkError.unexpected(
                "\(Self.someFoundFigure): \(some.map(\.items)) of \(plan.memoCount) memos found, not some")
        }
        let none = try glibCalls(RecorderMember.findMemos, [.string(Self.noneFoundText)], count: plan.queryRuns)
        guard none.allSatisfy({ $0.items == 0 }) else {
            throw BenchmarkError.unexpected("\(Self.noneFoundFigure): \(none.map(\.items)) memos found")
        }
        addPercentiles(Self.pageFigure, pages.map(\.milliseconds), target: .atMost(10))
        addPercentiles(Self.someFoundFigure, some.map(\.milliseconds), target: .atMost(30))
        addPercentiles(Self.noneFoundFigure, none.map(\.milliseconds), target: .atMost(30))
        table.notes.append(
            "\(RecorderMember.listMemos.name) and \(RecorderMember.findMemos.name) from GLib (`Tests/Benchmarks/glib-call.py`, one connection), \(plan.queryRuns) calls "
                + "each, the first included (a search folds the library's titles on its first call): a page of "
                + "\(pageSize) of \(plan.memoCount) memos with their properties, p50 "
                + String(format: "%.2f ms; ", pages.map(\.milliseconds).median)
                + "\"\(Self.someFoundText)\" found in \(found) of them, p50 "
                + String(
                    format: "%.2f ms, max %.2f ms; ", some.map(\.milliseconds).median,
                    some.map(\.milliseconds).max() ?? 0)
                + "\"\(Self.noneFoundText)\" in none, p50 "
                + String(format: "%.2f ms", none.map(\.milliseconds).median))
    }

    /// One round trip as GLib's client measured it, and how many items its reply's first
    /// value held (objects listed, memos found).
    struct GLibCall {
        var milliseconds: Double
        var items: Int
    }

    /// Runs the GLib client for `count` calls of the recorder's `method` with `arguments`,
    /// which must match the contract's signature.
    private func glibCalls(
        _ method: BusMethodDeclaration, _ arguments: [BusValue] = [], count: Int
    ) throws -> [GLibCall] {
        guard arguments.map(\.signature) == method.inArguments.map(\.signature) else {
            throw BenchmarkError.unexpected("\(method.name) takes \(method.inArguments), not \(arguments)")
        }
        return try glibCalls(Contract.recorderInterface, method.name, arguments, count: count)
    }

    /// Runs the GLib client (`glib-call.py`) for `count` calls of `interface`'s `member` on
    /// the recorder object, with `arguments` of basic types.
    private func glibCalls(
        _ interface: InterfaceName, _ member: MemberName, _ arguments: [BusValue] = [], count: Int
    ) throws -> [GLibCall] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("glib-call.py")
        var command = [
            script.path, "\(count)", Contract.busName.rawValue, Contract.recorderPath.rawValue, interface.rawValue,
            member.rawValue,
        ]
        if !arguments.isEmpty {
            command.append(arguments.map(\.signature).joined())
            command += try arguments.map(Self.glibArgumentText)
        }
        let result = try fixture.session.run("/usr/bin/python3", command, timeout: .seconds(300))
        guard result.succeeded else { throw BenchmarkError.unexpected("the GLib client failed: \(result)") }
        let calls = result.stdout.split(separator: "\n").compactMap { line -> GLibCall? in
            let fields = line.split(separator: " ")
            guard fields.count == 2, let milliseconds = Double(fields[0]), let items = Int(fields[1]) else {
                return nil
            }
            return GLibCall(milliseconds: milliseconds, items: items)
        }
        guard calls.count == count else {
            throw BenchmarkError.unexpected("the GLib client made \(calls.count) of \(count) calls: \(result)")
        }
        return calls
    }

    /// An argument as `glib-call.py` reads it: a basic value as plain text.
    private static func glibArgumentText(_ value: BusValue) throws -> String {
        switch value {
        case .uint32(let number): "\(number)"
        case .int32(let number): "\(number)"
        case .boolean(let truth): truth ? "true" : "false"
        case .string(let text): text
        default: throw BenchmarkError.unexpected("the GLib client takes no \(value.signature) argument")
        }
    }

    /// The process's resident memory now, in MiB.
    static func residentMiB(of pid: pid_t) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        return Double(ProcessSample.field("VmRSS", in: status)) / 1024
    }
}
