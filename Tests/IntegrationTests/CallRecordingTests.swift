import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// Recording a call: the microphone and what the computer plays (the default output's
/// monitor) in one memo, side by side (`split`) or mixed, checked by what each channel holds.
final class CallRecordingTests: RecorderTestCase {
    /// The peak of both sides' tones: −12 dBFS.
    private static let amplitude = 0.2512
    /// The far side's tone, played to the default output.
    private static let systemFrequency = 1000.0

    private var microphoneTone: Stimulus?
    private var systemTone: Stimulus?

    override func tearDownWithError() throws {
        microphoneTone?.stop()
        systemTone?.stop()
        try super.tearDownWithError()
    }

    /// Plays 440 Hz into the microphone and 1 kHz to the default output, both at `amplitude`.
    private func playBothSides(amplitude: Double = amplitude) throws {
        fixture.stimulus.stop()
        let session = fixture.session
        let server = fixture.audioServer
        microphoneTone = Stimulus(session: session, server: server, amplitude: amplitude)
        systemTone = Stimulus(
            session: session, server: server, sink: AudioDevices.speaker, frequency: Self.systemFrequency,
            amplitude: amplitude)
        try microphoneTone?.start()
        try systemTone?.start()
    }

    /// Records a call with `options` for about `seconds` and returns its file.
    /// `ActiveOutput` names the output the call records while it records, and nothing after.
    private func recordCall(
        _ options: [String: BusValue], seconds: Double, output: String = AudioDevices.speaker,
        line: UInt = #line
    ) throws -> Memo {
        var all = options
        all["system-audio"] = .boolean(true)
        let memo = try recorder.recordWithOptions(all)
        try waitUntil("ActiveOutput names \(output)", timeout: .seconds(2)) {
            try recorder.property("ActiveOutput").string == output
        }
        try recorder.waitUntilRecorded(seconds, timeout: .seconds(seconds + 15))
        XCTAssertEqual(try recorder.call("Stop").first?.objectPath, memo, line: line)
        XCTAssertEqual(try recorder.property("ActiveOutput").string, "", "no memo open, no output", line: line)
        return Memo(try SoundFileReader(path: recorder.file(of: memo).path))
    }

    /// What a call's memo holds: each channel's samples as floats.
    private struct Memo {
        let channels: [[Float]]
        let sampleRate: Int

        init(_ file: SoundFileReader) {
            let samples = file.readFloats()
            let count = file.channelCount
            channels = (0..<count).map { channel in
                stride(from: channel, to: samples.count, by: count).map { samples[$0] }
            }
            sampleRate = file.sampleRate
        }

        /// Two whole seconds of `channel` after the first half second (the system side is placed
        /// on the timeline in its first fifth of a second): each tone is a whole number of
        /// cycles in it, so one tone's measure holds nothing of the other's.
        func twoSeconds(of channel: Int) throws -> [Float] {
            let first = sampleRate / 2
            guard channels[channel].count >= first + 2 * sampleRate else {
                throw FixtureError.unexpectedReply(
                    "the memo holds \(channels[channel].count) frames: too few to measure")
            }
            return Array(channels[channel][first..<(first + 2 * sampleRate)])
        }

        /// The level in dBFS (peak) of the sine at `frequency` in `samples`.
        func level(_ samples: [Float], _ frequency: Double) -> Double {
            let amplitude = AudioAnalysis.sineAmplitude(samples[...], frequency: frequency, sampleRate: sampleRate)
            return 20 * log10(max(amplitude, 1e-9))
        }
    }

    func testSplitPutsTheMicrophoneLeftAndTheSystemAudioRight() throws {
        try playBothSides()
        let memo = try recordCall(["format": .string("wav"), "channel-layout": .string("split")], seconds: 2.8)
        XCTAssertEqual(memo.channels.count, 2, "split records two channels whatever 'channels' says")
        let left = try memo.twoSeconds(of: 0)
        let right = try memo.twoSeconds(of: 1)
        XCTAssertEqual(memo.level(left, Stimulus.frequency), -12, accuracy: 0.3, "the microphone, left")
        XCTAssertLessThan(memo.level(left, Self.systemFrequency), -60, "no system audio on the left")
        XCTAssertEqual(memo.level(right, Self.systemFrequency), -12, accuracy: 0.3, "the system audio, right")
        XCTAssertLessThan(memo.level(right, Stimulus.frequency), -60, "no microphone on the right")
    }

    func testMixHalvesEachInput() throws {
        try playBothSides()
        let memo = try recordCall(["format": .string("wav"), "channels": .uint32(1)], seconds: 2.8)
        XCTAssertEqual(memo.channels.count, 1)
        let mono = try memo.twoSeconds(of: 0)
        XCTAssertEqual(memo.level(mono, Stimulus.frequency), -12 - 6.02, accuracy: 0.3, "the microphone, −6.02 dB")
        XCTAssertEqual(memo.level(mono, Self.systemFrequency), -12 - 6.02, accuracy: 0.3, "the system, −6.02 dB")
    }

    /// Both inputs at full scale: the mix, in float samples that could go past full scale,
    /// never does.
    func testMixOfFullScaleInputsNeverClips() throws {
        try playBothSides(amplitude: 1)
        let memo = try recordCall(
            ["format": .string("wav"), "quality": .string("max"), "channels": .uint32(2)], seconds: 2.8)
        for (channel, samples) in memo.channels.enumerated() {
            let peak = samples.map(abs).max() ?? 0
            XCTAssertLessThanOrEqual(peak, 1, "channel \(channel): no sample past full scale")
            let steady = try memo.twoSeconds(of: channel)
            XCTAssertEqual(memo.level(steady, Stimulus.frequency), -6.02, accuracy: 0.3, "channel \(channel)")
            XCTAssertEqual(memo.level(steady, Self.systemFrequency), -6.02, accuracy: 0.3, "channel \(channel)")
        }
    }

    /// Headphones plugged in mid-call: the system side follows the new default output within
    /// a second, `RouteChanged` names both, and the microphone side has no gap.
    func testTheSystemSideFollowsANewDefaultOutput() throws {
        try playBothSides()
        let server = fixture.audioServer
        let headphones = "voicememo_headphones"
        let module = try server.pactl(
            AudioDevices.loadCommands[2].map {
                $0 == "sink_name=\(AudioDevices.speaker)" ? "sink_name=\(headphones)" : $0
            }
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? server.pactl(["unload-module", module]) }
        let headphonesFrequency = 1500.0
        let headphonesTone = Stimulus(
            session: fixture.session, server: server, sink: headphones, frequency: headphonesFrequency,
            amplitude: Self.amplitude)
        try headphonesTone.start()
        defer { headphonesTone.stop() }

        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "system-audio": .boolean(true), "channel-layout": .string("split"),
        ])
        try recorder.waitUntilRecorded(2)
        let mark = try recorder.markSignals()
        let changed = ContinuousClock.now
        _ = try server.pactl(["set-default-sink", headphones])
        defer { _ = try? server.pactl(["set-default-sink", AudioDevices.speaker]) }
        let route = try recorder.waitForSignal("RouteChanged", timeout: .seconds(3), after: mark) {
            $0.arguments.last?.string == headphones
        }
        XCTAssertLessThan(ContinuousClock.now - changed, .seconds(1), "the system side follows within a second")
        XCTAssertEqual(route.arguments.map(\.string), ["default-changed", AudioDevices.speaker, headphones])
        XCTAssertEqual(try recorder.property("ActiveOutput").string, headphones)
        try recorder.waitUntilRecorded(further: 2)
        XCTAssertEqual(try recorder.call("Stop").first?.objectPath, memo)

        let recorded = Memo(try SoundFileReader(path: recorder.file(of: memo).path))
        let window = recorded.sampleRate / 100
        let microphone = AudioAnalysis.tones(
            in: Array(recorded.channels[0].dropFirst(recorded.sampleRate / 5)), frequencies: [Stimulus.frequency],
            sampleRate: recorded.sampleRate, window: window)
        XCTAssertFalse(microphone.isEmpty)
        XCTAssertEqual(
            microphone.firstIndex(of: nil).map { Double($0 * window) / Double(recorded.sampleRate) + 0.2 }, nil,
            "the microphone side has no gap (seconds into the memo)")
        let lastSecond = Array(recorded.channels[1].suffix(recorded.sampleRate))
        XCTAssertEqual(recorded.level(lastSecond, headphonesFrequency), -12, accuracy: 0.5, "the headphones' audio")
    }

    /// The output goes away mid-call: the microphone side goes on without a gap, the system
    /// side is silence, and it records again when an output comes back. The microphone is a
    /// pipe source carrying a ramp, so every lost or repeated frame shows, and a reference
    /// capture of it says what it delivered (PipeWire's pipe source once put a quantum of
    /// silence into every consumer as its graph lost the unloaded sink); the only output is
    /// the speaker (PipeWire's session manager may put a silent stand-in in its place).
    func testAnOutputThatGoesAwayLeavesSilenceUntilOneReturns() throws {
        try fixture.removeDevices()
        defer { try? fixture.restoreDevices() }
        let server = fixture.audioServer
        let microphone = try BurstInput(session: fixture.session, server: server, burst: 0.1)
        defer { microphone.remove() }
        _ = try server.pactl(["set-default-source", BurstInput.source])
        var speakerModule = try server.pactl(AudioDevices.loadCommands[2]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        defer { _ = try? server.pactl(["unload-module", speakerModule]) }
        _ = try server.pactl(["set-default-sink", AudioDevices.speaker])
        try waitUntil("the speaker is the default output", timeout: .seconds(5)) {
            try server.pactl(["get-default-sink"]).trimmingCharacters(in: .whitespacesAndNewlines)
                == AudioDevices.speaker
        }
        let tone = Stimulus(
            session: fixture.session, server: server, sink: AudioDevices.speaker, frequency: Self.systemFrequency,
            amplitude: Self.amplitude)
        systemTone = tone
        try tone.start()

        let reference = try SourceRecording(from: BurstInput.source, in: fixture.session)
        defer { reference.stop() }
        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "system-audio": .boolean(true), "channel-layout": .string("split"),
        ])
        microphone.start()
        try recorder.waitUntilRecorded(1.5)
        tone.stop()
        var mark = try recorder.markSignals()
        _ = try server.pactl(["unload-module", speakerModule])
        let gone = try recorder.recordedSeconds()
        _ = try recorder.waitForSignal("RouteChanged", timeout: .seconds(3), after: mark) {
            $0.arguments.dropFirst().first?.string == AudioDevices.speaker
        }
        try recorder.waitUntilRecorded(further: 2)

        mark = try recorder.markSignals()
        let back = try recorder.recordedSeconds()
        speakerModule = try server.pactl(AudioDevices.loadCommands[2]).trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try server.pactl(["set-default-sink", AudioDevices.speaker])
        try tone.start()
        _ = try recorder.waitForSignal("RouteChanged", timeout: .seconds(3), after: mark) {
            $0.arguments.last?.string == AudioDevices.speaker
        }
        XCTAssertEqual(try recorder.property("ActiveOutput").string, AudioDevices.speaker)
        try recorder.waitUntilRecorded(further: 1.5)
        XCTAssertEqual(try recorder.call("Stop").first?.objectPath, memo)

        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        let samples = file.readInt16()
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let delivered = reference.samples
        reference.stop()
        XCTAssertGreaterThan(delivered.count, left.count, "the reference heard all the memo did")
        XCTAssertLessThanOrEqual(
            BurstInput.breaks(in: left), BurstInput.breaks(in: delivered),
            "the microphone side has no gap and no repeat but what the microphone itself delivered")
        let right = stride(from: 1, to: samples.count, by: 2).map { Float(samples[$0]) / 32768 }
        let rate = file.sampleRate
        let silent = right[(Int((gone + 0.3) * Double(rate)))..<Int((back - 0.1) * Double(rate))]
        XCTAssertEqual(silent.map(abs).max() ?? 1, 0, "the system side is silence while there is no output")
        let lastSecond = Array(right.suffix(rate))
        let level =
            20 * log10(AudioAnalysis.sineAmplitude(lastSecond[...], frequency: Self.systemFrequency, sampleRate: rate))
        XCTAssertEqual(level, -12, accuracy: 0.5, "the system side records the output that came back")
    }

    /// What works for one input works for two: a call paused and resumed is one memo, and a
    /// duration ends it at exactly its length, both sides whole after the pause.
    func testACallPausesResumesAndEndsAtItsDuration() throws {
        try playBothSides()
        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "system-audio": .boolean(true), "channel-layout": .string("split"),
            "duration": .double(3),
        ])
        try recorder.waitUntilRecorded(1)
        try recorder.call("Pause")
        XCTAssertEqual(try recorder.state, "paused")
        let whilePaused = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(whilePaused.channelCount, 2)
        XCTAssertEqual(whilePaused.duration, 1.0, accuracy: 0.15, "the file is valid on disk while paused")
        try recorder.call("Resume")
        let finished = try recorder.waitForSignal("RecordingFinished", timeout: .seconds(8)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        let recorded = Memo(try SoundFileReader(path: recorder.file(of: memo).path))
        XCTAssertEqual(Double(recorded.channels[0].count) / Double(recorded.sampleRate), 3.0, accuracy: 0.05)
        // The last second, well after the resume (a whole number of cycles of both tones).
        let left = Array(recorded.channels[0].suffix(recorded.sampleRate))
        let right = Array(recorded.channels[1].suffix(recorded.sampleRate))
        XCTAssertEqual(recorded.level(left, Stimulus.frequency), -12, accuracy: 0.3, "the microphone after the resume")
        XCTAssertEqual(recorded.level(right, Self.systemFrequency), -12, accuracy: 0.3, "the system after the resume")
    }

    func testBadCallOptionsAreRefusedAndRecordNothing() throws {
        let invalid = ContractError.invalidArgument.name.rawValue
        let cases: [(options: [String: BusValue], mentions: [String])] = [
            (["system-audio": .string("yes")], ["system-audio"]),
            (["channel-layout": .uint32(2)], ["channel-layout"]),
            (["system-audio": .boolean(true), "channel-layout": .string("diagonal")], ["channel-layout", "diagonal"]),
            (["system-audio": .boolean(true), "channel-layout": .string("mix\u{1}\u{7F}")], ["channel-layout"]),
            (["channel-layout": .string("split")], ["system-audio"]),
            (
                ["system-audio": .boolean(true), "channel-layout": .string("split"), "channels": .uint32(1)],
                ["channels"]
            ),
        ]
        for (options, mentions) in cases {
            let error = try XCTUnwrap(recorder.callFailing("RecordWithOptions", [.stringDictionary(options)]))
            XCTAssertEqual(error.name.rawValue, invalid, "\(options)")
            for word in mentions { XCTAssertTrue(error.message.contains(word), "'\(error.message)' names \(word)") }
        }
        XCTAssertEqual(try recorder.state, "idle")
        XCTAssertTrue(recorder.memoFiles.isEmpty, "refused requests leave no files")
        let memo = try XCTUnwrap(recorder.call("Record").first?.objectPath)
        XCTAssertEqual(try recorder.call("Stop").first?.objectPath, memo, "the daemon keeps serving")
    }

    /// With no output to monitor, a call is refused by the audio server's error, naming the
    /// output, and leaves no file. The microphone is a pipe source: the fixture's own is a
    /// sink's monitor, which would leave a sink behind.
    func testACallWithoutAnOutputIsRefused() throws {
        try fixture.removeDevices()
        defer { try? fixture.restoreDevices() }
        let microphone = try BurstInput(session: fixture.session, server: fixture.audioServer, burst: 0.1)
        defer { microphone.remove() }
        _ = try fixture.audioServer.pactl(["set-default-source", BurstInput.source])
        microphone.start()
        let sinks = try fixture.audioServer.pactl(["list", "short", "sinks"])
        guard sinks.isEmpty else {
            // PipeWire's session manager puts a stand-in output (auto_null) in place of the
            // last one: that is an output, and a call records what it is played.
            let memo = try recorder.recordWithOptions(["system-audio": .boolean(true)])
            XCTAssertEqual(try recorder.call("Stop").first?.objectPath, memo, "a call of the stand-in: \(sinks)")
            return
        }
        let reply = recorder.callFailing("RecordWithOptions", [.stringDictionary(["system-audio": .boolean(true)])])
        let error = try XCTUnwrap(reply, "no output, so no call")
        XCTAssertEqual(error.name.rawValue, ContractError.audioServer.name.rawValue, error.message)
        XCTAssertTrue(error.message.contains("output"), error.message)
        XCTAssertEqual(try recorder.state, "idle")
        XCTAssertTrue(recorder.memoFiles.isEmpty, "a refused call leaves no file")
    }

    func testACallKilledWithSIGKILLIsRepairedAtTheNextStart() throws {
        try playBothSides()
        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "system-audio": .boolean(true), "channel-layout": .string("split"),
        ])
        try recorder.waitUntilRecorded(3)
        XCTAssertEqual(daemon.kill(), .signalled(SIGKILL))
        let restarted = try fixture.launchDaemon()
        defer { _ = restarted.stop() }
        let report = try recorder.waitForSignal("RecordingFinished", timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(report.arguments.last?.boolean, false, "a crashed memo is reported as not successful")
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.channelCount, 2)
        XCTAssertGreaterThanOrEqual(file.duration, 2.7, "at most the last fraction of a second is lost")
        let repaired = Memo(file)
        let right = try repaired.twoSeconds(of: 1)
        XCTAssertEqual(repaired.level(right, Self.systemFrequency), -12, accuracy: 0.3, "the system side survived")
    }
}
