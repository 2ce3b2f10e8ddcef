import Foundation
import IntegrationSupport

/// One pass of the benchmark on a running fixture: each `measure…` method (one file
/// each) starts what it needs, adds its section to `table` and stops what it started.
final class RecorderBenchmark {
    /// The session, audio server and stimulus everything records from.
    let fixture: IntegrationFixture
    /// How long and how often to measure.
    let plan: BenchmarkPlan
    /// The figures so far.
    var table = BenchmarkTable()
    /// The continuity recording's samples, once measured.
    var continuity: SampleContinuity?
    /// For each start with a library: whether the name was served before the library was read.
    var startOrder: [Bool] = []
    /// The clock every latency is read from.
    let clock = ContinuousClock()

    /// Prepares a pass on `fixture`, which must be ready for a test (stimulus playing).
    init(fixture: IntegrationFixture, plan: BenchmarkPlan) {
        self.fixture = fixture
        self.plan = plan
    }

    /// Every section by the name `VOICEMEMO_BENCH_SECTIONS` selects it with, in an order
    /// where no measurement disturbs the next.
    static var sections: [(name: String, measure: (RecorderBenchmark) -> () throws -> Void)] {
        [
            ("startup", measureStartup), ("library", measureLibrary), ("peaks", measurePeaks), ("idle", measureIdle),
            ("waiting", measureWaitingCost), ("recording", measureRecordingCost), ("call", measureCallCost),
            ("cleaning", measureVoiceCleaningCost), ("latency", measureLatency), ("continuity", measureContinuity),
            ("callers", measureCallerMemory), ("transcription", measureTranscription),
        ]
    }

    /// Measures the plan's sections (every one unless it names some).
    func run() throws -> BenchmarkTable {
        for section in Self.sections where plan.sections?.contains(section.name) ?? true {
            try section.measure(self)()
        }
        return table
    }

    /// The rows the issue holds to a target, with the target each must show.
    var heldTargets: [(figure: String, target: String)] {
        let many = "\(plan.memoCount) memos"
        return [
            ("empty memo directory, p50", "≤ 50"), ("\(many), no cache (cold), p50", "≤ 100"),
            ("\(many), library cache (warm), p50", "≤ 100"), (Self.idleMemoryFigure, "≤ 16"),
            ("\(Self.stopFigure), p95", "≤ 25"), ("\(Self.toggleStopFigure), p95", "≤ 25"),
            ("\(RecordingFormat.wavStereo.label): \(Self.referenceFigure)", "≤ 1.1×"),
            ("\(RecordingFormat.flacStereo.label): \(Self.referenceFigure)", "≤ 1.1×"),
            (Self.listingCPUFigure, "≤ 50"), (Self.repeatListingCPUFigure, "≤ 10"), ("\(Self.pageFigure), p95", "≤ 10"),
            ("\(Self.someFoundFigure), p95", "≤ 30"), ("\(Self.noneFoundFigure), p95", "≤ 30"),
            (Self.transcriptionSpeedFigure, "≥ 4"), (Self.workerMemoryFigure, "≤ 400"),
            (Self.transcribingRecordFigure, "≤ 5"), (Self.transcribingStopFigure, "≤ 5"),
        ]
    }

    /// The audio server's processes (pulseaudio; or pipewire, wireplumber, pipewire-pulse),
    /// whose CPU time counts as the server's share.
    var serverProcessIDs: [pid_t] {
        fixture.session.processes.running.filter { fixture.audioServer.programs.contains($0.name) }.map(\.pid)
    }

    /// The record streams the audio server has, the microphone's own included (remapping
    /// the stimulus sink's monitor is one on either server).
    func recordStreamCount() throws -> Int {
        try fixture.audioServer.pactl(["list", "short", "source-outputs"]).split(separator: "\n").count
    }

    /// Waits until the server has exactly `count` record streams, so a CPU window
    /// starts once the recorder under test is capturing.
    func waitForRecordStreams(_ count: Int, timeout: Duration = .seconds(10)) throws {
        try waitUntil("the audio server has \(count) record streams", timeout: timeout) {
            try recordStreamCount() == count
        }
    }

    /// Waits, in the full plan, until `daemon`'s libdispatch workers have ended (each exits
    /// 5 s after its last work item: a wake-up of the pool's, not of the daemon's), so an
    /// idle window sees the idle daemon; a smoke run's figures mean nothing, and it goes on.
    func waitForDispatchWorkers(of daemon: Daemon) throws {
        if plan.isFull { try daemon.waitUntilDispatchWorkersEnd() }
    }

    /// What the kernel accounted to `pids` and to the audio server while recording for `duration`.
    func accounting(of pids: [pid_t], recordingFor duration: Duration) throws -> (
        client: ProcessSample, server: ProcessSample
    ) {
        let server = serverProcessIDs
        let (clientBefore, serverBefore) = (try ProcessSample.read(pids), try ProcessSample.read(server))
        elapse(duration)
        return (try ProcessSample.read(pids) - clientBefore, try ProcessSample.read(server) - serverBefore)
    }

    /// `seconds` of CPU time over `window`, scaled to one minute.
    func perMinute(_ seconds: Double, over window: Duration) -> Double {
        seconds * 60 / window.timeInterval
    }
}
