import Bus
import Foundation
import IntegrationSupport
import SoundFile
import TestSupport
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoRuntime
import XCTest

/// Trim and TrimSilence against the real daemon: memos written by the test (a tone with a
/// one-sample click at 3.000 s), cut, checked sample by sample, restored from the trash with
/// GLib's own `gio trash --restore`, and a daemon killed in the middle of trims.
final class TrimAcceptanceTests: RecorderTestCase {
    private var memoDirectory: URL { fixture.session.memoDirectory }
    private var trash: Trash { Trash(directory: fixture.session.dataDirectory.appendingPathComponent("Trash").path) }
    private static let sampleRate = 48_000
    private static let clickFrame = 3 * sampleRate
    private static let clickSample: Int16 = 30_000

    override func setUpWithError() throws {
        try super.setUpWithError()
        if FileManager.default.fileExists(atPath: trash.directory) {
            try FileManager.default.removeItem(atPath: trash.directory)
        }
    }

    /// 10 s of a 440 Hz tone at -30 dBFS with one full click at 3.000 s, as 16-bit samples.
    private static func clickTone(seconds: Int = 10) -> [Int16] {
        var samples = (0..<(seconds * sampleRate)).map { index in
            Int16((1036 * sin(2 * Double.pi * 440 * Double(index) / Double(sampleRate))).rounded())
        }
        samples[clickFrame] = clickSample
        return samples
    }

    /// Writes `samples` as a memo of `format` titled `title` (and dated, so a test can check
    /// the tags other than the title are kept) and returns its object and file.
    private func addTitledMemo(
        _ samples: [Int16], format: AudioFormat, title: String, retag: ((String) throws -> Void)? = nil
    ) throws -> (ObjectPath, URL) {
        // A memo's id is its time stamp: each memo of a test an hour older than the one before.
        let age = 3600.0 * Double(try recorder.managedMemos().count + 1)
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -age), title: title, format: format)
        let memo = try addMemo(
            samples, named: name, format: format, title: title, date: "2026-12-03T10:00:00Z", retag: retag)
        return (memo, memoDirectory.appendingPathComponent(name))
    }

    private func samples(of file: URL) throws -> [Int16] {
        try SoundFileReader(path: file.path).readInt16()
    }

    /// Starts gvfs's daemon on the session bus, for `gio trash`; stopped by its PID.
    private func startFileSystemDaemon() throws -> ChildProcess {
        let gvfsd = try fixture.session.launch("/usr/libexec/gvfsd", [], logName: "gvfsd")
        try waitUntil("gvfsd owns org.gtk.vfs.Daemon", timeout: .seconds(10)) {
            try fixture.session.busNameHasOwner("org.gtk.vfs.Daemon")
        }
        return gvfsd
    }

    private func assertLosslessTrim(_ format: AudioFormat) throws {
        let original = Self.clickTone()
        let (memo, file) = try addTitledMemo(original, format: format, title: "Click \(format.rawValue)")
        let before = try XCTUnwrap(try recorder.managedMemos()[memo])
        let bytes = try Data(contentsOf: file)
        let mark = try recorder.markSignals()

        _ = try recorder.callMemo(memo, MemoMember.trim, [.double(2.5), .double(7.5)])

        let trimmed = try samples(of: file)
        XCTAssertEqual(trimmed.count, 5 * Self.sampleRate, "5.000 s")
        let click = trimmed.indices.max { abs(Int(trimmed[$0])) < abs(Int(trimmed[$1])) }
        XCTAssertEqual(click, Self.sampleRate / 2, "the click at 0.500 s, to the sample")
        XCTAssertTrue(trimmed == Array(original[120_000..<360_000]), "every sample kept as it was")
        let after = try XCTUnwrap(try recorder.managedMemos()[memo], "the same object path")
        XCTAssertEqual(after[MemoMember.duration.name]?.double ?? 0, 5, accuracy: 1e-9)
        for kept in [MemoMember.title, MemoMember.path, MemoMember.id, MemoMember.format, MemoMember.created] {
            XCTAssertEqual(after[kept.name], before[kept.name], kept.name)
        }
        XCTAssertEqual(try SoundFileReader(path: file.path).title, "Click \(format.rawValue)", "the title tag kept")
        XCTAssertEqual(try SoundFileReader(path: file.path).date, "2026-12-03T10:00:00Z", "the other tags kept")
        var info = stat()
        XCTAssertEqual(stat(file.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o600, "user-only like every memo")
        let changed = try recorder.waitForSignal("PropertiesChanged", after: mark) {
            $0.path == memo && $0.arguments[1].stringDictionary?[MemoMember.duration.name] != nil
        }
        XCTAssertEqual(changed.arguments[1].stringDictionary?[MemoMember.duration.name]?.double ?? 0, 5, accuracy: 1e-9)

        // The old version is in the trash, and GLib restores it over the trimmed one.
        let trashed = try FileManager.default.contentsOfDirectory(atPath: trash.filesDirectory)
        XCTAssertEqual(trashed, [file.lastPathComponent])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: trash.filesDirectory + "/" + trashed[0])), bytes)
        let gvfsd = try startFileSystemDaemon()
        defer { _ = gvfsd.terminate() }
        let uri = "trash:///" + trashed[0].addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
        let restoring = try fixture.session.run(try Executable.find("gio"), ["trash", "--restore", "--force", uri])
        XCTAssertEqual(restoring.status, 0, "\(restoring)")
        XCTAssertEqual(try Data(contentsOf: file), bytes, "the original is back")
        try waitUntil("the memo is 10 s long again", timeout: .seconds(5)) {
            try self.recorder.memoProperty(memo, MemoMember.duration).double == 10
        }
    }

    func testAWaveMemoIsCutSampleExactAndTheOriginalIsRestorable() throws {
        try assertLosslessTrim(.wav)
    }

    func testAFlacMemoIsCutSampleExactAndTheOriginalIsRestorable() throws {
        try assertLosslessTrim(.flac)
    }

    func testAnOpusMemoIsEncodedAgainAtItsQuality() throws {
        let (memo, file) = try addTitledMemo(Self.clickTone(), format: .opus, title: "Click opus")
        let size = try XCTUnwrap(try recorder.memoProperty(memo, MemoMember.size).uint64)
        _ = try recorder.callMemo(memo, MemoMember.trim, [.double(2.5), .double(7.5)])
        let reader = try SoundFileReader(path: file.path)
        XCTAssertEqual(reader.duration, 5, accuracy: 0.02)
        XCTAssertEqual(reader.title, "Click opus")
        let tone = AudioAnalysis.normalized(Array(reader.readInt16()[48_000..<96_000]))
        XCTAssertEqual(AudioAnalysis.dominantFrequency(tone, sampleRate: 48_000), 440, accuracy: 2)
        XCTAssertEqual(AudioAnalysis.rmsDBFS(tone), -33, accuracy: 1.5, "a -30 dBFS peak tone is -33 dBFS RMS")
        // The same bitrate: half the audio, about half the bytes.
        let newSize = try XCTUnwrap(try recorder.memoProperty(memo, MemoMember.size).uint64)
        XCTAssertEqual(Double(newSize) / Double(size), 0.5, accuracy: 0.1, "\(size) → \(newSize) bytes")
    }

    /// An MP3 memo is encoded again too (LAME once refused the level a quiet memo's bitrate
    /// maps to): 5 s within one MPEG frame (1152 samples), as libsndfile and ffmpeg decode it,
    /// the old version in the trash.
    func testAnMP3MemoIsEncodedAgainWithinOneFrame() throws {
        let (memo, file) = try addTitledMemo(Self.clickTone(), format: .mp3, title: "Click mp3")
        let bytes = try Data(contentsOf: file)
        _ = try recorder.callMemo(memo, MemoMember.trim, [.double(2.5), .double(7.5)])
        let reader = try SoundFileReader(path: file.path)
        let decoded = try ExternalTags.decodedFrames(ofFileAt: file.path)
        print(
            "the MP3 trimmed to 2.5…7.5 s: \(reader.frameCount) frames by libsndfile, \(decoded) by ffmpeg, of 240000")
        XCTAssertEqual(reader.frameCount, 5 * Self.sampleRate, accuracy: 1152, "libsndfile's frames")
        XCTAssertEqual(decoded, 5 * Self.sampleRate, accuracy: 1152, "ffmpeg's frames")
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.duration).double ?? 0, 5, accuracy: 0.024)
        XCTAssertEqual(reader.title, "Click mp3")
        let tone = AudioAnalysis.normalized(Array(reader.readInt16()[48_000..<96_000]))
        XCTAssertEqual(AudioAnalysis.dominantFrequency(tone, sampleRate: 48_000), 440, accuracy: 2)
        let trashed = try FileManager.default.contentsOfDirectory(atPath: trash.filesDirectory)
        XCTAssertEqual(trashed, [file.lastPathComponent])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: trash.filesDirectory + "/" + trashed[0])), bytes)
    }

    /// Memos given extra tags by other programs (metaflac, ffmpeg: a picture, custom and
    /// repeated fields, a FLAC APPLICATION block, ID3v2.4 APIC, TXXX and COMM, WAV IART and
    /// ICMT and an unknown chunk) keep every one through a trim, as those programs read them.
    func testATrimKeepsEveryTagOtherProgramsWrote() throws {
        let picture = try ExternalTags.makePicture(in: fixture.session.root.path)
        let pictureBytes = try Data(contentsOf: URL(fileURLWithPath: picture))
        for format in [AudioFormat.flac, .opus, .mp3, .wav] {
            let title = "Tagged \(format.rawValue)"
            let (memo, file) = try addTitledMemo(Self.clickTone(), format: format, title: title) {
                try ExternalTags.addTags(toFileAt: $0, picture: picture)
            }
            let tags = try ExternalTags.tags(ofFileAt: file.path)
            XCTAssertGreaterThan(tags.count, 4, "\(format): \(tags)")

            _ = try recorder.callMemo(memo, MemoMember.trim, [.double(2.5), .double(7.5)])

            XCTAssertEqual(try SoundFileReader(path: file.path).duration, 5, accuracy: 0.025, "\(format)")
            XCTAssertEqual(try ExternalTags.tags(ofFileAt: file.path), tags, "\(format)")
            XCTAssertEqual(try ExternalTags.title(ofFileAt: file.path), title, "\(format)")
            XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.title).string, title, "\(format)")
            if format != .wav {
                XCTAssertEqual(try ExternalTags.pictureBytes(ofFileAt: file.path), pictureBytes, "\(format)")
            }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)
            .filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no temporary file left")
    }

    func testTrimSilenceKeepsAFifthOfASecondEitherSide() throws {
        // Silence, then 3.5 s of -20 dBFS tone from 3.000 s, then silence to 10 s.
        let samples = (0..<(10 * Self.sampleRate)).map { index -> Int16 in
            guard (144_000..<312_000).contains(index) else { return 0 }
            return Int16((3277 * sin(2 * Double.pi * 440 * Double(index) / 48_000)).rounded())
        }
        let (memo, file) = try addTitledMemo(samples, format: .wav, title: "Quiet edges")
        _ = try recorder.callMemo(memo, MemoMember.trimSilence)
        let trimmed = try self.samples(of: file)
        XCTAssertEqual(trimmed.count, 134_400 - 134_400 + 321_600 - 134_400, "3.5 s and 0.2 s either side")
        XCTAssertTrue(trimmed == Array(samples[134_400..<321_600]))
        // Nothing left to cut: the file is untouched, and no copy goes to the trash.
        let bytes = try Data(contentsOf: file)
        _ = try recorder.callMemo(memo, MemoMember.trimSilence)
        XCTAssertEqual(try Data(contentsOf: file), bytes)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: trash.filesDirectory).count, 1)
    }

    func testRefusalsLeaveTheFileUntouched() throws {
        let (memo, file) = try addTitledMemo(Self.clickTone(), format: .wav, title: "Keep me")
        let bytes = try Data(contentsOf: file)
        for (start, end) in [(5.0, 3.0), (2.0, 2.0), (-1.0, 3.0), (0.0, 10.5), (11.0, 12.0), (0.0, .nan)] {
            XCTAssertThrowsError(try recorder.callMemo(memo, MemoMember.trim, [.double(start), .double(end)])) {
                error in
                XCTAssertEqual((error as? BusError)?.name.rawValue, ContractError.invalidArgument.name.rawValue)
                XCTAssertFalse((error as? BusError)?.message.isEmpty ?? true)
            }
        }
        XCTAssertEqual(try Data(contentsOf: file), bytes)

        let (silent, silentFile) = try addTitledMemo(
            [Int16](repeating: 0, count: 48_000), format: .wav, title: "Nothing")
        let silentBytes = try Data(contentsOf: silentFile)
        XCTAssertThrowsError(try recorder.callMemo(silent, MemoMember.trimSilence)) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ContractError.invalidArgument.name.rawValue)
        }
        XCTAssertEqual(try Data(contentsOf: silentFile), silentBytes)

        // The memo being recorded is busy; its file goes on growing.
        let recording = try recorder.recordWithOptions(["format": .string("wav")])
        try recorder.waitUntilRecorded(0.5)
        for call in [(MemoMember.trim, [BusValue.double(0), .double(0.2)]), (MemoMember.trimSilence, [])] {
            XCTAssertThrowsError(try recorder.callMemo(recording, call.0, call.1)) { error in
                XCTAssertEqual((error as? BusError)?.name.rawValue, ContractError.busy.name.rawValue, "\(call.0.name)")
            }
        }
        _ = try recorder.call(RecorderMember.stop)
        XCTAssertFalse(FileManager.default.fileExists(atPath: trash.filesDirectory), "nothing was trashed")
    }

    /// A memo of 100 MB whose every sample says where it is (the frame index modulo 2^15), so
    /// a file that survives any kill can be checked: it is the whole original, or the
    /// original without its first and last half second, and nothing else.
    func testASIGKILLAtAnyMomentOfATrimLeavesTheOldMemoOrTheNew() throws {
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -7200), title: "Lecture", format: .wav)
        try FileManager.default.createDirectory(at: memoDirectory, withIntermediateDirectories: true)
        let staged = fixture.session.root.appendingPathComponent(name)
        let frames = 50_000_000  // 100 MB of 16-bit mono
        XCTAssertTrue(FileManager.default.createFile(atPath: staged.path, contents: nil))
        let handle = try FileHandle(forWritingTo: staged)
        let header = WaveHeader.pcm16(frames: frames, sampleRate: 48_000)
        try handle.write(contentsOf: header)
        let period = (0..<32_768).map { Int16($0) }.withUnsafeBytes { Data($0) }
        for _ in 0..<(frames / 32_768) { try handle.write(contentsOf: period) }
        try handle.write(contentsOf: period.prefix((frames % 32_768) * 2))
        try handle.close()
        let file = memoDirectory.appendingPathComponent(name)
        try FileManager.default.moveItem(at: staged, to: file)
        let memo = Contract.memoPath(id: MemoNaming.memoID(forFileName: name))
        try waitUntil("the memo is listed", timeout: .seconds(10)) { try self.recorder.managedMemos()[memo] != nil }

        /// The frames the file holds and its first sample's place in the original, after
        /// checking every 997th sample follows on.
        func check() throws -> (frames: Int, offset: Int) {
            let reader = try SoundFileReader(path: file.path)
            let samples = reader.readInt16()
            XCTAssertEqual(samples.count, reader.frameCount, "the header tells all the audio")
            let offset = Int(samples.first ?? 0)
            for index in stride(from: 0, to: samples.count, by: 997)
            where Int(samples[index]) != (offset + index) % 32_768 {
                XCTFail("sample \(index) is \(samples[index]), not \((offset + index) % 32_768)")
                break
            }
            return (samples.count, offset)
        }

        // One trim to the end: how long one takes, and that it cuts half a second either side.
        var expected = (frames: frames, offset: 0)
        var clock = ContinuousClock.now
        _ = try recorder.callMemo(memo, MemoMember.trim, [.double(0.5), .double(Double(frames) / 48_000 - 0.5)])
        let oneTrim = ContinuousClock.now - clock
        expected = (frames - 48_000, 24_000)  // the first sample tells the offset modulo 2^15
        XCTAssertTrue(try check() == expected)

        let seed = UInt64(Date().timeIntervalSince1970)
        var generator = SeededGenerator(seed: seed)
        print("seed for the kills: \(seed); one trim took \(oneTrim)")
        var daemon: Daemon? = nil
        defer { daemon?.stop() }
        var outcomes: [String] = []
        for round in 0..<20 {
            let running = daemon ?? self.daemon
            let end = Double(expected.frames) / 48_000 - 0.5
            let trim = try fixture.session.launch(
                "busctl",
                [
                    "--user", "--timeout=60", "call", Contract.busName.rawValue, memo.rawValue,
                    Contract.memoInterface.rawValue, MemoMember.trim.name.rawValue, "dd", "0.5", String(end),
                ], logName: "trim-\(round)")
            clock = .now
            let delay =
                Double.random(in: 0...1.2, using: &generator) * Double(oneTrim.components.seconds)
                + Double.random(in: 0...1.2, using: &generator) * Double(oneTrim.components.attoseconds) / 1e18
            // The kill's moment is the test: anywhere in a trim, chosen by the seeded generator.
            running.kill(after: delay)
            _ = try? trim.waitForExit(timeout: .seconds(5))
            let (frameCount, offset) = try check()
            let trimmed = (expected.frames - 48_000, (expected.offset + 24_000) % 32_768)
            XCTAssertTrue(
                (frameCount, offset) == expected || (frameCount, offset) == trimmed,
                "round \(round), killed after \(delay) s: \(frameCount) frames from \(offset)")
            outcomes.append((frameCount, offset) == expected ? "old" : "new")
            expected = (frameCount, offset)
            daemon?.stop()
            daemon = try fixture.launchDaemon()
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)
                .filter { $0 != name }
            XCTAssertEqual(leftovers, [], "the new daemon removed what the killed one left")
            // The trash would fill with 100 MB versions; each round's is checked and dropped.
            try? FileManager.default.removeItem(atPath: trash.directory)
        }
        print("after each kill: \(outcomes.joined(separator: " "))")
        XCTAssertEqual(try check() == expected, true)
    }
}
