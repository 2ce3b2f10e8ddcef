import Testing
import VoiceMemoCore

@Suite("Trimming a memo")
struct MemoTrimTests {
    @Test func secondsBecomeFramesRoundedToTheNearest() throws {
        #expect(try MemoTrim.frames(start: 2.5, end: 7.5, sampleRate: 48000, frameCount: 480_000) == 120_000..<360_000)
        // 1/3 s at 44.1 kHz is 14,700 frames exactly; 0.00001 s is half a frame, rounded up.
        #expect(try MemoTrim.frames(start: 1.0 / 3, end: 1, sampleRate: 44100, frameCount: 44100) == 14_700..<44_100)
        #expect(try MemoTrim.frames(start: 0.000_011_4, end: 1, sampleRate: 44100, frameCount: 44100).lowerBound == 1)
    }

    @Test func theEndMayBeTheMemosLength() throws {
        #expect(try MemoTrim.frames(start: 0, end: 10, sampleRate: 48000, frameCount: 480_000) == 0..<480_000)
    }

    @Test(arguments: [
        (2.0, 2.0), (5.0, 3.0), (-1.0, 3.0), (0.0, 10.1), (0.0, .infinity), (.nan, 1.0), (0.0, 1e300), (11.0, 12.0),
    ])
    func valuesOutsideTheMemoAreRefused(start: Double, end: Double) {
        #expect(throws: RecorderError.self) {
            try MemoTrim.frames(start: start, end: end, sampleRate: 48000, frameCount: 480_000)
        }
    }

    @Test func aRefusalSaysWhatTheMemoHolds() {
        do {
            _ = try MemoTrim.frames(start: 0, end: 12, sampleRate: 48000, frameCount: 480_000)
            Issue.record("a trim past the end was accepted")
        } catch {
            #expect(error.message.contains("past the memo's end (10.0 s, 0:10)"))
        }
    }

    /// Peaks of 10 ms blocks at 48 kHz: `loud` blocks at -20 dBFS, the rest at -60.
    private func peaks(count: Int, loud: Range<Int>) -> [Float] {
        (0..<count).map { loud.contains($0) ? 0.1 : 0.001 }
    }

    @Test func silenceKeepsAFifthOfASecondNextToTheSound() {
        // 10 s; sound from 3.00 s to 6.50 s.
        let kept = MemoTrim.framesWithoutSilence(
            peaks: peaks(count: 1000, loud: 300..<650), framesPerPeak: 480, frameCount: 480_000, sampleRate: 48000)
        #expect(kept == 134_400..<321_600)
    }

    @Test func soundAtTheEdgesKeepsThem() {
        let kept = MemoTrim.framesWithoutSilence(
            peaks: peaks(count: 1000, loud: 5..<999), framesPerPeak: 480, frameCount: 479_900, sampleRate: 48000)
        #expect(kept == 0..<479_900)
    }

    @Test func aPeakAtTheThresholdCountsAsSound() {
        let threshold = Float(Levels.amplitude(decibels: MemoTrim.silenceThreshold))
        var blocks = peaks(count: 100, loud: 0..<0)
        blocks[50] = threshold
        #expect(
            MemoTrim.framesWithoutSilence(peaks: blocks, framesPerPeak: 480, frameCount: 48000, sampleRate: 48000)
                == 14_400..<34_080)
        blocks[50] = threshold.nextDown
        #expect(
            MemoTrim.framesWithoutSilence(peaks: blocks, framesPerPeak: 480, frameCount: 48000, sampleRate: 48000)
                == nil)
    }

    @Test(arguments: [
        ("90", 90.0), ("2.5", 2.5), ("1:30", 90.0), ("0:07.25", 7.25), ("1:02:03", 3723.0), ("75:00", 4500.0),
    ])
    func timesAreSecondsOrAClock(text: String, seconds: Double) {
        #expect(ClockText.seconds(from: text) == seconds)
    }

    @Test(arguments: ["", "-1", "1:60", "1:-5", "a", "1::2", ":30", "1:2:3:4", "inf", "nan", "1e3", "0x10", " 5"])
    func otherTimesAreRefused(text: String) {
        #expect(ClockText.seconds(from: text) == nil)
    }

    @Test func opusIsEncodedAgainAtTheBitrateItHad() throws {
        for quality in Quality.allCases {
            let bitrate = (7.4 + 251.6 * (1 - quality.compressionLevel)) * 1000
            let level = try #require(
                ReencodingLevel.compressionLevel(format: .opus, bitsPerSecond: bitrate, channels: 1))
            #expect(abs(level - quality.compressionLevel) < 1e-9)
        }
        #expect(ReencodingLevel.compressionLevel(format: .opus, bitsPerSecond: 1e9, channels: 2) == 0)
    }

    @Test func vorbisAndMP3TakeTheNearestQuality() {
        #expect(
            ReencodingLevel.compressionLevel(format: .vorbis, bitsPerSecond: 80_000, channels: 1)
                == Quality.medium.compressionLevel)
        #expect(
            ReencodingLevel.compressionLevel(format: .mp3, bitsPerSecond: 2 * 70_000, channels: 2)
                == Quality.max.compressionLevel)
        #expect(
            ReencodingLevel.compressionLevel(format: .mp3, bitsPerSecond: 0, channels: 1)
                == Quality.medium.compressionLevel)
        #expect(ReencodingLevel.compressionLevel(format: .wav, bitsPerSecond: 768_000, channels: 1) == nil)
    }

    /// LAME answers an error for libsndfile's level 1 (its VBR quality 10), so an MP3 memo
    /// whose bitrate is nearest the `min` quality's is encoded again just below it.
    @Test func anMP3AtTheLowestQualityGetsALevelLAMETakes() throws {
        let level = try #require(ReencodingLevel.compressionLevel(format: .mp3, bitsPerSecond: 30_000, channels: 1))
        #expect(level < 1 && level >= 0.999)
        #expect(AudioFormat.mp3.compressionLevel(at: .min) * 10 <= 9.999)
        #expect(AudioFormat.opus.compressionLevel(at: .min) == 1)
    }
}
