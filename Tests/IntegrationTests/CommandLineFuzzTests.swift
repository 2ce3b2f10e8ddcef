import Bus
import Foundation
import IntegrationSupport
import SoundFile
import TestSupport
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// The built `voicememo` on hundreds of random command lines, made of its real commands and
/// options with hostile values: it never dies of a signal or hangs, and exits only with 0,
/// 1 (the daemon refused), 64 (usage) or 69 (no daemon). Replay a failure with
/// `VOICEMEMO_FUZZ_SEED`.
final class CommandLineFuzzTests: RecorderTestCase {
    /// How long a command may take before it counts as hung.
    private static let timeout: Duration = .seconds(5)
    /// `meter` and `watch` run until interrupted: they get this long, then SIGTERM.
    private static let liveViewRun: Duration = .milliseconds(300)
    private static let liveViews: Set<String> = ["meter", "watch"]

    private struct CommandLines {
        var random: SeededGenerator
        /// Ids of memos on disk when the line is made, so memo commands sometimes hit one.
        var memoIDs: [String] = []

        static let commands = [
            "record", "stop", "pause", "resume", "toggle", "cancel", "status", "meter", "watch", "list", "play",
            "rename", "delete", "peaks",
        ]
        static let oddCommands = [
            "help", "--help", "-h", "", "recordx", "RECORD", "-", "--", "--format", "🎙️", "stop\n",
        ]
        static let options = [
            "format", "rate", "channels", "quality", "title", "source", "duration", "at", "json", "help", "nope", "",
            "count",
        ]
        static let values = [
            "", " ", "0", "-0", "1", "2", "3", "-1", "8000", "48000", "192001", "4294967295", "4294967296",
            "18446744073709551616", "9223372036854775807", "-9223372036854775808", "99999999999999999999999",
            "1e308", "1e309", "-1e309", "1e-400", "inf", "-inf", "nan", "NaN", "0x10", "1_000", "0.05", "0.2", "1.5",
            "+", "+5", "+1s", "+0", "+5m", "+1h", "+9999999999999999h", "+9223372036854775807m",
            "+2562047788015215h", "+99999999999999999999s", "+-5", "++5", "+1e9", "00:00", "23:59", "24:00", "99:99",
            ":", "12:", "-1:30", "99999999999999999999:00", "latest", "opus", "flac", "wav", "vorbis", "mp3", "aiff",
            "min", "low", "medium", "high", "max", "{state} {time} {memo} {input} {format}", "{", "{{}}", "%s%n%x",
            "🎙️ memo", "\u{1B}[31mred", "a\tb\nc", "../../etc/passwd", "/", "\u{202E}rtl", "\u{FEFF}", "--",
            "--json", "-h", "voicememo_mic", String(repeating: "é", count: 5000), String(repeating: "9", count: 400),
        ]

        /// A value: mostly from the list, sometimes random digits, ASCII or Unicode.
        mutating func value() -> String {
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                return String(
                    (0..<Int.random(in: 1...30, using: &random)).map { _ in
                        Character(String(Int.random(in: 0...9, using: &random)))
                    })
            case 1:
                return String(
                    String.UnicodeScalarView(
                        (0..<Int.random(in: 1...20, using: &random)).map { _ in
                            UnicodeScalar(UInt8.random(in: 1...127, using: &random))
                        }))
            case 2:
                return String(
                    String.UnicodeScalarView(
                        (0..<Int.random(in: 1...10, using: &random)).compactMap { _ in
                            UnicodeScalar(UInt32.random(in: 0x80...0x10FFFF, using: &random))
                        }))
            case 3 where !memoIDs.isEmpty:
                let id = memoIDs.randomElement(using: &random)!
                return String(id.prefix(Int.random(in: 1...id.count, using: &random)))
            default:
                return Self.values.randomElement(using: &random)!
            }
        }

        /// Each command's own options, so most lines get past parsing to the daemon.
        static let ownOptions: [String: [String]] = [
            "record": ["format", "rate", "channels", "quality", "title", "source", "duration", "at"],
            "status": ["json", "format"], "list": ["json"], "watch": ["json"], "peaks": ["count", "json"],
        ]
        static let takesMemo: Set<String> = ["play", "rename", "delete", "peaks"]
        /// Values the daemon takes, so lines also reach recording, not only refusals.
        static let plausible: [String: [String]] = [
            "format": ["opus", "flac", "wav", "vorbis", "mp3"], "rate": ["8000", "16000", "44100", "48000"],
            "channels": ["1", "2"], "quality": ["min", "low", "medium", "high", "max"], "title": ["memo", "🎙️ x"],
            "source": ["", "voicememo_mic"], "duration": ["0.05", "0.2", "1"], "at": ["+0", "+1s", "0", "+1m"],
            "count": ["1", "16", "100", "4096"],
        ]

        mutating func next() -> [String] {
            let command =
                Int.random(in: 0..<10, using: &random) == 0
                ? Self.oddCommands.randomElement(using: &random)!
                : Self.commands.randomElement(using: &random)!
            var words = [command]
            if Self.takesMemo.contains(command), Int.random(in: 0..<4, using: &random) > 0 {
                words.append(Bool.random(using: &random) ? "latest" : value())
                if command == "rename" { words.append(value()) }
            }
            let own = Self.ownOptions[command] ?? []
            // Commands without options mostly get none, or every line would be a usage error.
            let tokens =
                own.isEmpty && Int.random(in: 0..<3, using: &random) > 0 ? 0 : Int.random(in: 0...3, using: &random)
            for _ in 0..<tokens {
                let option =
                    !own.isEmpty && Int.random(in: 0..<4, using: &random) > 0
                    ? own.randomElement(using: &random)!
                    : Self.options.randomElement(using: &random)!
                switch Int.random(in: 0..<20, using: &random) {
                case 0..<5 where Self.plausible[option] != nil:
                    words += ["--\(option)", Self.plausible[option]!.randomElement(using: &random)!]
                case 0..<9: words += ["--\(option)", value()]
                case 9..<15: words.append("--\(option)=\(value())")
                case 15..<18: words.append("--\(option)")
                default: words.append(value())
                }
            }
            return words
        }
    }

    /// Lines that once crashed or are at the edges, run first whatever the seed.
    private static let knownLines: [[String]] = [
        ["record", "--at", "+9999999999999999h"], ["record", "--at", "+9223372036854775807m"],
        ["record", "--at", "+2562047788015215h"], ["record", "--at", "-9223372036854775808"],
        ["record", "--at", "9223372036854775807"], ["record", "--duration", "1e309"], ["record", "--duration", "nan"],
        ["record", "--rate", "4294967296"], ["record", "--channels", "-1"], ["status", "--format", ""],
        ["rename", "", ""], ["delete", ""], ["play", "latest", "--help"], ["cancel"],
        ["peaks", "latest", "--count", "4294967296"], ["peaks", "latest", "--count", "-1"], ["peaks", ""],
    ]

    /// What one command line did.
    private struct Outcome {
        let words: [String]
        let termination: ChildProcess.Termination
        /// Whether the test ended it (a live view given its bounded run).
        let wasStopped: Bool
        let stderr: String

        var commandLine: String { "voicememo " + words.map { $0.debugDescription }.joined(separator: " ") }
    }

    private func run(_ words: [String], scratch: URL) throws -> Outcome {
        let stdout = scratch.appendingPathComponent("out")
        let stderr = scratch.appendingPathComponent("err")
        try? FileManager.default.removeItem(at: stdout)
        try? FileManager.default.removeItem(at: stderr)
        let child = try ChildProcess(
            BuildProducts.voicememo().path, words, environment: fixture.session.environment,
            standardOutput: .file(stdout), standardError: .file(stderr))
        let isLiveView = Self.liveViews.contains(words[0])
        var wasStopped = false
        var ended = try? child.waitForExit(timeout: isLiveView ? Self.liveViewRun : Self.timeout)
        if ended == nil, isLiveView {
            wasStopped = true
            ended = child.terminate(gracePeriod: Self.timeout)
        }
        let message = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        guard let ended else {
            child.kill()
            return Outcome(words: words, termination: .unknown, wasStopped: true, stderr: "hung for \(Self.timeout)")
        }
        return Outcome(words: words, termination: ended, wasStopped: wasStopped, stderr: message)
    }

    /// Runs `count` random lines; fails at the first one outside `accepted` (or a live view
    /// that did not end cleanly on SIGTERM). Returns the statuses seen, counted.
    private func fuzz(count: Int, seed: UInt64, accepted: Set<Int32>) throws -> [Int32: Int] {
        let scratch = fixture.session.root.appendingPathComponent("fuzz-\(seed)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var lines = CommandLines(random: SeededGenerator(seed: seed))
        var statuses: [Int32: Int] = [:]
        let started = ContinuousClock.now
        var ran = 0
        for index in 0..<count {
            ran += 1
            lines.memoIDs = recorder.memoFiles.map(MemoNaming.memoID(forFileName:))
            let words = index < Self.knownLines.count ? Self.knownLines[index] : lines.next()
            let outcome = try run(words, scratch: scratch)
            let status = outcome.termination.status
            statuses[status, default: 0] += 1
            // A live view stopped by the test may end of the SIGTERM itself (watch has no handler).
            let isAccepted =
                accepted.contains(status) || (outcome.wasStopped && outcome.termination == .signalled(SIGTERM))
            guard isAccepted else {
                XCTFail(
                    "seed \(seed), line \(index): \(outcome.commandLine) \(outcome.termination); stderr: \(outcome.stderr.prefix(500))"
                )
                break
            }
        }
        print(
            "CLI fuzz, seed \(seed): \(ran) of \(count) lines in \(ContinuousClock.now - started); statuses \(statuses.sorted { $0.key < $1.key })"
        )
        return statuses
    }

    private var seed: UInt64 {
        ProcessInfo.processInfo.environment["VOICEMEMO_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0xC11_F022
    }

    // Against the running daemon, so commands get real answers; then with no daemon at all.
    func testRandomCommandLinesNeverCrashOrHang() throws {
        print("CLI fuzz seed \(seed) (set VOICEMEMO_FUZZ_SEED to replay)")
        let served = try fuzz(count: 400, seed: seed, accepted: [0, 1, 64, 69])
        XCTAssertGreaterThan(served[0, default: 0], 0, "some lines succeeded: \(served)")
        XCTAssertGreaterThan(served[1, default: 0], 0, "some reached the daemon and were refused: \(served)")
        XCTAssertGreaterThan(served[64, default: 0], 0, "some were usage errors: \(served)")

        // The daemon is alive and sound: whatever was left open ends, and a memo records.
        XCTAssertTrue(daemon.isRunning, "the daemon survived: \(daemon.log.suffix(2000))")
        if try recorder.state != "idle" { try recorder.call(RecorderMember.cancel) }
        XCTAssertEqual(try recorder.state, "idle")
        // A memo the fuzz stopped empty in this same second had the path the next one gets.
        let beforeRecord = try recorder.markSignals()
        let record = try fixture.voicememo(["record", "--format", "wav", "--duration", "0.5"])
        XCTAssertEqual(record.status, 0, "\(record)")
        let memo = ObjectPath(
            String(try XCTUnwrap(record.stdout.split(separator: " ").last?.trimmingCharacters(in: .newlines))))
        let finished = try recorder.waitForSignal(
            RecorderMember.recordingFinished, timeout: .seconds(5), after: beforeRecord
        ) {
            $0.arguments.first?.objectPath == memo
        }
        let about = recorder.received.filter { $0.arguments.first?.objectPath == memo }.map {
            "\($0.member) \($0.arguments)"
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true, "signals about the memo: \(about)")
        XCTAssertEqual(
            try SoundFileReader(path: recorder.file(of: memo).path).duration, 0.5, accuracy: 0.01,
            "signals about the memo: \(about)")

        XCTAssertEqual(daemon.stop(), .exited(0))
        let alone = try fuzz(count: 100, seed: seed &+ 1, accepted: [0, 64, 69])
        XCTAssertGreaterThan(alone[69, default: 0], 0, "lines that parse find no daemon: \(alone)")
        XCTAssertGreaterThan(alone[64, default: 0], 0, "\(alone)")
    }
}
