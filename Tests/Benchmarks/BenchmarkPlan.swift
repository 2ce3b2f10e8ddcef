import Foundation

/// How long and how often each figure is measured: `full` for `make bench` (about ten
/// minutes), `smoke` for `make test` (seconds; it proves the table is produced, not fast).
struct BenchmarkPlan {
    /// The recording window of each CPU run; the figure is scaled to one minute.
    var cpuWindow: Duration
    /// Runs per format and recorder, interleaved voicememod, parecord, voicememod, …
    var cpuRuns: Int
    /// Record/Stop and Toggle cycles, and parecord start/stop cycles.
    var latencyRuns: Int
    /// How long each latency cycle records between start and stop.
    var latencyRecording: Duration
    /// Starts of the daemon per library state (empty, many memos cold, many memos warm).
    var startRuns: Int
    /// The memos in the directory for the "many memos" starts.
    var memoCount: Int
    /// The window over which the idle daemon's CPU and wake-ups are counted.
    var idleWindow: Duration
    /// The length of the recording whose samples are counted.
    var continuityRecording: Duration
    /// Runs of `voicememo status` (each a new caller) across which the daemon's memory is read.
    var callerRuns: Int
    /// Calls of each library query (a `ListMemos` page, each `FindMemos`) from GLib.
    var queryRuns: Int
    /// The sections to measure, by name (`RecorderBenchmark.sections`), or nil for all: a
    /// developer's shortcut to a few rows (`VOICEMEMO_BENCH_SECTIONS=idle,transcription`).
    var sections: Set<String>? = nil

    /// The figures of the README and `.build/bench.md`.
    static let full = BenchmarkPlan(
        cpuWindow: .seconds(20), cpuRuns: 3, latencyRuns: 20, latencyRecording: .milliseconds(200), startRuns: 10,
        memoCount: 10_000, idleWindow: .seconds(60), continuityRecording: .seconds(60),
        callerRuns: 10_000, queryRuns: 100)

    /// A pass with tiny durations, for `make test`.
    static let smoke = BenchmarkPlan(
        cpuWindow: .seconds(1), cpuRuns: 1, latencyRuns: 3, latencyRecording: .milliseconds(100), startRuns: 1,
        memoCount: 100, idleWindow: .seconds(1), continuityRecording: .seconds(2),
        callerRuns: 200, queryRuns: 5)

    /// `full` when `VOICEMEMO_BENCH=full` (as `make bench` sets), otherwise `smoke`; narrowed
    /// to the sections `VOICEMEMO_BENCH_SECTIONS` names, if it is set.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> BenchmarkPlan
    {
        var plan = environment["VOICEMEMO_BENCH"] == "full" ? full : smoke
        if let names = environment["VOICEMEMO_BENCH_SECTIONS"], !names.isEmpty {
            plan.sections = Set(names.split(separator: ",").map { String($0) })
        }
        return plan
    }

    /// Whether this is the full plan (the table says which it is).
    var isFull: Bool { memoCount == Self.full.memoCount }
}
