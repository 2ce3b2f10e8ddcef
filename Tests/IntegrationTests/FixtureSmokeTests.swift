import Foundation
import IntegrationSupport
import XCTest

/// Proves the integration fixture sound without voicememod: the private
/// microphone delivers the stimulus bit-exactly, start and stop are prompt,
/// a restarted audio server serves again, and teardown leaves no process behind.
final class FixtureSmokeTests: IntegrationTestCase {
    override class var launchesDaemon: Bool { false }

    /// The default source delivers the stimulus at its level and pitch, bit-exact for at least 1 s.
    func testMicrophoneDeliversTheStimulusBitExactly() throws {
        let stimulus = fixture.stimulus
        let recorded = try SourceRecording.record(2 * Stimulus.sampleRate, in: fixture.session)
        let signal = AudioAnalysis.normalized(recorded)

        let level = AudioAnalysis.rmsDBFS(signal)
        let frequency = AudioAnalysis.dominantFrequency(signal, sampleRate: Stimulus.sampleRate)
        let exactRun = AudioAnalysis.alignedExactRun(recorded: recorded, period: stimulus.samples)
        print(
            "fixture start-up \(fixture.startupDuration); recorded \(level) dBFS (stimulus \(stimulus.rmsDBFS)),",
            "\(frequency) Hz, exact run \(exactRun) of \(recorded.count) samples")

        XCTAssertEqual(level, stimulus.rmsDBFS, accuracy: 0.5)
        XCTAssertEqual(frequency, stimulus.frequency, accuracy: stimulus.frequency * 0.01)
        XCTAssertGreaterThanOrEqual(exactRun, Stimulus.sampleRate)
    }

    /// pactl talks to the private server of the selected kind, whose defaults are the fixture's devices.
    func testDefaultDevicesAreTheFixtures() throws {
        let server = fixture.audioServer
        XCTAssertEqual(try server.pactl(["get-default-source"]), AudioDevices.microphone)
        XCTAssertEqual(try server.pactl(["get-default-sink"]), AudioDevices.speaker)
        let info = try server.pactl(["info"])
        XCTAssertTrue(info.contains("Server String: \(fixture.session.runtimeDirectory.path)"), info)
        let serverNameLine: String
        switch try AudioServerKind.fromEnvironment() {
        case .pulseaudio: serverNameLine = "Server Name: pulseaudio"
        case .pipewire: serverNameLine = "Server Name: PulseAudio (on PipeWire "
        }
        XCTAssertTrue(info.contains(serverNameLine), info)
    }

    /// The microphone is digital silence while the stimulus is stopped; the tone returns promptly.
    func testStoppedStimulusIsSilentAndStartsPromptly() throws {
        let stimulus = fixture.stimulus
        stimulus.stop()
        let recording = try SourceRecording(in: fixture.session)
        defer { recording.stop() }
        let silence = try recording.waitForSamples(Stimulus.sampleRate / 4)
        XCTAssertTrue(silence.allSatisfy { $0 == 0 }, "the microphone is not silent while the stimulus is stopped")

        let clock = ContinuousClock()
        let started = clock.now
        try stimulus.start()
        let streamUp = clock.now - started
        try waitUntil("the tone reaches the microphone", timeout: .seconds(2)) {
            recording.samples.dropFirst(silence.count).contains { $0 != 0 }
        }
        print("stimulus: stream up after \(streamUp), tone captured after \(clock.now - started)")
    }

    /// After a crash and `restart()`, the server, its defaults and the stimulus work again.
    func testRestartedAudioServerServesTheStimulusAgain() throws {
        let server = fixture.audioServer
        server.kill()
        XCTAssertFalse(server.isRunning)
        let clock = ContinuousClock()
        let started = clock.now
        try server.restart()
        print("\(server.serverName) restarted in \(clock.now - started)")
        XCTAssertTrue(server.isRunning)
        XCTAssertEqual(try server.pactl(["get-default-source"]), AudioDevices.microphone)
        XCTAssertEqual(try server.pactl(["get-default-sink"]), AudioDevices.speaker)
        try fixture.stimulus.start()

        let recorded = try SourceRecording.record(Stimulus.sampleRate, in: fixture.session)
        let exactRun = AudioAnalysis.alignedExactRun(recorded: recorded, period: fixture.stimulus.samples)
        XCTAssertGreaterThanOrEqual(exactRun, Stimulus.sampleRate / 2)
    }

    /// `close()` reaps every process the fixture started and removes its directory.
    func testClosedFixtureLeavesNoProcessBehind() throws {
        let before = childProcessIDs()
        let local = try IntegrationFixture()
        let running = local.session.processes.running
        XCTAssertEqual(running.map(\.name), ["dbus-daemon"] + local.audioServer.programs + ["pacat"])
        let started = running.map(\.pid)
        _ = try SourceRecording.record(Stimulus.sampleRate / 10, in: local.session)
        let root = local.session.root
        local.close()

        XCTAssertEqual(childProcessIDs(), before)
        for pid in started {
            XCTAssertEqual(kill(pid, 0), -1, "process \(pid) survived close()")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.path))
    }

    /// `VOICEMEMO_TEST_SERVER` selects PulseAudio by default and rejects what it does not know.
    func testAudioServerKindComesFromTheEnvironment() {
        XCTAssertThrowsError(try AudioServerKind.fromEnvironment(["VOICEMEMO_TEST_SERVER": "jack"]))
        XCTAssertEqual(try AudioServerKind.fromEnvironment([:]), .pulseaudio)
        XCTAssertEqual(try AudioServerKind.fromEnvironment(["VOICEMEMO_TEST_SERVER": "pulseaudio"]), .pulseaudio)
        XCTAssertEqual(try AudioServerKind.fromEnvironment(["VOICEMEMO_TEST_SERVER": "PipeWire"]), .pipewire)
    }

    /// A missing program fails with its name and, for known programs, the package to install.
    func testMissingExecutableNamesTheDebianPackage() throws {
        XCTAssertThrowsError(try Executable.find("voicememo-no-such-program")) { error in
            XCTAssertTrue("\(error)".contains("'voicememo-no-such-program' was not found"), "\(error)")
        }
        let programs =
            ["dbus-daemon", "pulseaudio", "pactl", "pacat", "parecord", "busctl"]
            + ["pipewire", "wireplumber", "pipewire-pulse", "pw-cli"]
        for program in programs {
            let package = try XCTUnwrap(Executable.debianPackages[program], program)
            let message = "\(FixtureError.missingExecutable(program, debianPackage: package))"
            XCTAssertTrue(message.contains("apt-get install \(package)"), message)
        }
    }

    /// The pids of this process's children, read from /proc so that looking does
    /// not start a child.
    private func childProcessIDs() -> Set<pid_t> {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return Set(
            entries.compactMap { entry -> pid_t? in
                guard let pid = pid_t(entry),
                    let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let end = stat.lastIndex(of: ")")
                else { return nil }
                let fields = stat[stat.index(after: end)...].split(separator: " ")
                return fields.count > 1 && pid_t(fields[1]) == me ? pid : nil
            })
    }
}

/// Checks `AudioAnalysis` on synthetic signals whose answers are known.
final class AudioAnalysisTests: XCTestCase {
    private func sine(frequency: Double, amplitude: Double, sampleRate: Int, count: Int) -> [Float] {
        (0..<count).map { Float(sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate)) * amplitude) }
    }

    /// A half-scale sine measures 20·log10(0.5/√2) ≈ −9.03 dBFS; full scale 0 dBFS.
    func testRMSOfAHalfScaleSine() {
        let tone = sine(frequency: 440, amplitude: 0.5, sampleRate: 48_000, count: 48_000)
        XCTAssertEqual(AudioAnalysis.rmsDBFS(tone), 20 * log10(0.5 / 2.0.squareRoot()), accuracy: 0.01)
        XCTAssertEqual(AudioAnalysis.rmsDBFS([Float](repeating: 1, count: 10)), 0, accuracy: 1e-9)
        XCTAssertEqual(AudioAnalysis.rmsDBFS([Float](repeating: 0, count: 10)), -.infinity)
    }

    /// Pure tones are found within 0.1 % at sample rates from 8 to 192 kHz.
    func testDominantFrequencyAcrossSampleRates() {
        for rate in [8_000, 16_000, 44_100, 48_000, 96_000, 192_000] {
            for frequency in [440.0, 1_000.0, 3_001.5] {
                let tone = sine(frequency: frequency, amplitude: 0.5, sampleRate: rate, count: rate)
                let measured = AudioAnalysis.dominantFrequency(tone, sampleRate: rate)
                XCTAssertEqual(measured, frequency, accuracy: frequency * 0.001, "at \(rate) Hz")
            }
        }
    }

    /// A shifted copy after silence is found whole; one altered sample splits the run.
    func testAlignedExactRunFindsAShiftedCopy() {
        let period = Stimulus.period
        let silence = [Int16](repeating: 0, count: 1_234)
        let shifted = (0..<70_000).map { period[(12_345 + $0) % period.count] }
        let recorded = silence + shifted
        XCTAssertEqual(AudioAnalysis.alignedExactRun(recorded: recorded, period: period), shifted.count)

        var damaged = recorded
        damaged[silence.count + 30_000] &+= 1
        XCTAssertEqual(AudioAnalysis.alignedExactRun(recorded: damaged, period: period), 40_000 - 1)
        XCTAssertEqual(AudioAnalysis.alignedExactRun(recorded: silence, period: period), 0)
    }

    /// Exact stretches join across digital silence (the source's own dropout, after which
    /// the tone resumes at a new phase) but not across a jump or an altered sample.
    func testExactSamplesJoinAcrossSourceDropoutsOnly() {
        let period = Stimulus.period
        let before = (0..<50_000).map { period[$0 % period.count] }
        let dropout = [Int16](repeating: 0, count: 1_024)
        let after = (0..<40_000).map { period[(20_017 + $0) % period.count] }  // resumes off the 440 Hz cycle
        let joined = AudioAnalysis.exactSamplesAcrossSourceDropouts(recorded: before + dropout + after, period: period)
        XCTAssertEqual(joined, 90_000)
        let jumped = AudioAnalysis.exactSamplesAcrossSourceDropouts(recorded: before + after, period: period)
        XCTAssertEqual(jumped, 50_000, "without the silence the jump is lost audio")

        var damaged = before + dropout + after
        damaged[10_000] &+= 1
        XCTAssertEqual(
            AudioAnalysis.exactSamplesAcrossSourceDropouts(recorded: damaged, period: period), 39_999 + 40_000)
    }
}
