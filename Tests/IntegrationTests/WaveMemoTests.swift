import AudioContainers
import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// WAV memos are written as RF64 with libsndfile's downgrade: a plain RIFF WAVE until the
/// file passes 4 GiB, so a memo of any length keeps its size fields. A short memo must stay
/// what sox, ffprobe and the daemon's own library read today; an RF64 one (what a memo past
/// 4 GiB becomes) is listed, drawn, played and renamed as well.
final class WaveMemoTests: RecorderTestCase {
    /// Records a WAV memo of `seconds` and waits until it is finished.
    private func recordWave(_ seconds: Double) throws -> ObjectPath {
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(seconds)])
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(seconds + 5)) {
            $0.arguments.first?.objectPath == memo
        }
        return memo
    }

    /// What `tool` prints for `arguments` (standard output, then standard error), failing
    /// the test when it exits with an error.
    private func run(_ tool: String, _ arguments: [String], line: UInt = #line) throws -> (String, String) {
        let output = try ChildProcess.run(tool, arguments, environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertTrue(output.succeeded, "\(tool) \(arguments.joined(separator: " ")): \(output)", line: line)
        return (output.stdout.trimmingCharacters(in: .whitespacesAndNewlines), output.stderr)
    }

    /// ffprobe's container name and duration, and sox's duration, of the file at `path`.
    private func toolReports(_ path: String) throws -> (format: String, ffprobe: Double, sox: Double) {
        let probe = try run(
            "ffprobe", ["-v", "error", "-show_entries", "format=format_name,duration", "-of", "default=nw=1", path]
        ).0.split(separator: "\n")
        func value(_ key: String) -> String? {
            probe.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        let sox = try run("sox", ["--i", "-D", path]).0
        return (value("format_name") ?? "", value("duration").flatMap(Double.init) ?? -1, Double(sox) ?? -1)
    }

    private func peaks(_ memo: ObjectPath, _ count: UInt32) throws -> [Double] {
        let reply = try recorder.callMemo(memo, MemoMember.peaks, [.uint32(count)])
        return try XCTUnwrap(reply.first?.array?.compactMap(\.double), "Peaks answers ad: \(reply)")
    }

    /// The memo is the stimulus throughout: every slice but the first (the stream's onset)
    /// peaks near the tone's 0.5.
    private func assertPeaksShowTheTone(_ memo: ObjectPath, line: UInt = #line) throws {
        let values = try peaks(memo, 40)
        XCTAssertEqual(values.count, 40, line: line)
        for (index, value) in values.enumerated().dropFirst() {
            XCTAssertGreaterThanOrEqual(value, 0.45, "slice \(index) of the tone: \(values)", line: line)
        }
    }

    func testAShortWaveMemoStaysAPlainWaveThatEveryReaderTakes() throws {
        let memo = try recordWave(2)
        let url = try recorder.file(of: memo)
        let bytes = [UInt8](try Data(contentsOf: url))
        XCTAssertEqual(Array(bytes[0..<4]), Array("RIFF".utf8), "not RF64 while under 4 GiB")
        XCTAssertEqual(Array(bytes[8..<16]), Array("WAVEJUNK".utf8), "the placeholder RF64 would need")
        XCTAssertEqual(bytes[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }, bytes.count - 8, "RIFF size")

        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.format).string, "wav")
        let duration = try XCTUnwrap(recorder.memoProperty(memo, MemoMember.duration).double)
        XCTAssertEqual(duration, 2, accuracy: 0.05)
        let reports = try toolReports(url.path)
        XCTAssertEqual(reports.format, "wav")
        XCTAssertEqual(reports.ffprobe, duration, accuracy: 0.001, "ffprobe")
        XCTAssertEqual(reports.sox, duration, accuracy: 0.001, "sox")
        // sox decodes the whole file too, not just its header.
        let statistics = try run("sox", [url.path, "-n", "stat"]).1
        let length = statistics.split(separator: "\n").first { $0.hasPrefix("Length (seconds):") }
        XCTAssertEqual(length.flatMap { Double($0.split(separator: " ").last ?? "") } ?? -1, duration, accuracy: 0.001)
        try assertPeaksShowTheTone(memo)
    }

    func testAnRF64MemoIsListedDrawnPlayedAndRenamed() throws {
        let recorded = try recordWave(2)
        fixture.stimulus.stop()  // so the speaker carries only the playback
        // ffmpeg writes RF64 at any length; ours become RF64 only past 4 GiB (LargeWaveTests).
        let staging = fixture.session.root.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        let staged = staging.appendingPathComponent("long.wav")
        _ = try run(
            "ffmpeg",
            [
                "-v", "error", "-i", try recorder.file(of: recorded).path, "-c", "copy", "-rf64", "always",
                staged.path,
            ])
        XCTAssertEqual(try Data(contentsOf: staged).prefix(4), Data("RF64".utf8))
        let id = MemoNaming.memoID(forFileName: "long.wav")
        try FileManager.default.moveItem(
            at: staged, to: fixture.session.memoDirectory.appendingPathComponent("long.wav"))
        let added = try recorder.waitForSignal("InterfacesAdded", timeout: .seconds(2)) {
            $0.arguments.first?.objectPath?.rawValue.hasSuffix("/" + id) == true
        }
        let memo = try XCTUnwrap(added.arguments.first?.objectPath)
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.format).string, "wav")
        let duration = try XCTUnwrap(recorder.memoProperty(memo, MemoMember.duration).double)
        XCTAssertEqual(
            duration, try XCTUnwrap(recorder.memoProperty(recorded, MemoMember.duration).double), accuracy: 0.001)
        try assertPeaksShowTheTone(memo)

        let speaker = try SourceRecording(from: AudioDevices.speaker + ".monitor", in: fixture.session)
        defer { speaker.stop() }
        try recorder.callMemo(memo, MemoMember.play)
        let finished = try recorder.waitForSignal(RecorderMember.playbackFinished, timeout: .seconds(6)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true, "played to the end")
        let heard = AudioAnalysis.normalized(speaker.samples)
        let loud = heard.enumerated().filter { abs($0.element) > 0.05 }.map(\.offset)
        let played = Double((loud.last ?? 0) - (loud.first ?? 0)) / Double(Stimulus.sampleRate)
        XCTAssertEqual(played, duration, accuracy: 0.1, "the speaker hears the whole memo")

        try recorder.callMemo(memo, MemoMember.rename, [.string("Six hours")])
        try recorder.waitForSignal("PropertiesChanged") {
            $0.path == memo && $0.arguments[1].stringDictionary?[MemoMember.title.name]?.string == "Six hours"
        }
        let renamed = try recorder.file(of: memo)
        XCTAssertEqual(try Data(contentsOf: renamed).prefix(4), Data("RF64".utf8))
        XCTAssertEqual(try SoundFileReader(path: renamed.path).title, "Six hours")
        let reports = try toolReports(renamed.path)
        XCTAssertEqual(reports.format, "wav")
        XCTAssertEqual(reports.ffprobe, duration, accuracy: 0.001, "ffprobe")
        XCTAssertEqual(reports.sox, duration, accuracy: 0.001, "sox")
        XCTAssertEqual(
            try XCTUnwrap(recorder.memoProperty(memo, MemoMember.duration).double), duration, accuracy: 0.001)
    }
}
