import Testing
import VoiceMemoCore

/// A processor that keeps what it was given and hands back each sample plus its channel's
/// number times 1000, so a test sees which channel went where.
private final class Marker: VoiceChannelProcessor {
    let mark: Int16
    var seen: [[Int16]] = []

    init(mark: Int16) { self.mark = mark }

    func process(_ samples: UnsafeMutableBufferPointer<Int16>) {
        seen.append(Array(samples))
        for index in samples.indices { samples[index] &+= mark }
    }
}

@Suite("Voice cleaning of the microphone's fragments")
struct VoiceCleanerTests {
    private func cleaner(channels: Int, type: SampleType, frames: Int) throws -> (VoiceCleaner, [Marker]) {
        var markers: [Marker] = []
        let cleaner = try VoiceCleaner(channels: channels, sampleType: type, framesPerRead: frames) {
            let marker = Marker(mark: Int16(1000 * (markers.count + 1)))
            markers.append(marker)
            return marker
        }
        return (cleaner, markers)
    }

    @Test func eachChannelOfAnInterleavedFragmentGoesToItsOwnProcessor() throws {
        let (cleaner, markers) = try cleaner(channels: 2, type: .int16, frames: 3)
        var fragment: [Int16] = [1, -1, 2, -2, 3, -3]
        fragment.withUnsafeMutableBytes { cleaner.process($0) }
        #expect(markers.map(\.seen) == [[[1, 2, 3]], [[-1, -2, -3]]])
        #expect(fragment == [1001, 1999, 1002, 1998, 1003, 1997])
    }

    @Test func aMonoFragmentIsCleanedWhereItLies() throws {
        let (cleaner, markers) = try cleaner(channels: 1, type: .int16, frames: 4)
        var fragment: [Int16] = [5, 6, 7, 8]
        fragment.withUnsafeMutableBytes { cleaner.process($0) }
        #expect(markers[0].seen == [[5, 6, 7, 8]])
        #expect(fragment == [1005, 1006, 1007, 1008])
    }

    @Test func twentyFourBitSamplesPassThroughTheirTopSixteenBits() throws {
        let (cleaner, markers) = try cleaner(channels: 1, type: .int32, frames: 2)
        var fragment: [Int32] = [0x1234_5600, -0x0001_0000]
        fragment.withUnsafeMutableBytes { cleaner.process($0) }
        #expect(markers[0].seen == [[0x1234, -1]])
        #expect(fragment == [Int32(0x1234 + 1000) << 16, Int32(999) << 16])
    }

    @Test func floatSamplesAreScaledToSixteenBitsAndBackClamped() throws {
        let (cleaner, markers) = try cleaner(channels: 1, type: .float32, frames: 3)
        var fragment: [Float] = [0.5, -2, 1]
        fragment.withUnsafeMutableBytes { cleaner.process($0) }
        #expect(markers[0].seen == [[16384, -32768, 32767]])
        #expect(fragment == [Float(17384) / 32768, Float(-31768) / 32768, Float(-31769) / 32768])
    }

    @Test func aProcessorThatCannotBeMadeFailsTheCleaner() {
        #expect(throws: RecorderError.self) {
            _ = try VoiceCleaner(channels: 1, sampleType: .int16, framesPerRead: 960) { () throws(RecorderError) in
                throw .unsupported("no speexdsp")
            }
        }
    }
}
