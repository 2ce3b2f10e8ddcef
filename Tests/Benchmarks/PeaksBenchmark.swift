import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import VoiceMemoCore

extension RecorderBenchmark {
    /// `Peaks(200)` of each of `plan.memoCount` memos, as a panel drawing a whole library
    /// asks: first with every file decoded (cold), then from the peaks cache (warm). Checked
    /// in every run: each answer is 200 values in 0…1 (the memos are silence: all 0), each
    /// file is decoded exactly once, and the warm pass decodes none.
    func measurePeaks() throws {
        let session = fixture.session
        try MemoLibraryFiles.create(plan.memoCount, in: session.memoDirectory)
        let ids = try FileManager.default.contentsOfDirectory(atPath: session.memoDirectory.path)
            .filter(MemoCatalog.mayBeMemo).map(MemoNaming.memoID(forFileName:))
        guard ids.count == plan.memoCount else {
            throw BenchmarkError.unexpected("\(ids.count) memos written, \(plan.memoCount) wanted")
        }
        // VOICEMEMO_DEBUG=1 logs each file decoded for peaks.
        let daemon = try fixture.launchDaemon(environment: ["VOICEMEMO_DEBUG": "1"])
        defer {
            daemon.stop()
            try? session.resetUserData()
            try? FileManager.default.removeItem(at: session.runtimeDirectory.appendingPathComponent("voicememo/peaks"))
        }
        func decodes() -> Int { daemon.log.components(separatedBy: "voicememod: peaks computed for ").count - 1 }

        let cold = try peaksOfEvery(ids, count: Self.peaksCount)
        guard decodes() == ids.count else {
            throw BenchmarkError.unexpected(
                "\(decodes()) decodes for \(ids.count) memos; daemon log:\n\(daemon.log.suffix(2000))")
        }
        let warm = try peaksOfEvery(ids, count: Self.peaksCount)
        guard decodes() == ids.count else {
            throw BenchmarkError.unexpected("the cached pass decoded \(decodes() - ids.count) files")
        }
        // The bus alone: the same number of calls, each reading one property.
        let baseline = try callEvery(
            ids, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(Contract.memoInterface.rawValue), .string(MemoMember.id.name)]
        ) { id, reply in
            reply.first?.variant?.string == id ? nil : "Id of \(id) is \(reply)"
        }

        let limit = Self.peaksLimit
        table.beginSection("Waveforms: Peaks(\(Self.peaksCount)) of every one of \(plan.memoCount) memos (ms)")
        table.add(.init(figure: "every memo decoded (cold)", voicememod: cold.milliseconds))
        table.add(.init(figure: "the bus alone: Get(Id) of every memo", voicememod: baseline.milliseconds))
        table.add(
            .init(
                figure: Self.peaksFigure, voicememod: warm.milliseconds, target: "< \(Int(limit))",
                isMet: warm.milliseconds < limit))
        table.notes.append(
            String(
                format:
                    "peaks: %d memos × Peaks(%d), %d calls in flight: %.0f ms decoding each file, %.0f ms from the cache (%.1f µs a memo; the bus alone, Get(Id) of each, %.0f ms)",
                plan.memoCount, Self.peaksCount, Self.peaksCallsInFlight, cold.milliseconds, warm.milliseconds,
                warm.milliseconds * 1000 / Double(plan.memoCount), baseline.milliseconds))
    }

    /// The figure's name, for the test that checks it.
    static let peaksFigure = "every memo from the peaks cache (warm)"
    /// Values asked of each memo: a list row's waveform.
    static let peaksCount: UInt32 = 200
    /// The target for 10,000 memos from the cache (issue 18).
    static let peaksLimit = 1000.0
    /// Calls kept outstanding, as an asynchronous client (a panel applet) keeps them.
    static let peaksCallsInFlight = 128

    /// Asks each memo in `ids` for `count` peaks over one connection, keeping
    /// `peaksCallsInFlight` calls outstanding; how long all the answers took. Throws on any
    /// answer that is not `count` values in 0…1, all 0 (the memos are silence).
    private func peaksOfEvery(_ ids: [String], count: UInt32) throws -> Duration {
        try callEvery(
            ids, interface: Contract.memoInterface.rawValue, member: MemoMember.peaks.name.rawValue,
            arguments: [.uint32(count)]
        ) {
            id, reply in
            let values = reply.first?.array?.compactMap(\.double) ?? []
            return values.count == Int(count) && values.allSatisfy { $0 == 0 }
                ? nil : "\(id): \(values.count) values, max \(values.max() ?? -1)"
        }
    }

    /// Calls `member` on each memo in `ids` over one connection, keeping
    /// `peaksCallsInFlight` calls outstanding; how long all the answers took. `check` says
    /// what is wrong with an answer, if anything; any error or wrong answer throws.
    private func callEvery(
        _ ids: [String], interface: String, member: String, arguments: [BusValue],
        check: @escaping (String, [BusValue]) -> String?
    ) throws -> Duration {
        let connection = try BusConnection.connect(address: fixture.session.busAddress)
        let queue = DispatchQueue(label: "bench-peaks")
        connection.attach(to: queue) {}
        let run = CallRun(
            queue: queue, ids: ids, interface: InterfaceName(interface), member: MemberName(member),
            arguments: arguments,
            connection: connection, check: check)
        let started = clock.now
        queue.async {
            for _ in 0..<min(Self.peaksCallsInFlight, ids.count) { run.sendNext() }
        }
        guard run.done.wait(timeout: .now() + .seconds(600)) == .success else {
            throw BenchmarkError.unexpected("\(member) of \(ids.count) memos did not all answer within 600 s")
        }
        let elapsed = clock.now - started
        let problems = queue.sync { run.failures }
        guard problems.isEmpty else {
            throw BenchmarkError.unexpected("\(problems.count) wrong \(member) answers, e.g. \(problems.prefix(3))")
        }
        return elapsed
    }
}

/// One pass of calls, one per memo: each answer sends the next call. `@unchecked Sendable`:
/// used on the connection's `queue` only (checked in `sendNext`, which every answer runs);
/// `done` is signalled there once every memo answered.
private final class CallRun: @unchecked Sendable {
    let queue: DispatchQueue
    let ids: [String]
    let interface: InterfaceName
    let member: MemberName
    let arguments: [BusValue]
    let connection: BusConnection
    let check: (String, [BusValue]) -> String?
    let done = DispatchSemaphore(value: 0)
    private(set) var failures: [String] = []
    private var sent = 0
    private var answered = 0

    init(
        queue: DispatchQueue, ids: [String], interface: InterfaceName, member: MemberName, arguments: [BusValue],
        connection: BusConnection, check: @escaping (String, [BusValue]) -> String?
    ) {
        self.queue = queue
        self.ids = ids
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.connection = connection
        self.check = check
    }

    func sendNext() {
        dispatchPrecondition(condition: .onQueue(queue))
        let id = ids[sent]
        sent += 1
        connection.call(
            destination: Contract.busName, path: Contract.memoPath(id: id),
            interface: interface, member: member, arguments: arguments
        ) { [self] result in
            answered += 1
            switch result {
            case .success(let reply):
                if let failure = check(id, reply) { failures.append(failure) }
            case .failure(let error):
                failures.append("\(id): \(error.name.rawValue) \(error.message)")
            }
            if sent < ids.count { sendNext() }
            if answered == ids.count { done.signal() }
        }
    }
}
