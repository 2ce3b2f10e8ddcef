import Bus
import Foundation
import IntegrationSupport
import SoundFile
import Synchronization
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// The recorder daemon's acceptance list: real daemon, real bus, real audio server, and
/// every recording checked by what it contains.
final class RecordingAcceptanceTests: RecorderTestCase {

    /// Runs `busctl --user` in the session and returns its output, failing on a non-zero exit.
    @discardableResult
    private func busctl(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let output = try fixture.session.busctl(arguments)
        XCTAssertTrue(output.succeeded, "busctl \(arguments.joined(separator: " ")): \(output)", file: file, line: line)
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func busctlCall(_ method: BusMethodDeclaration) throws -> String {
        try busctl([
            "call", Contract.busName.rawValue, Contract.recorderPath.rawValue, Contract.recorderInterface.rawValue,
            method.name.rawValue,
        ])
    }

    /// Checks that `file` holds the stimulus: level within 1 dB, frequency within 2 %.
    private func assertHoldsStimulus(_ file: SoundFileReader, _ context: String, line: UInt = #line) {
        let samples = file.readFloats()
        let mono = stride(from: 0, to: samples.count, by: file.channelCount).map { samples[$0] }
        // Skip the first 50 ms: encoders' onsets and the stream's first fragment.
        let steady = Array(mono.dropFirst(file.sampleRate / 20))
        let level = AudioAnalysis.rmsDBFS(steady)
        let frequency = AudioAnalysis.dominantFrequency(steady, sampleRate: file.sampleRate)
        XCTAssertEqual(level, fixture.stimulus.rmsDBFS, accuracy: 1, "\(context): level", line: line)
        XCTAssertEqual(
            frequency, Stimulus.frequency, accuracy: Stimulus.frequency * 0.02, "\(context): frequency", line: line)
    }

    // 1. Record, 3 s, Stop, in every format, through busctl exactly as a user types it.
    func testRecordThreeSecondsInEveryFormatHoldsTheTone() throws {
        for format in AudioFormat.allCases {
            try busctl([
                "set-property", Contract.busName.rawValue, Contract.recorderPath.rawValue,
                Contract.recorderInterface.rawValue, RecorderMember.format.name, "s", format.rawValue,
            ])
            var span = RecordingSpan()
            let started = try span.start { try busctlCall(RecorderMember.record) }
            try recorder.waitUntilRecorded(3)
            let stopped = try span.stop { try busctlCall(RecorderMember.stop) }
            XCTAssertEqual(started, stopped, "Stop returns the memo Record returned")
            let path = try XCTUnwrap(ObjectPath(rawValue: String(stopped.dropFirst(3).dropLast())), stopped)

            let url = try recorder.file(of: path)
            XCTAssertEqual(url.pathExtension, format.fileExtension)
            let file = try SoundFileReader(path: url.path)
            XCTAssertEqual(file.format, format)
            XCTAssertTrue(
                span.admits(file.duration, tolerance: 0.1), "\(format) duration \(file.duration) s, recorded \(span)")
            assertHoldsStimulus(file, "\(format)")
            if format == .wav {
                let exact = AudioAnalysis.exactSamplesAcrossSourceDropouts(
                    recorded: try SoundFileReader(path: url.path).readInt16(), period: fixture.stimulus.samples)
                XCTAssertGreaterThanOrEqual(exact, 2 * Stimulus.sampleRate, "16-bit WAV is bit-exact to the stimulus")
            }
            let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600, "memo files are the user's alone")
        }
    }

    // 2. Record 2 s, Pause 1 s, Resume, 2 s, Stop: 4 s of audio, every state announced.
    func testPauseAndResumeAppendToTheSameMemo() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        try recorder.waitUntilRecorded(2)
        try recorder.call(RecorderMember.pause)
        XCTAssertEqual(try recorder.state, "paused")
        let url = try recorder.file(of: memo)
        let whilePaused = try SoundFileReader(path: url.path)
        XCTAssertEqual(whilePaused.duration, 2.0, accuracy: 0.15, "the file is valid on disk while paused")
        // Paused while the microphone delivers a second, none of which may be kept.
        let microphone = try SourceRecording(in: fixture.session)
        defer { microphone.stop() }
        try microphone.waitUntilDelivered(1)
        try recorder.call(RecorderMember.resume)
        try recorder.waitUntilRecorded(4)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)

        let file = try SoundFileReader(path: url.path)
        XCTAssertEqual(file.duration, 4.0, accuracy: 0.15)
        assertHoldsStimulus(file, "paused and resumed")
        try recorder.waitForSignal(RecorderMember.recordingFinished) { $0.arguments.first?.objectPath == memo }
        try recorder.drainSignals()
        XCTAssertEqual(recorder.announcedStates, ["recording", "paused", "recording", "idle"])
    }

    // 3a. duration: stops by itself at exactly the requested length.
    func testDurationStopsTheRecordingByItself() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(2)])
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(6)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        XCTAssertEqual(try recorder.state, "idle")
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, 2.0, accuracy: 0.05)
        assertHoldsStimulus(file, "duration 2")
    }

    // 3b. start-at: scheduled until then, and the file starts then.
    func testStartAtSchedulesTheRecording() throws {
        let startAt = Int64(Date().timeIntervalSince1970.rounded(.up)) + 2
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "start-at": .int64(startAt)])
        XCTAssertEqual(try recorder.state, "scheduled")
        XCTAssertEqual(try recorder.property(RecorderMember.currentMemo).objectPath, memo)
        XCTAssertTrue(recorder.memoFiles.isEmpty, "no file before the start time")

        try recorder.waitForSignal("PropertiesChanged", timeout: .seconds(5)) {
            $0.arguments[1].stringDictionary?[RecorderMember.state.name]?.string == "recording"
        }
        let startedAt = Date().timeIntervalSince1970
        XCTAssertEqual(startedAt, Double(startAt), accuracy: 0.3, "recording starts at start-at")
        try recorder.waitUntilRecorded(1)
        try recorder.call(RecorderMember.stop)
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, 1.0, accuracy: 0.15, "the file holds only what came after start-at")
    }

    // 4. sample-rate and channels produce files with exactly those properties.
    func testSampleRatesAndChannelCountsAreExact() throws {
        for rate: UInt32 in [16000, 44100, 48000] {
            for channels: UInt32 in [1, 2] {
                let memo = try recorder.recordWithOptions([
                    "format": .string("flac"), "sample-rate": .uint32(rate), "channels": .uint32(channels),
                    "duration": .double(0.5),
                ])
                try recorder.waitForSignal(RecorderMember.recordingFinished) { $0.arguments.first?.objectPath == memo }
                let file = try SoundFileReader(path: recorder.file(of: memo).path)
                XCTAssertEqual(file.sampleRate, Int(rate))
                XCTAssertEqual(file.channelCount, Int(channels))
                XCTAssertEqual(file.duration, 0.5, accuracy: 0.001)
                assertHoldsStimulus(file, "\(rate) Hz × \(channels)")
            }
        }
    }

    // 5. Bad input gets the contract's error naming the problem; the daemon keeps serving.
    func testBadInputIsRefusedWithTheContractsErrors() throws {
        let invalid = ContractError.invalidArgument.name.rawValue
        let cases: [(options: [String: BusValue], name: String, mentions: [String])] = [
            (["colour": .string("red")], invalid, ["colour"]),
            (["sample-rate": .string("48000")], invalid, ["sample-rate", "'u'"]),
            (["sample-rate": .uint32(7)], invalid, ["sample-rate", "7"]),
            (["channels": .uint32(9)], invalid, ["channels", "9"]),
            (["format": .string("aac")], invalid, ["format", "aac"]),
            (["channel-layout": .string("stereo")], invalid, ["channel-layout", "mix, split", "stereo"]),
            (["channel-layout": .string("split")], invalid, ["channel-layout", "needs 'system-audio'"]),
            (
                ["system-audio": .boolean(true), "channel-layout": .string("split"), "channels": .uint32(1)], invalid,
                ["'channels' 1 contradicts it"]
            ),
            (["system-audio": .string("yes")], invalid, ["system-audio", "'b'"]),
            (
                ["format": .string("opus"), "sample-rate": .uint32(44100)], ContractError.unsupported.name.rawValue,
                ["44100"]
            ),
        ]
        for (options, name, mentions) in cases {
            let error = try XCTUnwrap(
                recorder.callFailing(RecorderMember.recordWithOptions, [.stringDictionary(options)]))
            XCTAssertEqual(error.name.rawValue, name, "\(options)")
            for word in mentions { XCTAssertTrue(error.message.contains(word), "'\(error.message)' names \(word)") }
        }
        for method in [RecorderMember.pause, RecorderMember.stop, RecorderMember.cancel] {
            let error = try XCTUnwrap(recorder.callFailing(method))
            XCTAssertEqual(error.name.rawValue, ContractError.notRecording.name.rawValue, "\(method.name)")
            XCTAssertFalse(error.message.isEmpty)
        }
        let wrongSignature = try XCTUnwrap(recorder.callFailing(RecorderMember.recordWithOptions, [.string("format")]))
        XCTAssertEqual(wrongSignature.name.rawValue, ErrorName.invalidArgs.rawValue)
        XCTAssertThrowsError(try recorder.setProperty(RecorderMember.sampleRate, .uint32(7))) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, invalid)
        }
        XCTAssertThrowsError(try recorder.setProperty(RecorderMember.state, .string("recording"))) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ErrorName.propertyReadOnly.rawValue)
        }

        XCTAssertEqual(try recorder.state, "idle")
        XCTAssertTrue(recorder.memoFiles.isEmpty, "refused requests leave no files")
        XCTAssertTrue(daemon.isRunning)
        let memo = try XCTUnwrap(recorder.call(RecorderMember.record).first?.objectPath)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo, "the daemon keeps serving")
    }

    // 6. 50 Toggles as fast as clients can send them: consistent state, only valid memos.
    func testToggleHammeringLeavesConsistentStateAndValidFiles() throws {
        let clients = 5
        let results = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        let busAddress = fixture.session.busAddress
        DispatchQueue.concurrentPerform(iterations: clients) { _ in
            do {
                let connection = try BusConnection.connect(address: busAddress)
                for _ in 0..<(50 / clients) {
                    let reply = try connection.call(
                        destination: VoiceMemoProxy.busName, path: VoiceMemoProxy.path,
                        interface: VoiceMemoProxy.interface,
                        member: RecorderMember.toggle.name)
                    results.withLock { $0.append(reply.first?.string ?? "?") }
                }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(errors.withLock { $0 }, [])
        let states = results.withLock { $0 }
        XCTAssertEqual(states.count, 50)
        XCTAssertTrue(states.allSatisfy { $0 == "recording" || $0 == "idle" }, "\(states)")
        let started = states.filter { $0 == "recording" }.count
        XCTAssertEqual(started, 25, "Toggle alternates: half of 50 start a memo")

        let state = try recorder.state
        XCTAssertEqual(state, "idle", "an even number of toggles ends idle")
        XCTAssertEqual(try recorder.property(RecorderMember.currentMemo).objectPath, .root)
        let files = recorder.memoFiles
        XCTAssertEqual(files.count, started, "one file per started memo, no strays: \(files)")
        for name in files {
            let url = fixture.session.memoDirectory.appendingPathComponent(name)
            XCTAssertNoThrow(try SoundFileReader(path: url.path), "\(name) decodes")
        }
        XCTAssertTrue(daemon.isRunning)
    }

    // 7a. Cancel leaves nothing on disk.
    func testCancelLeavesNothingOnDisk() throws {
        _ = try recorder.recordWithOptions(["format": .string("flac")])
        XCTAssertEqual(recorder.memoFiles.count, 1)
        try recorder.waitUntilRecorded(0.5)
        try recorder.call(RecorderMember.cancel)
        XCTAssertEqual(recorder.memoFiles, [])
        XCTAssertEqual(try recorder.state, "idle")
    }

    // 7b. Settings written with set-property survive a daemon restart.
    func testSettingsSurviveARestart() throws {
        let settings: [(BusPropertyDeclaration, BusValue)] = [
            (RecorderMember.format, .string("vorbis")), (RecorderMember.sampleRate, .uint32(16000)),
            (RecorderMember.channels, .uint32(2)), (RecorderMember.quality, .string("high")),
            (RecorderMember.source, .string(AudioDevices.microphone)), (RecorderMember.meteringEnabled, .boolean(true)),
        ]
        for (property, value) in settings { try recorder.setProperty(property, value) }
        try recorder.waitForSignal("PropertiesChanged") {
            $0.arguments[1].stringDictionary?[RecorderMember.meteringEnabled.name] != nil
        }

        XCTAssertEqual(daemon.stop(), .exited(0), "SIGTERM exits cleanly")
        let restarted = try fixture.launchDaemon()
        defer { restarted.stop() }
        let fresh = try VoiceMemoProxy(session: fixture.session)
        for (property, value) in settings { XCTAssertEqual(try fresh.property(property), value, property.name) }

        // And the next plain Record uses them.
        let memo = try XCTUnwrap(fresh.call(RecorderMember.record).first?.objectPath)
        XCTAssertEqual(try fresh.property(RecorderMember.activeSource).string, AudioDevices.microphone)
        try fresh.waitUntilRecorded(0.5)
        try fresh.call(RecorderMember.stop)
        let file = try SoundFileReader(path: fresh.file(of: memo).path)
        XCTAssertEqual(file.format, .vorbis)
        XCTAssertEqual(file.sampleRate, 16000)
        XCTAssertEqual(file.channelCount, 2)
    }
}
