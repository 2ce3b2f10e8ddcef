import Testing
import VoiceMemoCore

@Suite("Skip silence")
struct SilenceSkipperTests {
    /// 1000 Hz, 20-frame blocks (the player's 20 ms): block i covers frames 20i ..< 20i + 20.
    static let rate: UInt32 = 1000

    /// Feeds blocks numbered from 0, silent where `isSilent` says; returns the numbers played.
    static func played(blocks: Int, isSilent: (Int) -> Bool) -> [Int] {
        var skipper = SilenceSkipper<Int>(sampleRate: rate)
        var played: [Int] = []
        for block in 0..<blocks {
            played += skipper.add(block, frames: 20, isSilent: isSilent(block))
        }
        return played + skipper.finish()
    }

    @Test func aLongSilenceKeepsItsEdgesAndTheRestIsSkipped() {
        // 1 s sound, 4 s silence, 1 s sound: 50 + 200 + 50 blocks.
        let played = Self.played(blocks: 300) { (50..<250).contains($0) }
        #expect(played == Array(0..<60) + Array(240..<300), "0.2 s after the first sound, 0.2 s before the second")
        #expect(Double(played.count * 20) / Double(Self.rate) == 2.4)
    }

    @Test(arguments: [1, 10, 24, 25])
    func aSilenceOfAtMostHalfASecondPlaysWhole(blocks silent: Int) {
        let played = Self.played(blocks: 50 + silent + 50) { (50..<(50 + silent)).contains($0) }
        #expect(played == Array(0..<(100 + silent)))
    }

    @Test func justOverHalfASecondIsCutToItsEdges() {
        let played = Self.played(blocks: 26 + 50) { $0 < 26 }
        #expect(played == Array(0..<10) + Array(16..<76))
    }

    @Test func aLongSilenceAtTheEndKeepsOnlyItsFirstEdge() {
        #expect(Self.played(blocks: 150) { $0 >= 50 } == Array(0..<60))
        #expect(Self.played(blocks: 70) { $0 >= 50 } == Array(0..<70), "a short one plays out")
    }

    @Test func releaseHandsBackWhatIsHeldAndStartsAfresh() {
        var skipper = SilenceSkipper<Int>(sampleRate: Self.rate)
        for block in 0..<20 { _ = skipper.add(block, frames: 20, isSilent: true) }
        #expect(skipper.release() == Array(10..<20))
        #expect(skipper.add(20, frames: 20, isSilent: true) == [20], "a new silence begins with its edge")
    }

    @Test func silenceIsAPeakBelowMinus50dBFS() {
        let quiet: [Float] = [0, 0.003, -0.003]  // −50.5 dBFS
        let audible: [Float] = [0, 0.0032, 0]  // −49.9 dBFS
        #expect(quiet.withUnsafeBufferPointer { SilenceSkipper<Int>.isSilent($0) })
        #expect(!audible.withUnsafeBufferPointer { SilenceSkipper<Int>.isSilent($0) })
        #expect([Float]().withUnsafeBufferPointer { SilenceSkipper<Int>.isSilent($0) })
    }
}
