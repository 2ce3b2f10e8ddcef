import Bus
import Foundation
import IntegrationSupport
import SoundFile
import TestSupport
import VoiceMemoContract
import XCTest

/// `noise-suppression` and `auto-gain` against the real daemon: a voice-like input played
/// into the microphone, recorded with and without them, and measured between and during the
/// bursts.
final class CleanerVoiceAcceptanceTests: RecorderTestCase {
    private static let sampleRate = 48_000

    /// One second that repeats: a 0.4 s burst of a voice-like tone (200 Hz and four harmonics,
    /// a 5 Hz vibrato, 20 ms fades) at `burst` dBFS RMS, then 0.6 s without it, all over
    /// white noise at `noise` dBFS RMS (nil: none).
    private static func voice(burst: Double, noise: Double?) -> [Int16] {
        let burstFrames = 19_200
        var phase = 0.0
        var tone = (0..<burstFrames).map { index -> Double in
            let time = Double(index) / Double(sampleRate)
            phase += 2 * Double.pi * 200 * (1 + 0.03 * sin(2 * Double.pi * 5 * time)) / Double(sampleRate)
            let fade = min(1, Double(min(index, burstFrames - index)) / 960)
            return fade * (1...5).reduce(0.0) { $0 + sin(Double($1) * phase) / Double($1) }
        }
        let toneRMS = (tone.reduce(0) { $0 + $1 * $1 } / Double(burstFrames)).squareRoot()
        tone = tone.map { $0 / toneRMS * pow(10, burst / 20) }
        var generator = SeededGenerator(seed: 27)
        // Uniform noise of RMS 1 spans ±√3.
        let noiseScale = noise.map { pow(10, $0 / 20) * 3.0.squareRoot() } ?? 0
        return (0..<sampleRate).map { index in
            let noiseSample = noiseScale * Double.random(in: -1...1, using: &generator)
            let value = (index < burstFrames ? tone[index] : 0) + noiseSample
            return Int16((value * 32767).rounded())
        }
    }

    /// The quietest peak the meter showed (`Levels`, 100 ms windows) during the last recording.
    private var quietestMeteredPeak = 0.0

    /// Plays `period` into the microphone and records `seconds` of WAV with `options`.
    private func record(_ period: [Int16], seconds: Double, options: [String: BusValue] = [:]) throws -> [Float] {
        fixture.stimulus.stop()
        let input = Stimulus(
            session: fixture.session, server: fixture.audioServer, sink: AudioDevices.stimulusSink, period: period,
            frequency: 200)
        try input.start()
        defer { input.stop() }
        let mark = try recorder.markSignals()
        let memo = try recorder.recordWithOptions(
            options.merging(["format": .string("wav"), "duration": .double(seconds)]) { $1 })
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(seconds + 10)) {
            $0.arguments.first?.objectPath == memo
        }
        quietestMeteredPeak =
            recorder.received[mark.index...].filter { $0.member == RecorderMember.levels.name }
            .compactMap { $0.arguments[1].array?.first?.double }.dropFirst(10).min() ?? 0
        return AudioAnalysis.normalized(try SoundFileReader(path: try recorder.file(of: memo).path).readInt16())
    }

    /// The recording's RMS level in the middle of its bursts and in the middle of its pauses,
    /// from `skipping` seconds on. A 10 ms block belongs to a burst when it is louder than
    /// `threshold`; a middle is 50 ms (bursts) or 100 ms (pauses) from the other kind.
    private func levels(_ samples: [Float], threshold: Double, skipping: Double) -> (burst: Double, pause: Double) {
        let block = Self.sampleRate / 100
        let blocks = stride(from: 0, to: samples.count - block + 1, by: block).map {
            AudioAnalysis.rmsDBFS(Array(samples[$0..<($0 + block)]))
        }
        let isBurst = blocks.map { $0 > threshold }
        var burst: [Float] = []
        var pause: [Float] = []
        for index in Int(skipping * 100)..<blocks.count {
            let near = { (distance: Int) in max(0, index - distance)...min(blocks.count - 1, index + distance) }
            let samplesOfBlock = samples[(index * block)..<((index + 1) * block)]
            if near(5).allSatisfy({ isBurst[$0] }) { burst += samplesOfBlock }
            if near(10).allSatisfy({ !isBurst[$0] }) { pause += samplesOfBlock }
        }
        XCTAssertGreaterThan(burst.count, Self.sampleRate / 2, "half a second of bursts to measure")
        XCTAssertGreaterThan(pause.count, Self.sampleRate / 2, "half a second of pauses to measure")
        return (AudioAnalysis.rmsDBFS(burst), AudioAnalysis.rmsDBFS(pause))
    }

    func testNoiseSuppressionQuietsThePausesAndKeepsTheVoice() throws {
        let input = Self.voice(burst: -20, noise: -45)
        try recorder.setProperty(RecorderMember.meteringEnabled, .boolean(true))
        let plain = levels(try record(input, seconds: 8), threshold: -32, skipping: 1)
        let plainMeter = quietestMeteredPeak
        XCTAssertEqual(plain.burst, -20, accuracy: 0.5, "the input as the microphone hears it")
        XCTAssertEqual(plain.pause, -45, accuracy: 1)

        // The persisted property, as a panel's switch sets it, stands for the option.
        try recorder.setProperty(RecorderMember.noiseSuppression, .boolean(true))
        let cleaned = levels(try record(input, seconds: 8), threshold: -32, skipping: 1)
        print(
            "noise suppression: pauses \(plain.pause) → \(cleaned.pause) dBFS, bursts \(plain.burst) → \(cleaned.burst)"
        )
        XCTAssertGreaterThanOrEqual(plain.pause - cleaned.pause, 15, "the pauses at least 15 dB quieter")
        XCTAssertEqual(cleaned.burst, plain.burst, accuracy: 2, "the voice within 2 dB")
        // The meter shows what is kept: the noise it showed in the pauses is gone from it too.
        XCTAssertGreaterThan(plainMeter, -45, "the noise's peaks on the meter (its RMS is -45)")
        XCTAssertLessThan(quietestMeteredPeak, plainMeter - 15, "the cleaned pauses on the meter")
    }

    func testAutoGainLiftsAQuietVoiceWithoutClipping() throws {
        let input = Self.voice(burst: -35, noise: nil)
        let recorded = try record(input, seconds: 8, options: ["auto-gain": .boolean(true)])
        // The gain rises over the first seconds; what it settles at is judged.
        let settled = levels(recorded, threshold: -50, skipping: 3)
        let peak = 20 * log10(Double(recorded.map(abs).max() ?? 0))
        print("auto gain: bursts -35 → \(settled.burst) dBFS, peak \(peak) dBFS")
        XCTAssertGreaterThan(settled.burst, -26, "louder than -26 dBFS")
        XCTAssertLessThanOrEqual(peak, -6, "no peak past -6 dBFS")
        let plain = levels(try record(input, seconds: 4), threshold: -50, skipping: 1)
        XCTAssertEqual(plain.burst, -35, accuracy: 0.5, "without it the voice stays as it was")
    }

    func testBadValuesAreRefusedNamingTheOption() throws {
        for key in ["noise-suppression", "auto-gain"] {
            XCTAssertThrowsError(try recorder.recordWithOptions([key: .string("yes")])) { error in
                XCTAssertEqual((error as? BusError)?.name.rawValue, ContractError.invalidArgument.name.rawValue)
                XCTAssertTrue((error as? BusError)?.message.contains(key) == true, "\(error)")
            }
        }
        XCTAssertEqual(try recorder.state, "idle")
    }
}
