import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// Each memo's `Peaks(count)`: the waveform of what was recorded, computed once per file,
/// from the peaks cache afterwards, and the same through `voicememo peaks` and `list`.
final class PeaksAcceptanceTests: RecorderTestCase {
    /// The debug daemon's line for each file it decodes for peaks.
    private static let decodeLine = "peaks computed for "

    /// Relaunches the daemon with VOICEMEMO_DEBUG=1, which logs each decode for peaks.
    private func launchDebugDaemon() throws -> Daemon {
        XCTAssertEqual(daemon.stop(), .exited(0))
        return try fixture.launchDaemon(environment: ["VOICEMEMO_DEBUG": "1"])
    }

    private func decodes(of memo: ObjectPath, in daemon: Daemon) -> Int {
        let id = memo.rawValue.split(separator: "/").last.map(String.init) ?? "?"
        return daemon.log.components(separatedBy: Self.decodeLine + id + " from file").count - 1
    }

    private func peaks(_ memo: ObjectPath, _ count: UInt32) throws -> [Double] {
        let reply = try recorder.callMemo(memo, MemoMember.peaks, [.uint32(count)])
        return try XCTUnwrap(reply.first?.array?.compactMap(\.double), "Peaks answers ad: \(reply)")
    }

    private func seconds(_ property: BusPropertyDeclaration) throws -> Double {
        try XCTUnwrap(recorder.property(property).double)
    }

    /// A WAV memo of the stimulus for about `loud` seconds, then of silence for a little
    /// less: the tone runs, Pause, the tone stops (the microphone delivers silence), Resume,
    /// and Stop once the memo is 1.9 times as long as its loud part.
    private func recordLoudThenSilent(loud: Double = 2) throws -> (memo: ObjectPath, loud: Double, total: Double) {
        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        try waitUntil("\(loud) s are recorded", timeout: .seconds(loud + 10)) {
            try self.seconds(RecorderMember.currentTime) >= loud
        }
        try recorder.call(RecorderMember.pause)
        let loudPart = try seconds(RecorderMember.currentTime)
        fixture.stimulus.stop()
        try recorder.call(RecorderMember.resume)
        try waitUntil("the silent part is recorded", timeout: .seconds(loud + 10)) {
            try self.seconds(RecorderMember.currentTime) >= 1.9 * loudPart
        }
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
        try recorder.waitForSignal(RecorderMember.recordingFinished) { $0.arguments.first?.objectPath == memo }
        let total = try XCTUnwrap(recorder.memoProperty(memo, MemoMember.duration).double)
        return (memo, loudPart, total)
    }

    // The acceptance: loud first half, silent second half; a second call opens no file.
    func testPeaksShowTheLoudHalfAndTheSilentHalfAndComeFromTheCacheAfterwards() throws {
        let debug = try launchDebugDaemon()
        defer { debug.stop() }
        let (memo, loud, total) = try recordLoudThenSilent()
        // The memo is loud for more than half and silent for more than 45 %: what the
        // checks below need (Stop lands within a fragment or two of the request).
        XCTAssertTrue((loud / 0.55...2 * loud).contains(total), "loud \(loud) s of \(total) s")

        let values = try peaks(memo, 100)
        XCTAssertEqual(values.count, 100)
        XCTAssertTrue(values.allSatisfy { (0...1).contains($0) }, "\(values)")
        for (index, value) in values.enumerated().prefix(50) {
            XCTAssertGreaterThanOrEqual(value, 0.45, "slice \(index) of the tone (peak 0.5): \(values)")
        }
        for (index, value) in values.enumerated().suffix(45) {
            XCTAssertLessThanOrEqual(value, 0.01, "slice \(index) of the silence: \(values)")
        }
        XCTAssertEqual(decodes(of: memo, in: debug), 1, debug.log)

        // Again, and at other counts: all from the cache.
        XCTAssertEqual(try peaks(memo, 100), values)
        let coarse = try peaks(memo, 4)
        XCTAssertEqual(coarse.count, 4)
        XCTAssertGreaterThanOrEqual(coarse[0], 0.45)
        XCTAssertGreaterThanOrEqual(coarse[1], 0.45)
        XCTAssertLessThanOrEqual(coarse[3], 0.01)
        XCTAssertEqual(try peaks(memo, 4096).count, 4096)
        XCTAssertEqual(decodes(of: memo, in: debug), 1, "later calls open no file: \(debug.log)")
        let cached = fixture.session.runtimeDirectory.appendingPathComponent(
            "voicememo/peaks/\(memo.rawValue.split(separator: "/").last!).peaks")
        let mode = try FileManager.default.attributesOfItem(atPath: cached.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the peaks cache is the user's alone")
        XCTAssertLessThanOrEqual(
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: cached.path)[.size] as? Int), 44 + 8192)

        // A restart keeps the cache (it lives in the runtime directory).
        XCTAssertEqual(debug.stop(), .exited(0))
        let restarted = try fixture.launchDaemon(environment: ["VOICEMEMO_DEBUG": "1"])
        defer { restarted.stop() }
        XCTAssertEqual(try peaks(memo, 100), values)
        XCTAssertEqual(decodes(of: memo, in: restarted), 0, restarted.log)

        // A changed file (Rename rewrites its tags) is decoded again, once.
        try recorder.callMemo(memo, MemoMember.rename, [.string("Half and half")])
        XCTAssertEqual(try peaks(memo, 100), values, "the same audio")
        XCTAssertEqual(try peaks(memo, 100), values)
        XCTAssertEqual(decodes(of: memo, in: restarted), 1, restarted.log)

        // Deleting the memo drops its peaks.
        try recorder.callMemo(memo, MemoMember.deletePermanently)
        try waitUntil("the peaks of the deleted memo are gone", timeout: .seconds(5)) {
            !FileManager.default.fileExists(atPath: cached.path)
        }
    }

    // The memo being recorded answers from what is written so far, and is no library memo
    // until it is finished (then it is announced as usual).
    func testTheMemoBeingRecordedAnswersFromWhatIsWrittenSoFar() throws {
        for format in ["wav", "opus"] {
            let memo = try recorder.recordWithOptions(["format": .string(format)])
            try waitUntil("2.5 s of \(format) are recorded", timeout: .seconds(15)) {
                try self.seconds(RecorderMember.currentTime) >= 2.5
            }
            let values = try peaks(memo, 10)
            XCTAssertEqual(values.count, 10)
            // The file on disk is brought up to date every second: at least the first
            // 1.5 s of tone (at half scale) are there, all loud. A lossy codec overshoots
            // where the tone begins (Opus decoded 0.563 for the first slice of a 0.5 tone),
            // so only a lossless file is held to the tone's own peak.
            let ceiling = format == "wav" ? 0.55 : 0.65
            XCTAssertTrue(values.allSatisfy { $0 >= 0.45 && $0 <= ceiling }, "\(format): \(values)")
            XCTAssertNil(try recorder.managedMemos()[memo], "a memo being recorded is not listed")
            XCTAssertThrowsError(try recorder.callMemo(memo, MemoMember.play), "it answers Peaks only") { error in
                XCTAssertEqual((error as? BusError)?.name.rawValue, ErrorName.unknownMethod.rawValue)
            }
            do {
                _ = try recorder.callMemo(memo, MemoMember.peaks, [.uint32(0)])
                XCTFail("Peaks(0) of the memo being recorded answered")
            } catch let error as BusError {
                XCTAssertEqual(error.name.rawValue, ContractError.invalidArgument.name.rawValue)
            }
            XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
            try recorder.waitForSignal(RecorderMember.recordingFinished) { $0.arguments.first?.objectPath == memo }
            try recorder.waitForSignal("InterfacesAdded") { $0.arguments.first?.objectPath == memo }
            XCTAssertNotNil(try recorder.managedMemos()[memo], "listed once finished")
            XCTAssertTrue(try peaks(memo, 10).allSatisfy { $0 >= 0.45 }, format)
        }
        // A cancelled recording's object goes with it.
        let cancelled = try recorder.recordWithOptions(["format": .string("wav")])
        XCTAssertEqual(try peaks(cancelled, 3).count, 3)
        try recorder.call(RecorderMember.cancel)
        do {
            _ = try recorder.callMemo(cancelled, MemoMember.peaks, [.uint32(3)])
            XCTFail("the cancelled memo still answers")
        } catch let error as BusError {
            XCTAssertEqual(error.name.rawValue, ErrorName.unknownObject.rawValue)
        }
        try recorder.drainSignals()
        XCTAssertFalse(
            recorder.received.contains {
                ["InterfacesAdded", "InterfacesRemoved"].contains($0.member.rawValue)
                    && $0.arguments.first?.objectPath == cancelled
            },
            "nothing announced for a cancelled memo")
    }

    func testCountsOutsideOneTo4096AreRefusedWithTheContractsError() throws {
        let memo = try recorder.recordWithOptions(["format": .string("flac"), "duration": .double(0.5)])
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(6)) {
            $0.arguments.first?.objectPath == memo
        }
        for count: UInt32 in [0, 4097, .max] {
            do {
                let reply = try recorder.callMemo(memo, MemoMember.peaks, [.uint32(count)])
                XCTFail("Peaks(\(count)) answered \(reply)")
            } catch let error as BusError {
                XCTAssertEqual(error.name.rawValue, ContractError.invalidArgument.name.rawValue, "\(count)")
                XCTAssertTrue(error.message.contains("'count' must be from 1 to 4096"), error.message)
                XCTAssertTrue(error.message.contains("got \(count)"), error.message)
            }
        }
        XCTAssertEqual(try peaks(memo, 1).count, 1)
        XCTAssertEqual(try peaks(memo, 4096).count, 4096)
        XCTAssertGreaterThanOrEqual(try peaks(memo, 1)[0], 0.45, "the tone's peak, decoded from FLAC")
        XCTAssertTrue(daemon.isRunning)
    }

    func testAMemoWhoseFileVanishedAnswersNoSuchMemo() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(0.3)])
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(6)) {
            $0.arguments.first?.objectPath == memo
        }
        let file = try recorder.file(of: memo)
        try FileManager.default.removeItem(at: file)
        // The daemon may still have the object for a moment (inotify), or not: either way
        // an error, never a crash.
        do {
            _ = try recorder.callMemo(memo, MemoMember.peaks, [.uint32(10)])
            XCTFail("Peaks of a removed file answered")
        } catch let error as BusError {
            XCTAssertTrue(
                [ContractError.noSuchMemo.name.rawValue, ErrorName.unknownObject.rawValue].contains(
                    error.name.rawValue),
                "\(error.name): \(error.message)")
        }
        XCTAssertTrue(daemon.isRunning)
    }

    // `voicememo peaks` prints the values one per line, or with --json as an array.
    func testTheCommandLinePrintsPeaksAsLinesOrJSON() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(1)])
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(6)) {
            $0.arguments.first?.objectPath == memo
        }
        let expected = try peaks(memo, 8)

        let plain = try fixture.voicememo(["peaks", "latest", "--count", "8"])
        XCTAssertEqual(plain.status, 0, "\(plain)")
        let lines = plain.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 8, plain.stdout)
        for (line, value) in zip(lines, expected) {
            XCTAssertEqual(try XCTUnwrap(Double(line), line), value, accuracy: 0.00005)
        }

        let json = try fixture.voicememo(["peaks", "latest", "--count=8", "--json"])
        XCTAssertEqual(json.status, 0, "\(json)")
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Double], json.stdout)
        XCTAssertEqual(array.count, expected.count)
        for (printed, value) in zip(array, expected) {
            XCTAssertEqual(printed, value, accuracy: 1e-12, "JSON keeps the value")
        }

        let standard = try fixture.voicememo(["peaks", "latest", "--json"])
        XCTAssertEqual(
            (try JSONSerialization.jsonObject(with: Data(standard.stdout.utf8)) as? [Double])?.count, 100,
            "100 values unless --count says")

        for arguments in [
            ["peaks"], ["peaks", "latest", "--count", "0"], ["peaks", "latest", "--count", "4097"],
            ["peaks", "latest", "--count", "many"], ["peaks", "latest", "--count"], ["peaks", "latest", "other"],
        ] {
            let output = try fixture.voicememo(arguments)
            XCTAssertEqual(output.status, 64, "\(arguments): \(output)")
            XCTAssertTrue(output.stderr.contains("Usage: voicememo peaks"), "\(arguments): \(output.stderr)")
            XCTAssertEqual(output.stdout, "")
        }
        let help = try fixture.voicememo(["peaks", "--help"])
        XCTAssertTrue(help.stdout.contains("Usage: voicememo peaks"), help.stdout)
    }

    // `voicememo list` draws each memo's waveform on a terminal, and not into a pipe.
    func testListDrawsASparklineOnATerminalOnly() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(1)])
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(6)) {
            $0.arguments.first?.objectPath == memo
        }
        let id = String(memo.rawValue.split(separator: "/").last!)
        let blocks = Set("▁▂▃▄▅▆▇█")

        let piped = try fixture.voicememo(["list"])
        XCTAssertEqual(piped.status, 0, "\(piped)")
        XCTAssertTrue(piped.stdout.hasPrefix(id), piped.stdout)
        XCTAssertFalse(piped.stdout.contains { blocks.contains($0) }, "no sparkline into a pipe: \(piped.stdout)")

        // script(1) gives the command a pseudo-terminal as its stdout.
        let command = "'\(try BuildProducts.voicememo().path)' list"
        let terminal = try fixture.session.run(
            "/usr/bin/script", ["-qec", command, "/dev/null"], timeout: .seconds(10))
        XCTAssertEqual(terminal.status, 0, "\(terminal)")
        let line = try XCTUnwrap(
            terminal.stdout.split(whereSeparator: \.isNewline).first { $0.hasPrefix(id) }, terminal.stdout)
        let sparkline = line.filter { blocks.contains($0) }
        XCTAssertEqual(sparkline.count, 16, "16 blocks: \(line)")
        // The tone at half scale throughout: every block is the fourth or fifth.
        XCTAssertTrue(sparkline.allSatisfy { $0 == "▄" || $0 == "▅" }, "\(line)")
    }
}
