import Testing
import VoiceMemoCore

@Suite("Media transport (MPRIS rules)")
struct MediaTransportTests {
    let ids = ["20261129T140307", "20261128T090000", "20261127T120000"]

    @Test func playWithNothingSelectedStartsTheNewest() {
        #expect(MediaTransport.defaultTrack(newestFirst: ids) == "20261129T140307")
        #expect(MediaTransport.defaultTrack(newestFirst: []) == nil)
    }

    @Test(
        arguments: [
            ("20261129T140307", "20261128T090000"),
            ("20261128T090000", "20261127T120000"),
            ("20261127T120000", nil),
            ("gone", nil),
        ] as [(String, String?)])
    func nextGoesToTheOlderMemo(current: String, expected: String?) {
        #expect(MediaTransport.next(after: current, newestFirst: ids) == expected)
    }

    @Test(
        arguments: [
            ("20261129T140307", nil),
            ("20261128T090000", "20261129T140307"),
            ("20261127T120000", "20261128T090000"),
            ("gone", nil),
        ] as [(String, String?)])
    func previousGoesToTheNewerMemo(current: String, expected: String?) {
        #expect(MediaTransport.previous(before: current, newestFirst: ids) == expected)
    }

    @Test(arguments: [
        (Int64(1_000_000), Int64(500_000), MediaTransport.SeekOutcome.position(1_500_000)),
        (1_000_000, -5_000_000, .position(0)),
        (1_000_000, 2_000_000, .position(3_000_000)),
        (1_000_000, 2_000_001, .next),
        (0, .max, .next),
        (1, .min, .position(0)),
    ])
    func seekClampsAtTheStartAndGoesNextPastTheEnd(position: Int64, offset: Int64, expected: MediaTransport.SeekOutcome)
    {
        #expect(MediaTransport.seek(from: position, by: offset, length: 3_000_000) == expected)
    }

    @Test func setPositionIgnoresStaleIdsAndPositionsOutOfRange() {
        let set = { (position: Int64, id: String) in
            MediaTransport.setPosition(position, trackID: id, currentTrackID: "/a", length: 2_000_000)
        }
        #expect(set(1_000_000, "/a") == 1_000_000)
        #expect(set(2_000_000, "/a") == 2_000_000)
        #expect(set(1_000_000, "/b") == nil)
        #expect(set(-1, "/a") == nil)
        #expect(set(2_000_001, "/a") == nil)
        #expect(MediaTransport.setPosition(0, trackID: "/a", currentTrackID: nil, length: 1) == nil)
    }

    @Test func microsecondsRound() {
        #expect(MediaTransport.microseconds(1.5) == 1_500_000)
        #expect(MediaTransport.microseconds(0.0000004) == 0)
        #expect(MediaTransport.microseconds(.nan) == 0)
    }

    @Test func fileURLsArePercentEncoded() {
        #expect(
            MediaTransport.fileURL(path: "/home/a/voicememo/2026-11-29 14.03.07 Ünïcode #1.opus")
                == "file:///home/a/voicememo/2026-11-29%2014.03.07%20%C3%9Cn%C3%AFcode%20%231.opus")
    }
}
