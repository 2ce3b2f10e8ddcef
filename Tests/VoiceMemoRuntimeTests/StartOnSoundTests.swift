import Foundation
import IntegrationSupport
import Synchronization
import Testing
import VoiceMemoCore
import VoiceMemoRuntime

@Suite("Start on sound")
struct StartOnSoundTests {
    /// 8 kHz mono WAV: 160-frame reads, 16-bit samples the fakes can check one by one.
    static let options: [String: OptionValue] = [
        "start-on-sound": .boolean(true), "sample-rate": .uint32(8000), "format": .string("wav"),
    ]

    @Test func optionsHaveTheirDefaults() throws {
        let request = try RecordingRequest(
            defaults: RecorderDefaults(), options: ["start-on-sound": .boolean(true)], now: 0)
        #expect(request.startsOnSound)
        #expect(request.soundThreshold == -40)
        #expect(request.preRoll == 0.5)
        let plain = try RecordingRequest(defaults: RecorderDefaults(), options: [:], now: 0)
        #expect(!plain.startsOnSound)
    }

    @Test(arguments: [
        ("pre-roll", OptionValue.double(5.5), "'pre-roll' must be a number of seconds from 0 to 5; got 5.5"),
        ("pre-roll", .double(-0.1), "'pre-roll' must be a number of seconds from 0 to 5; got -0.1"),
        ("pre-roll", .double(.nan), "'pre-roll' must be a number of seconds from 0 to 5"),
        ("sound-threshold", .double(3), "'sound-threshold' must be a level in dBFS between -160 and 0; got 3.0"),
    ])
    func badValuesAreRefusedNamingTheKey(key: String, value: OptionValue, message: String) {
        #expect {
            try RecordingRequest(defaults: RecorderDefaults(), options: [key: value], now: 0)
        } throws: { error in
            guard case .invalidArgument(let text) = error as? RecorderError else { return false }
            return text.hasPrefix(message)
        }
    }

    @Test func startOnSoundTakesOnlyAFlag() {
        #expect(throws: RecorderError.wrongOptionType(key: "start-on-sound", expected: .flag, got: .string("yes"))) {
            try RecordingRequest(defaults: RecorderDefaults(), options: ["start-on-sound": .string("yes")], now: 0)
        }
    }

    @Test func preRollIsWholeFragments() throws {
        var request = try RecordingRequest(defaults: RecorderDefaults(), options: Self.options, now: 0)
        #expect(SoundTrigger(request: request, framesPerRead: 160).preRollFragments == 25)
        request.preRoll = 0.51
        #expect(SoundTrigger(request: request, framesPerRead: 160).preRollFragments == 26)
        request.preRoll = 0
        #expect(SoundTrigger(request: request, framesPerRead: 160).preRollFragments == 0)
    }

    @Test func aFragmentIsSoundWhenAnyChannelReachesTheThreshold() {
        #expect(SoundTrigger.isSound(Levels(average: [-60, -39], peak: [-50, -30]), threshold: -40))
        #expect(SoundTrigger.isSound(Levels(average: [-40], peak: [-40]), threshold: -40))
        // A click: loud peak, quiet RMS.
        #expect(!SoundTrigger.isSound(Levels(average: [-45], peak: [-6]), threshold: -40))
    }

    @Test func theTriggerHearsTheFirstLoudFragment() throws {
        let request = try RecordingRequest(defaults: RecorderDefaults(), options: Self.options, now: 0)
        let trigger = SoundTrigger(request: request, framesPerRead: 160)
        var silence = [Int16](repeating: 0, count: 160)
        var tone = (0..<160).map { Int16(3000 * sin(Double($0) * 0.3)) }  // about -21 dBFS RMS
        #expect(!silence.withUnsafeMutableBytes { trigger.hearsSound(in: UnsafeRawBufferPointer($0), frameCount: 160) })
        #expect(tone.withUnsafeMutableBytes { trigger.hearsSound(in: UnsafeRawBufferPointer($0), frameCount: 160) })
    }

    @Test func theMemoBeginsWithThePreRollAndEverySampleOfTheSound() async throws {
        // The room turns loud only once the test has seen the recorder wait: a fixed read
        // (the 100th) raced a loaded machine, whose capture got there before the first check.
        let loudFrom = Mutex(Int.max)
        // At a device's pace (see the burst test below).
        let harness = RecorderHarness(
            backend: FakeBackend(readSeconds: 0.02, loudness: { read in loudFrom.withLock { read >= $0 } }))
        let memo = try await harness.record(Self.options).get()
        #expect(try harness.sync { $0.state } == .scheduled)
        #expect(harness.memoFiles.isEmpty, "no file while waiting")
        // Far enough ahead that the pre-roll's 25 fragments are all silence.
        let firstLoudRead = loudFrom.withLock { first in
            first = harness.backend.framesRead.withLock { $0 } / 160 + 30
            return first
        }
        try waitUntil(timeout: .seconds(5)) { (try? harness.sync { $0.state }) == .recording }
        try waitUntil(timeout: .seconds(5)) { (harness.backend.sink(for: memo)?.frames ?? 0) >= 4000 + 1600 }
        _ = try await harness.stop().get()
        #expect(harness.observer.states == [.scheduled, .recording, .idle])
        #expect(harness.observer.finished.map(\.1) == [true])
        let samples = try #require(harness.backend.sink(for: memo)?.samples)
        // 25 fragments of silence (0.5 s), then the ramp from the first loud read on, with
        // no sample missing or repeated at the join.
        #expect(samples.prefix(4000).allSatisfy { $0 == 0 })
        let sound = samples.dropFirst(4000)
        let firstSound = try #require(sound.first)
        // The fake's ramp counts every sample, silent or not, in 16 bits.
        #expect(firstSound == Int16(truncatingIfNeeded: firstLoudRead * 160), "the first sample of the first loud read")
        #expect(zip(sound, sound.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }

    @Test func stopWhileWaitingLeavesNoMemo() async throws {
        let harness = RecorderHarness(backend: FakeBackend(loudness: { _ in false }))
        let memo = try await harness.record(Self.options).get()
        try waitUntil { harness.backend.framesRead.withLock { $0 } >= 160 * 50 }
        let stopped = try await harness.stop().get()
        #expect(stopped == memo)
        #expect(harness.memoFiles.isEmpty)
        #expect(harness.observer.finished.isEmpty, "nothing was recorded, so nothing is announced")
        #expect(harness.observer.states == [.scheduled, .idle])
        await #expect(throws: RecorderError.self) { try await harness.call { $0.pause(completion: $1) }.get() }
    }

    @Test func withStopAfterSilenceEachBurstIsAMemoAndTheRecorderWaitsAgain() async throws {
        // At a device's pace (160 frames at 8 kHz: 20 ms a read): each burst's memo gets its
        // file within the second of audio the recorder keeps meanwhile, not a tenth of it.
        let harness = RecorderHarness(
            backend: FakeBackend(
                readSeconds: 0.02, loudness: { (30..<40).contains($0) || (150..<160).contains($0) }))
        var options = Self.options
        options["stop-after-silence"] = .double(0.3)
        let first = try await harness.record(options).get()
        try waitUntil(timeout: .seconds(10)) { harness.observer.finished.count == 2 }
        try waitUntil(timeout: .seconds(5)) { (try? harness.sync { $0.state }) == .scheduled }
        let second = try #require(harness.observer.finished.last?.0)
        #expect(second != first)
        #expect(harness.observer.finished.map(\.1) == [true, true])
        for memo in [first, second] {
            let samples = try #require(harness.backend.sink(for: memo)?.samples)
            let sound = samples.filter { $0 != 0 }
            #expect(sound.count == 1600, "the whole burst, 10 reads of 160 frames")
            #expect(zip(sound, sound.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
            // The pre-roll (longer than the silence limit) did not end the memo early, and it
            // ended after 0.3 s of silence (to the 800-frame window).
            #expect(samples.count >= 4000 + 1600 + 2400 && samples.count <= 4000 + 1600 + 2400 + 800)
        }
        _ = try await harness.stop().get()
        #expect(harness.memoFiles.count == 2)
        #expect(harness.observer.states == [.scheduled, .recording, .scheduled, .recording, .scheduled, .idle])
    }
}
