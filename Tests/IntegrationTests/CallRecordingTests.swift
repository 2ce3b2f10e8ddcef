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
            try recorder.property(RecorderMember.activeOutput).string == output
        }
        try recorder.waitUntilRecorded(seconds, timeout: .seconds(seconds + 15))
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo, line: line)
        XCTAssertEqual(
            try recorder.property(RecorderMember.activeOutput).string, "", "no memo open, no output", line: line)
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

        /// Two whole seconds of `channel` after the first two (the system side is placed on the
        /// timeline in its first tenth of a second and may move a few frames as its timing
        /// settles, up to a second and a half later, which would break a tone's phase): each
        /// tone is a whole number of cycles in it, so one tone's measure holds nothing of the
        /// other's.
        func twoSeconds(of channel: Int) throws -> [Float] {
            let first = 2 * sampleRate
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
        let memo = try recordCall(["format": .string("wav"), "channel-layout": .string("split")], seconds: 4.3)
        XCTAssertEqual(memo.channels.count, 2, "split records two channels whatever 'channels' says")
        let left = try memo.twoSeconds(of: 0)
        let right = try memo.twoSeconds(of: 1)
        XCTAssertEqual(memo.level(left, Stimulus.frequency), -12, accuracy: 0.3, "the microphone, left")
        XCTAssertLessThan(memo.level(left, Self.systemFrequency), -60, "no system audio on the left")
        XCTAssertEqual(memo.level(right, Self.systemFrequency), -12, accuracy: 0.3, "the system audio, right")
        XCTAssertLessThan(memo.level(right, Stimulus.frequency), -60, "no microphone on the right")
    }

    /// Noise suppression cleans the microphone alone: its steady tone is learned as noise and
    /// taken out within about a second, while the far side's tone is kept as it was played.
    func testNoiseSuppressionCleansOnlyTheMicrophone() throws {
        try playBothSides()
        let memo = try recordCall(
            ["format": .string("wav"), "channel-layout": .string("split"), "noise-suppression": .boolean(true)],
            seconds: 4.3)
        let left = try memo.twoSeconds(of: 0)
        let right = try memo.twoSeconds(of: 1)
        XCTAssertLessThan(memo.level(left, Stimulus.frequency), -30, "the microphone's steady tone, taken for noise")
        XCTAssertEqual(memo.level(right, Self.systemFrequency), -12, accuracy: 0.3, "the system audio, untouched")
    }

    func testMixHalvesEachInput() throws {
        try playBothSides()
        let memo = try recordCall(["format": .string("wav"), "channels": .uint32(1)], seconds: 4.3)
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
            ["format": .string("wav"), "quality": .string("max"), "channels": .uint32(2)], seconds: 4.3)
        for (channel, samples) in memo.channels.enumerated() {
            let peak = samples.map(abs).max() ?? 0
            XCTAssertLessThanOrEqual(peak, 1, "channel \(channel): no sample past full scale")
            let steady = try memo.twoSeconds(of: channel)
            XCTAssertEqual(memo.level(steady, Stimulus.frequency), -6.02, accuracy: 0.3, "channel \(channel)")
            XCTAssertEqual(memo.level(steady, Self.systemFrequency), -6.02, accuracy: 0.3, "channel \(channel)")
        }
    }

    /// A panel with a bar per input: `GetInputLevels` and `InputLevels` give the microphone's
    /// level, then the system audio's, each its own input's (not the mix's −6 dB); a single
    /// input has one, and no open memo none.
    func testEachInputsLevelIsReadApart() throws {
        fixture.stimulus.stop()
        let session = fixture.session
        microphoneTone = Stimulus(session: session, server: fixture.audioServer, amplitude: Self.amplitude)
        systemTone = Stimulus(
            session: session, server: fixture.audioServer, sink: AudioDevices.speaker,
            frequency: Self.systemFrequency, amplitude: Self.amplitude / 4)
        try microphoneTone?.start()
        try systemTone?.start()
        let idle = try recorder.call(RecorderMember.getInputLevels)
        XCTAssertEqual(idle.map { $0.array?.count }, [0, 0], "no memo open, no inputs")

        try recorder.call(RecorderMember.watchLevels)
        let memo = try recorder.recordWithOptions(["system-audio": .boolean(true), "channels": .uint32(1)])
        try recorder.waitUntilRecorded(0.5)
        let signal = try recorder.waitForSignal(RecorderMember.inputLevels, timeout: .seconds(2)) { signal in
            (signal.arguments[1].array?.last?.double ?? -160) > -160
        }
        let systemPeak = -12 - 20 * log10(4.0)
        for (label, peaks) in [
            (RecorderMember.inputLevels.name.rawValue, signal.arguments[1].array?.compactMap(\.double) ?? []),
            (
                RecorderMember.getInputLevels.name.rawValue,
                try recorder.call(RecorderMember.getInputLevels)[1].array?.compactMap(\.double) ?? []
            ),
        ] {
            XCTAssertEqual(peaks.count, 2, "\(label): the microphone, then the system audio")
            XCTAssertEqual(peaks.first ?? 0, -12, accuracy: 0.5, "\(label): the microphone's own peak")
            XCTAssertEqual(peaks.last ?? 0, systemPeak, accuracy: 0.5, "\(label): the system audio's own peak")
        }
        let mix = try recorder.call(RecorderMember.getLevels)[1].array?.compactMap(\.double).first ?? 0
        XCTAssertLessThan(mix, -12 - 3, "the memo's meter shows the mix, each input halved")
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)

        let single = try recorder.call(RecorderMember.record).first?.objectPath
        try recorder.waitUntilRecorded(0.3)
        XCTAssertEqual(try recorder.call(RecorderMember.getInputLevels)[1].array?.count, 1, "a single input")
        let mark = try recorder.markSignals()
        try recorder.waitForSignal(RecorderMember.levels, timeout: .seconds(2), after: mark)
        try recorder.waitForSignal(RecorderMember.levels, timeout: .seconds(2), after: try recorder.markSignals())
        XCTAssertFalse(
            recorder.received[mark.index...].contains { $0.member == RecorderMember.inputLevels.name },
            "a single input's level is Levels")
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, single)
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
        let route = try recorder.waitForSignal(RecorderMember.routeChanged, timeout: .seconds(3), after: mark) {
            $0.arguments.last?.string == headphones
        }
        XCTAssertLessThan(ContinuousClock.now - changed, .seconds(1), "the system side follows within a second")
        XCTAssertEqual(route.arguments.map(\.string), ["default-changed", AudioDevices.speaker, headphones])
        XCTAssertEqual(try recorder.property(RecorderMember.activeOutput).string, headphones)
        try recorder.waitUntilRecorded(further: 3)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)

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
        let lost = try recorder.waitForSignal(RecorderMember.routeChanged, timeout: .seconds(3), after: mark) {
            $0.arguments.dropFirst().first?.string == AudioDevices.speaker
        }
        // PipeWire's session manager may put a stand-in output (auto_null) in the speaker's
        // place: the call follows it, a route change and no loss.
        let isLost = lost.arguments.first?.string == "old-device-unavailable"
        if isLost {
            let interrupted = try recorder.waitForSignal(RecorderMember.interruption, timeout: .seconds(1), after: mark)
            XCTAssertEqual(interrupted.arguments.first?.string, "began")
            XCTAssertEqual(interrupted.arguments.dropFirst().first?.string, "output-lost")
            XCTAssertEqual(interrupted.arguments.last?.boolean, true)
        } else {
            XCTAssertEqual(lost.arguments.first?.string, "default-changed", "\(lost.arguments)")
        }
        XCTAssertEqual(try recorder.state, "recording", "the microphone goes on")
        try recorder.waitUntilRecorded(further: 2)

        mark = try recorder.markSignals()
        let back = try recorder.recordedSeconds()
        speakerModule = try server.pactl(AudioDevices.loadCommands[2]).trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try server.pactl(["set-default-sink", AudioDevices.speaker])
        try tone.start()
        _ = try recorder.waitForSignal(RecorderMember.routeChanged, timeout: .seconds(3), after: mark) {
            $0.arguments.last?.string == AudioDevices.speaker
        }
        if isLost {
            let ended = try recorder.waitForSignal(RecorderMember.interruption, timeout: .seconds(1), after: mark)
            XCTAssertEqual(ended.arguments.first?.string, "ended")
            XCTAssertEqual(ended.arguments.dropFirst().first?.string, "output-lost")
        }
        XCTAssertEqual(try recorder.property(RecorderMember.activeOutput).string, AudioDevices.speaker)
        try recorder.waitUntilRecorded(further: 3)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)

        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        let samples = file.readInt16()
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        // The reference began first; its next burst after the memo's end shows it heard it all.
        let delivered = try reference.waitForSamples(left.count + 1)
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
        try recorder.call(RecorderMember.pause)
        XCTAssertEqual(try recorder.state, "paused")
        let whilePaused = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(whilePaused.channelCount, 2)
        XCTAssertEqual(whilePaused.duration, 1.0, accuracy: 0.15, "the file is valid on disk while paused")
        try recorder.call(RecorderMember.resume)
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(8)) {
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

    /// A click played once a second into one sink that is both the microphone (its monitor,
    /// as the `source`) and the default output, so one capture of that monitor is the
    /// reference of both feeds: the click lands at the same sample in both. In a minute of
    /// `split`, it lands in both channels within 5 ms of each other from 1 s to 59 s, but for
    /// the seconds after the default output went elsewhere and came back (the system side
    /// opened afresh and settled).
    func testAClickOnBothInputsLandsAlignedForAMinute() throws {
        fixture.stimulus.stop()
        let server = fixture.audioServer
        let clicks = Stimulus(
            session: fixture.session, server: server, sink: AudioDevices.stimulusSink, period: Stimulus.click(),
            frequency: 1)
        systemTone = clicks
        try clicks.start()
        try setDefaultOutput(AudioDevices.stimulusSink)
        defer { try? setDefaultOutput(AudioDevices.speaker) }

        let memo = try recorder.recordWithOptions([
            "format": .string("wav"), "system-audio": .boolean(true), "channel-layout": .string("split"),
            "source": .string("\(AudioDevices.stimulusSink).monitor"),
        ])
        try recorder.waitUntilRecorded(20, timeout: .seconds(40))
        for output in [AudioDevices.speaker, AudioDevices.stimulusSink] {
            let mark = try recorder.markSignals()
            _ = try server.pactl(["set-default-sink", output])
            _ = try recorder.waitForSignal(RecorderMember.routeChanged, timeout: .seconds(3), after: mark) {
                $0.arguments.last?.string == output
            }
            try recorder.waitUntilRecorded(further: 3)
        }
        let back = try recorder.recordedSeconds()
        try recorder.waitUntilRecorded(60, timeout: .seconds(60))
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)

        let recorded = Memo(try SoundFileReader(path: recorder.file(of: memo).path))
        let rate = Double(recorded.sampleRate)
        let left = Self.onsets(in: recorded.channels[0])
        let right = Self.onsets(in: recorded.channels[1])
        let offsets = left.compactMap { onset -> (second: Double, frames: Int)? in
            guard let nearest = right.min(by: { abs($0 - onset) < abs($1 - onset) }) else { return nil }
            return (Double(onset) / rate, nearest - onset)
        }
        let report = offsets.map { "\(String(format: "%.1f", $0.second)): \($0.frames)" }.joined(separator: ", ")
        // Every click while both sides record the one sink: from the first second until the
        // output changed, and from once it was back (the system side settled) to the end.
        let checked = offsets.filter { (0.5..<20).contains($0.second) || $0.second >= back }
        print("click offsets (right − left, frames) at each second: \(report)")
        let tolerance = Int(0.005 * rate)
        XCTAssertTrue(checked.contains { abs($0.second - 1) < 0.5 }, "a click at 1 s: \(report)")
        XCTAssertTrue(checked.contains { abs($0.second - 59) < 0.5 }, "a click at 59 s: \(report)")
        XCTAssertGreaterThanOrEqual(checked.count, 19 + Int(59 - back), "a click every second: \(report)")
        for offset in checked {
            XCTAssertLessThanOrEqual(
                abs(offset.frames), tolerance, "at \(offset.second) s; offsets in frames: \(report)")
        }
    }

    /// Makes `sink` the default output and returns once the server reports it.
    private func setDefaultOutput(_ sink: String) throws {
        let server = fixture.audioServer
        _ = try server.pactl(["set-default-sink", sink])
        try waitUntil("\(sink) is the default output", timeout: .seconds(5)) {
            try server.pactl(["get-default-sink"]).trimmingCharacters(in: .whitespacesAndNewlines) == sink
        }
    }

    /// Where each click begins in `samples`: the first sample of each run past a quarter of
    /// full scale.
    private static func onsets(in samples: [Float]) -> [Int] {
        samples.indices.filter { index in
            abs(samples[index]) > 0.25 && (index == 0 || abs(samples[index - 1]) <= 0.25)
        }
    }

    /// Silence ends a call only when both sides are silent: the far side talking to a silent
    /// microphone is not silence.
    func testSilenceEndsACallOnlyWhenBothSidesAreSilent() throws {
        fixture.stimulus.stop()
        let tone = Stimulus(
            session: fixture.session, server: fixture.audioServer, sink: AudioDevices.speaker,
            frequency: Self.systemFrequency, amplitude: Self.amplitude)
        systemTone = tone
        try tone.start()
        let memo = try recorder.recordWithOptions([
            "system-audio": .boolean(true), "stop-after-silence": .double(1), "format": .string("wav"),
        ])
        try recorder.waitUntilRecorded(2.5)
        XCTAssertEqual(try recorder.state, "recording", "the far side talks: no silence")
        let mark = try recorder.markSignals()
        let quiet = try recorder.recordedSeconds()
        tone.stop()
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5), after: mark) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true, "silence ends a memo successfully")
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, quiet + 1, accuracy: 0.5, "it ended a second into the silence")
    }

    /// Waiting for sound, a call starts on either side: here the far side, into a silent
    /// microphone.
    func testACallWaitingForSoundStartsOnTheFarSide() throws {
        fixture.stimulus.stop()
        let memo = try recorder.recordWithOptions([
            "system-audio": .boolean(true), "channel-layout": .string("split"), "start-on-sound": .boolean(true),
            "format": .string("wav"),
        ])
        XCTAssertEqual(try recorder.state, "scheduled")
        try recorder.drainSignals(timeout: .milliseconds(500))
        XCTAssertEqual(try recorder.state, "scheduled", "both sides silent: still waiting")
        XCTAssertTrue(recorder.memoFiles.isEmpty, "no file while waiting")
        let tone = Stimulus(
            session: fixture.session, server: fixture.audioServer, sink: AudioDevices.speaker,
            frequency: Self.systemFrequency, amplitude: Self.amplitude)
        systemTone = tone
        try tone.start()
        try waitUntil("the far side starts the memo", timeout: .seconds(3)) { try recorder.state == "recording" }
        try recorder.waitUntilRecorded(4.3)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
        let recorded = Memo(try SoundFileReader(path: recorder.file(of: memo).path))
        let right = try recorded.twoSeconds(of: 1)
        XCTAssertEqual(recorded.level(right, Self.systemFrequency), -12, accuracy: 0.3, "the far side, right")
        XCTAssertLessThan(recorded.level(try recorded.twoSeconds(of: 0), Self.systemFrequency), -60, "not left")
    }

    /// SIGTERM finalizes a call like any memo: a whole file of both sides.
    func testSIGTERMFinalizesACall() throws {
        try playBothSides()
        let memo = try recorder.recordWithOptions([
            "format": .string("flac"), "system-audio": .boolean(true), "channel-layout": .string("split"),
        ])
        try recorder.waitUntilRecorded(4.3)
        let recorded = try recorder.recordedSeconds()
        XCTAssertEqual(daemon.stop(), .exited(0), "SIGTERM exits cleanly")
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, recorded, accuracy: 0.3, "all that was recorded is in the file")
        let finished = Memo(file)
        XCTAssertEqual(finished.level(try finished.twoSeconds(of: 0), Stimulus.frequency), -12, accuracy: 0.3)
        XCTAssertEqual(finished.level(try finished.twoSeconds(of: 1), Self.systemFrequency), -12, accuracy: 0.3)
    }

    /// Every format records a call: two channels of it, as long as it was recorded.
    func testEveryFormatRecordsACall() throws {
        try playBothSides()
        for format in ["opus", "flac", "wav", "vorbis", "mp3"] {
            let memo = try recorder.recordWithOptions([
                "format": .string(format), "system-audio": .boolean(true), "channel-layout": .string("split"),
            ])
            try recorder.waitUntilRecorded(1)
            XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo, format)
            let file = try SoundFileReader(path: recorder.file(of: memo).path)
            XCTAssertEqual(file.channelCount, 2, format)
            XCTAssertEqual(file.duration, 1, accuracy: 0.2, format)
        }
    }

    /// A panel's line (`voicememo watch --json`, waybar's and polybar's) shows a call like
    /// any recording, and its tooltip names both inputs.
    func testAPanelLineNamesBothInputsOfACall() throws {
        try playBothSides()
        let watch = try fixture.session.launch(BuildProducts.voicememo().path, ["watch", "--json"], logName: "watch")
        defer { _ = watch.terminate() }
        let log = fixture.session.logFile("watch")
        func recordingLine() -> [String: Any]? {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.last { $0["class"] as? String == "recording" }
        }
        let memo = try recorder.recordWithOptions(["system-audio": .boolean(true)])
        try waitUntil("watch prints the call", timeout: .seconds(5)) {
            (recordingLine()?["tooltip"] as? String)?.contains("Output: \(AudioDevices.speaker) (system audio)") == true
        }
        let tooltip = recordingLine()?["tooltip"] as? String ?? ""
        XCTAssertTrue(tooltip.contains("Input: \(AudioDevices.microphone)"), tooltip)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
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
            let error = try XCTUnwrap(
                recorder.callFailing(RecorderMember.recordWithOptions, [.stringDictionary(options)]))
            XCTAssertEqual(error.name.rawValue, invalid, "\(options)")
            for word in mentions { XCTAssertTrue(error.message.contains(word), "'\(error.message)' names \(word)") }
        }
        XCTAssertEqual(try recorder.state, "idle")
        XCTAssertTrue(recorder.memoFiles.isEmpty, "refused requests leave no files")
        let memo = try XCTUnwrap(recorder.call(RecorderMember.record).first?.objectPath)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo, "the daemon keeps serving")
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
            XCTAssertEqual(
                try recorder.call(RecorderMember.stop).first?.objectPath, memo, "a call of the stand-in: \(sinks)")
            return
        }
        let reply = recorder.callFailing(
            RecorderMember.recordWithOptions, [.stringDictionary(["system-audio": .boolean(true)])])
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
        try recorder.waitUntilRecorded(4.5)
        XCTAssertEqual(daemon.kill(), .signalled(SIGKILL))
        let restarted = try fixture.launchDaemon()
        defer { _ = restarted.stop() }
        let report = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(report.arguments.last?.boolean, false, "a crashed memo is reported as not successful")
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.channelCount, 2)
        XCTAssertGreaterThanOrEqual(file.duration, 4.2, "at most the last fraction of a second is lost")
        let repaired = Memo(file)
        let right = try repaired.twoSeconds(of: 1)
        XCTAssertEqual(repaired.level(right, Self.systemFrequency), -12, accuracy: 0.3, "the system side survived")
    }
}
