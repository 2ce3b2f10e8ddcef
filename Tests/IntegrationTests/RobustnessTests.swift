import Bus
import Foundation
import IntegrationSupport
import SoundFile
import TestSupport
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoRuntime
import XCTest

/// Nothing lost: crashes, SIGTERM and a full disk never cost audio already captured.
final class RobustnessTests: RecorderTestCase {

    // 1. SIGKILL at random moments: every memo decodes, keeps its audio, is reported once.
    func testSigkillMidRecordingLosesAtMostTheLastSecond() throws {
        var random = SeededGenerator(seed: 20_261_129)
        var daemon = self.daemon
        var restarted: [Daemon] = []
        defer { for daemon in restarted { _ = daemon.stop() } }
        let formats = ["wav", "flac", "opus"]
        for round in 0..<10 {
            let format = formats[round % formats.count]
            let memo = try recorder.recordWithOptions(["format": .string(format)])
            let started = Date()
            try recorder.waitUntilRecorded(Double.random(in: 1.0...2.5, using: &random))  // the kill moment
            XCTAssertEqual(daemon.kill(), .signalled(SIGKILL))
            let recorded = Date().timeIntervalSince(started)

            daemon = try fixture.launchDaemon()
            restarted.append(daemon)
            let report = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
                $0.arguments.first?.objectPath == memo
            }
            XCTAssertEqual(report.arguments.last?.boolean, false, "a crashed memo is reported as not successful")

            let url = try recorder.file(of: memo)
            let file = try SoundFileReader(path: url.path)
            let decoded = file.readFloats().count / file.channelCount
            let kept = Double(decoded) / Double(file.sampleRate)
            let allowed = format == "wav" ? 0.2 : 1.0
            XCTAssertGreaterThanOrEqual(
                kept, recorded - allowed, "round \(round) \(format): kept \(kept) s of \(recorded) s")
            XCTAssertEqual(
                Double(file.frameCount) / Double(file.sampleRate), kept, accuracy: 0.05,
                "the header tells the real length")
            try assertStandardDecoderAccepts(url, format: format)
        }
        try recorder.drainSignals()
        let reports = recorder.received.filter { $0.member == RecorderMember.recordingFinished.name }
        XCTAssertEqual(reports.count, 10, "each crashed memo is reported exactly once")
        XCTAssertEqual(Set(reports.compactMap { $0.arguments.first?.objectPath }).count, 10)
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: fixture.session.memoDirectory.appendingPathComponent(".voicememo-recording").path),
            "the journal is empty once every memo is recovered")
    }

    /// `flac -t` and `opusinfo` are the codecs' own checkers.
    private func assertStandardDecoderAccepts(_ url: URL, format: String, line: UInt = #line) throws {
        let checker: (String, [String])? =
            format == "flac" ? ("flac", ["-t", "-s", url.path]) : format == "opus" ? ("opusinfo", [url.path]) : nil
        guard let (tool, arguments) = checker else { return }
        let output = try fixture.session.run(tool, arguments)
        XCTAssertEqual(output.status, 0, "\(tool) rejects \(url.lastPathComponent): \(output)", line: line)
        // A FLAC cut short by a crash has no MD5 (the encoder writes it at the end); the
        // format allows that, and flac says so. Any other warning fails.
        let warnings = (output.stderr + output.stdout).split(separator: "\n").filter {
            $0.contains("WARNING") && !$0.contains("MD5 signature since it was unset")
        }
        XCTAssertEqual(warnings, [], "\(tool): \(output)", line: line)
    }

    // 1b. A long memo a crash left open is repaired away from the bus: the name is owned and
    // a recording starts while it is decoded, and it is reported once repaired.
    func testALongCrashedMemoIsRepairedWhileTheDaemonAlreadyRecords() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        let directory = fixture.session.memoDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // 30 minutes of tone in FLAC, cut short mid-frame as a crash leaves it.
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -3600), title: "Long", format: .flac)
        let crashed = directory.appendingPathComponent(name)
        let raw = fixture.session.root.appendingPathComponent("tone.raw")
        let second = (0..<48_000).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        let secondBytes = second.withUnsafeBytes { Data($0) }
        XCTAssertTrue(FileManager.default.createFile(atPath: raw.path, contents: nil))
        let writer = try FileHandle(forWritingTo: raw)
        for _ in 0..<1800 { writer.write(secondBytes) }
        try writer.close()
        let encoded = try fixture.session.run(
            "flac",
            [
                "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "--channels=1", "--bps=16",
                "--sample-rate=48000", "-o", crashed.path, raw.path,
            ], timeout: .seconds(120))
        XCTAssertEqual(encoded.status, 0, "\(encoded)")
        try FileManager.default.removeItem(at: raw)
        // An encoder that never finished leaves STREAMINFO's total and MD5 at zero.
        let patch = try FileHandle(forUpdating: crashed)
        var header = [UInt8](try XCTUnwrap(patch.read(upToCount: 42)))
        header[21] &= 0xF0
        header.replaceSubrange(22..<42, with: [UInt8](repeating: 0, count: 20))
        try patch.seek(toOffset: 0)
        try patch.write(contentsOf: header)
        try patch.close()
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: crashed.path)[.size] as? Int)
        XCTAssertEqual(truncate(crashed.path, off_t(size - 1000)), 0)
        try RecordingJournal(directory: directory.path).add(name)

        let restarted = try fixture.launchDaemon(waitsForLibrary: false)
        defer { _ = restarted.stop() }
        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        XCTAssertFalse(
            restarted.log.contains("recovered \(name)"), "Record was answered only after the repair: \(restarted.log)")
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)

        let repaired = Contract.memoPath(id: MemoNaming.memoID(forFileName: name))
        let report = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(120)) {
            $0.arguments.first?.objectPath == repaired
        }
        XCTAssertEqual(report.arguments.last?.boolean, false, "a crashed memo is reported as not successful")
        XCTAssertTrue(restarted.log.contains("recovered \(name) after a crash"), restarted.log)
        let file = try SoundFileReader(path: crashed.path)
        XCTAssertEqual(file.duration, 1800, accuracy: 1, "all but the torn last frame is kept")
        try assertStandardDecoderAccepts(crashed, format: "flac")
        XCTAssertEqual(
            RecordingJournal(directory: directory.path).entries(), [], "the journal is empty once the memo is recovered"
        )
    }

    /// Two WAVs a crash left with the header libsndfile writes first (no sizes): one holds a
    /// second of audio and is kept, whole; the other holds none and is removed. Their
    /// repaired headers say which is which, without decoding either.
    func testACrashedMemoIsKeptOnlyIfItHoldsAudio() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        let directory = fixture.session.memoDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tone = (0..<48_000).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        let kept = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -120), title: "Kept", format: .wav)
        let empty = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -60), title: "Empty", format: .wav)
        let journal = RecordingJournal(directory: directory.path)
        for (name, samples) in [(kept, tone), (empty, [])] {
            let audio = samples.withUnsafeBytes { Data($0) }
            try (Self.waveHeaderBeforeTheFirstSync + audio).write(to: directory.appendingPathComponent(name))
            try journal.add(name)
        }

        let restarted = try fixture.launchDaemon()
        defer { _ = restarted.stop() }
        let keptPath = Contract.memoPath(id: MemoNaming.memoID(forFileName: kept))
        let report = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(10)) {
            $0.arguments.first?.objectPath == keptPath
        }
        XCTAssertEqual(report.arguments.last?.boolean, false, "a crashed memo is reported as not successful")
        let file = try SoundFileReader(path: directory.appendingPathComponent(kept).path)
        XCTAssertEqual(file.frameCount, 48_000, "the whole second is kept")
        XCTAssertEqual(file.readInt16(), tone)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: directory.appendingPathComponent(empty).path),
            "a memo with no audio is removed: \(restarted.log)")
        XCTAssertTrue(restarted.log.contains("\(empty) holds no audio; removing it"), restarted.log)
        XCTAssertEqual(journal.entries(), [], "the journal is empty once both are dealt with")
    }

    /// A 16-bit mono 48 kHz WAV header whose RIFF and data sizes are still zero, as
    /// libsndfile writes it when the file is created.
    private static var waveHeaderBeforeTheFirstSync: Data {
        func little<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
            withUnsafeBytes(of: value.littleEndian, Array.init)
        }
        var header = Array("RIFF".utf8) + little(UInt32(0)) + Array("WAVEfmt ".utf8) + little(UInt32(16))
        header += little(UInt16(1)) + little(UInt16(1)) + little(UInt32(48_000)) + little(UInt32(96_000))
        header += little(UInt16(2)) + little(UInt16(16)) + Array("data".utf8) + little(UInt32(0))
        return Data(header)
    }

    // 2. SIGTERM finishes the open memo properly and exits 0.
    func testSigtermFinalizesTheOpenMemo() throws {
        let memo = try recorder.recordWithOptions(["format": .string("flac")])
        let started = Date()
        try recorder.waitUntilRecorded(1.5)
        XCTAssertEqual(daemon.stop(), .exited(0))
        let elapsed = Date().timeIntervalSince(started)
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, elapsed, accuracy: 0.1)
        XCTAssertEqual(
            file.readFloats().count / file.channelCount, file.frameCount, "finalized: the header's length is exact")
        try assertStandardDecoderAccepts(recorder.file(of: memo), format: "flac")
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
    }

    // 3. A full disk: EncodeError, RecordingFinished(false), a decodable partial file, and
    // recording works again once there is space.
    func testAFullDiskKeepsWhatWasWrittenAndRecoversWhenFreed() throws {
        let directory = fixture.session.memoDirectory
        XCTAssertEqual(daemon.stop(), .exited(0))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let mount = try fixture.session.run(
            "mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", directory.path])
        XCTAssertEqual(mount.status, 0, "mounting a 1 MiB tmpfs needs root: \(mount)")
        defer { _ = try? fixture.session.run("umount", ["-l", directory.path]) }
        let small = try fixture.launchDaemon()
        defer { _ = small.stop() }

        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "sample-rate": .uint32(96000), "channels": .uint32(2),
        ])
        let error = try recorder.waitForSignal(RecorderMember.encodeError, timeout: .seconds(10)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertTrue(error.arguments.last?.string?.contains("No space left") == true, "\(error.arguments)")
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, false)
        XCTAssertEqual(try recorder.state, "idle")
        let url = try recorder.file(of: memo)
        do {  // closed before the file is removed, or tmpfs keeps its space
            let partial = try SoundFileReader(path: url.path)
            XCTAssertGreaterThan(partial.duration, 1.0, "the audio written before the disk filled is kept")
            XCTAssertEqual(partial.readFloats().count / 2, partial.frameCount, "and its header is true")
        }

        try FileManager.default.removeItem(at: url)
        let next = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(0.5)])
        let done = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == next
        }
        XCTAssertEqual(done.arguments.last?.boolean, true, "recording works again once there is space")
    }

    // A memo directory that cannot be written answers Storage, naming the path.
    func testAnUnwritableMemoDirectoryIsAStorageError() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        let blocked = fixture.session.root.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocked)
        let other = try fixture.launchDaemon(environment: ["XDG_DATA_HOME": blocked.path])
        defer { _ = other.stop() }
        let error = try XCTUnwrap(recorder.callFailing(RecorderMember.record))
        XCTAssertEqual(error.name.rawValue, ContractError.storage.name.rawValue)
        XCTAssertTrue(error.message.contains(blocked.path), error.message)
    }
}
