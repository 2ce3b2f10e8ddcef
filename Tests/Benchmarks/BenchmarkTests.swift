import Foundation
import IntegrationSupport
import XCTest

/// `make bench` (`VOICEMEMO_BENCH=full`): voicememod against parecord on the private bus
/// and audio server of the integration tests, printed as a Markdown table and written to
/// `VOICEMEMO_BENCH_OUTPUT`. Without `VOICEMEMO_BENCH=full` it is a smoke run of a few
/// seconds that proves the table is produced with sane numbers; targets are reported,
/// not asserted, since a loaded machine must not fail the suite.
final class BenchmarkTests: XCTestCase {
    /// Runs the benchmark and checks the table.
    func testRecorderAgainstParecord() throws {
        let plan = BenchmarkPlan.fromEnvironment()
        let fixture = try IntegrationFixture()
        defer { fixture.close() }
        try fixture.prepareForTest()

        let table = try RecorderBenchmark(fixture: fixture, plan: plan).run()
        let server = fixture.audioServer.serverName
        let header = "voicememod vs parecord on \(server) — \(Machine.summary)"
            + (plan.isFull ? "" : " (smoke run: tiny durations, numbers not meaningful)")
        let markdown = table.markdown(header: header)
        print(markdown)
        if let output = ProcessInfo.processInfo.environment["VOICEMEMO_BENCH_OUTPUT"], !output.isEmpty {
            try markdown.write(toFile: output, atomically: true, encoding: .utf8)
        }

        XCTAssertEqual(table.sections.count, 6, markdown)
        XCTAssertGreaterThanOrEqual(table.rows.count, 30, markdown)
        for row in table.rows {
            XCTAssertTrue(row.voicememod.isFinite, "\(row.figure): \(row.voicememod)")
            if row.figure.contains("samples") || row.figure.contains("written") { continue }
            XCTAssertGreaterThanOrEqual(row.voicememod, 0, row.figure)
            XCTAssertLessThan(row.voicememod, 60_000, row.figure)
        }
        let references = table.rows.filter { $0.figure.hasSuffix("the C reference on pa_simple, not voicememod") }
        XCTAssertEqual(references.count, 2, "wav and flac each have the pa_simple reference: \(markdown)")
        let recordingCost = table.rows.filter { $0.figure.hasSuffix("client + server") }
        XCTAssertEqual(recordingCost.count, RecordingFormat.allCases.count, markdown)
        for row in recordingCost {
            XCTAssertGreaterThan(row.voicememod, 0, "\(row.figure): recording costs some CPU")
            XCTAssertGreaterThan(row.baseline ?? 0, 0, "\(row.figure): parecord costs some CPU")
        }
        // Memory does not depend on the machine's load: a per-caller leak fails even the smoke run.
        let callerMemory = table.rows.filter { $0.figure == RecorderBenchmark.callerMemoryFigure }
        XCTAssertEqual(callerMemory.count, 1, markdown)
        XCTAssertEqual(callerMemory.first?.isMet, true, "the daemon's memory grows with its callers: \(markdown)")
    }
}
