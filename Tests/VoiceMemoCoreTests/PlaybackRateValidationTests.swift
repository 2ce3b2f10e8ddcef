import Testing
import VoiceMemoCore

/// `PlaybackRate`, MPRIS `Rate` and `play --speed` all take what `Validation.playbackRate` takes.
@Suite("Playback rates")
struct PlaybackRateValidationTests {
    @Test(arguments: [0.5, 0.75, 1, 1.25, 1.5, 2])
    func aRateFromHalfToDoubleIsTakenAsItIs(rate: Double) throws {
        #expect(try Validation.playbackRate(rate, key: "rate") == rate)
    }

    @Test(arguments: [0, 0.49, 2.01, 3, -1, .infinity, -.infinity, .nan, .leastNonzeroMagnitude])
    func anyOtherIsRefusedNamingTheKeyAndTheRange(rate: Double) {
        #expect {
            try Validation.playbackRate(rate, key: "rate")
        } throws: { error in
            guard case RecorderError.invalidArgument(let message) = error else { return false }
            return message.hasPrefix("'rate' must be a speed from 0.5") && message.contains("2.0")
        }
    }
}
