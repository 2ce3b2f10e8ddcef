import Testing
import VoiceMemoCore

@Suite("Formats and qualities")
struct FormatTests {
    @Test(arguments: [(Quality.min, SampleType.int16), (.medium, .int16), (.high, .int32), (.max, .float32)])
    func wavQualityPicksTheSampleFormat(quality: Quality, type: SampleType) {
        #expect(AudioFormat.wav.sampleType(for: quality) == type)
    }

    @Test(arguments: [AudioFormat.flac, .opus, .vorbis, .mp3])
    func compressedFormatsCapture16Bit(format: AudioFormat) {
        #expect(Quality.allCases.allSatisfy { format.sampleType(for: $0) == .int16 })
    }

    @Test func qualityScaleRunsFromZeroToOne() {
        #expect(Quality.allCases.map(\.scale) == [0, 0.25, 0.5, 0.75, 1])
        #expect(Quality.min < Quality.max)
    }

    @Test(arguments: AudioFormat.allCases)
    func extensionsRoundTrip(format: AudioFormat) {
        #expect(AudioFormat(fileExtension: format.fileExtension) == format)
    }
}
