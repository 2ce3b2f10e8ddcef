import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// Playback speed against the real daemon: a 4 s memo of the 440 Hz tone played at MPRIS
/// `Rate` 2 and 0.5, heard through the speaker's monitor, takes half or twice the time and
/// keeps its pitch; `Rate` and the recorder's `PlaybackRate` are one saved value.
final class PlaybackRateAcceptanceTests: RecorderTestCase {
    private let rate = Stimulus.sampleRate
    private let mediaPlayerName = BusName("org.mpris.MediaPlayer2.voicememo")
    private let mediaPlayerPath = ObjectPath("/org/mpris/MediaPlayer2")
    private let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// For the MPRIS player's properties, apart from the recorder proxy's connections.
    private var mediaPlayer: BusConnection!

    override func setUpWithError() throws {
        try super.setUpWithError()
        mediaPlayer = try BusConnection.connect(address: fixture.session.busAddress)
    }

    override func tearDownWithError() throws {
        mediaPlayer = nil
        try super.tearDownWithError()
    }

    private func mediaPlayerProperty(_ name: String) throws -> BusValue {
        let reply = try mediaPlayer.call(
            destination: mediaPlayerName, path: mediaPlayerPath, interface: .properties, member: MemberName("Get"),
            arguments: [.string(playerInterface), .string(name)])
        return try XCTUnwrap(reply.first?.variant, "Get \(name): \(reply)")
    }

    private func setMediaPlayerProperty(_ name: String, _ value: BusValue) throws {
        _ = try mediaPlayer.call(
            destination: mediaPlayerName, path: mediaPlayerPath, interface: .properties, member: MemberName("Set"),
            arguments: [.string(playerInterface), .string(name), .variant(value)])
    }

    /// A connection that receives the MPRIS object's PropertiesChanged from now on.
    private func mediaPlayerAnnouncements() throws -> BusConnection {
        let signals = try BusConnection.connect(address: fixture.session.busAddress)
        try signals.addMatch("type='signal',path='\(mediaPlayerPath.rawValue)',member='PropertiesChanged'")
        return signals
    }

    /// Sets MPRIS `Rate` to `speed`, plays a 4 s memo of the tone and returns how long it
    /// sounded at the sink, its frequency there (over the middle second) and the highest
    /// MPRIS `Position` seen while it played, in seconds.
    private func playFourSecondTone(at speed: Double) throws -> (
        seconds: Double, frequency: Double, highestPosition: Double
    ) {
        fixture.stimulus.stop()  // so the speaker carries only the playback
        try setMediaPlayerProperty("Rate", .double(speed))
        XCTAssertEqual(try mediaPlayerProperty("Rate"), .double(speed))
        XCTAssertEqual(try recorder.property(RecorderMember.playbackRate), .double(speed), "the same value")
        let settings = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture.session.settingsFile))
        XCTAssertEqual((settings as? [String: Any])?["playbackRate"] as? Double, speed, "saved: \(settings)")

        let tone = fixture.stimulus.samples  // 1 s, 440 whole cycles: repeated without a seam
        let memo = try addMemo(tone + tone + tone + tone, named: "tone-at-\(speed).wav")
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.duration).double ?? 0, 4, accuracy: 0.01)

        let speaker = try SourceRecording(from: AudioDevices.speaker + ".monitor", in: fixture.session)
        defer { speaker.stop() }
        // The monitor's stream runs before the first block plays: on PipeWire a monitor
        // opened together with the playback can miss the output's first graph cycle.
        _ = try speaker.waitForSamples(rate / 10)
        let playedFrom = speaker.sampleCount
        try recorder.callMemo(memo, MemoMember.play)
        // The position while it plays, read every 10 ms until the player stops.
        var highestPosition = 0.0
        try waitUntil("the player stops", timeout: .seconds(4 / speed + 5), pollingEvery: .milliseconds(10)) {
            if let micros = try mediaPlayerProperty("Position").int64 {
                highestPosition = max(highestPosition, Double(micros) / 1_000_000)
            }
            return try mediaPlayerProperty("PlaybackStatus") == .string("Stopped")
        }
        let finished = try recorder.waitForSignal(RecorderMember.playbackFinished, timeout: .seconds(3)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        try speaker.waitUntilDelivered(4 / speed + 0.5, since: playedFrom)

        let heard = AudioAnalysis.normalized(Array(speaker.samples[playedFrom...]))
        let stretches = AudioAnalysis.soundingStretches(heard, sampleRate: rate)
        XCTAssertEqual(stretches.count, 1, "one tone, without a gap: \(stretches)")
        let longest = try XCTUnwrap(stretches.max { $0.end - $0.start < $1.end - $1.start })
        let middle = Int((longest.start + longest.end) / 2 * Double(rate))
        let second = Array(heard[(middle - rate / 2)..<(middle + rate / 2)])
        return (
            longest.end - longest.start, AudioAnalysis.dominantFrequency(second, sampleRate: rate), highestPosition
        )
    }

    func testAtRateTwoAFourSecondMemoSoundsForTwoSecondsAtItsPitch() throws {
        let played = try playFourSecondTone(at: 2)
        XCTAssertEqual(played.seconds, 2.0, accuracy: 0.1, "at the sink")
        XCTAssertEqual(played.frequency, Stimulus.frequency, accuracy: 3, "the pitch is kept")
        XCTAssertEqual(played.highestPosition, 4.0, accuracy: 0.05, "Position reaches the memo's own length")
        print("rate 2: \(played)")
    }

    func testAtRateOneHalfAFourSecondMemoSoundsForEightSecondsAtItsPitch() throws {
        let played = try playFourSecondTone(at: 0.5)
        XCTAssertEqual(played.seconds, 8.0, accuracy: 0.2, "at the sink")
        XCTAssertEqual(played.frequency, Stimulus.frequency, accuracy: 3, "the pitch is kept")
        XCTAssertEqual(played.highestPosition, 4.0, accuracy: 0.05, "Position reaches the memo's own length")
        print("rate 0.5: \(played)")
    }

    /// Plays `memo` with the speaker's monitor listening, runs `during` while it plays (with
    /// the monitor and its sample count when the playback began) and returns what the sink
    /// sounded from then until `PlaybackFinished`, which must say the memo was heard.
    private func listen(
        to memo: ObjectPath, for seconds: Double, during: (SourceRecording, Int) throws -> Void = { _, _ in }
    ) throws -> [Float] {
        fixture.stimulus.stop()  // so the speaker carries only the playback
        let speaker = try SourceRecording(from: AudioDevices.speaker + ".monitor", in: fixture.session)
        defer { speaker.stop() }
        _ = try speaker.waitForSamples(rate / 10)  // the monitor runs before the first block plays
        let playedFrom = speaker.sampleCount
        try recorder.callMemo(memo, MemoMember.play)
        let mark = try recorder.markSignals()
        try during(speaker, playedFrom)
        let finished = try recorder.waitForSignal(
            RecorderMember.playbackFinished, timeout: .seconds(seconds + 3), after: mark
        ) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        try speaker.waitUntilDelivered(seconds + 0.5, since: playedFrom)
        return AudioAnalysis.normalized(Array(speaker.samples[playedFrom...]))
    }

    /// The MPRIS position, in seconds.
    private func mediaPlayerPosition() throws -> Double {
        Double(try XCTUnwrap(mediaPlayerProperty("Position").int64)) / 1_000_000
    }

    func testSilenceIsSkippedFirstThenTheSpeedChanges() throws {
        try recorder.setProperty(RecorderMember.skipSilence, .boolean(true))
        try setMediaPlayerProperty("Rate", .double(2))
        let tone = fixture.stimulus.samples  // 1 s
        let memo = try addMemo(tone + [Int16](repeating: 0, count: 4 * rate) + tone, named: "tone-gap-tone-fast.wav")
        let stretches = AudioAnalysis.soundingStretches(try listen(to: memo, for: 1.2), sampleRate: rate)
        print("skip silence at rate 2: \(stretches)")
        XCTAssertEqual(stretches.count, 2, "two tones: \(stretches)")
        guard stretches.count == 2 else { return }
        for (index, stretch) in stretches.enumerated() {
            XCTAssertEqual(stretch.end - stretch.start, 0.5, accuracy: 0.05, "tone \(index + 1) at double speed")
        }
        XCTAssertEqual(stretches[1].start - stretches[0].end, 0.2, accuracy: 0.05, "the 0.4 s kept, at double speed")
        XCTAssertEqual(stretches[1].end - stretches[0].start, 1.2, accuracy: 0.1, "at the sink: (1 + 0.4 + 1) / 2 s")
    }

    /// A change takes effect on the playback in progress: from 1 to 2 and back, the tone goes
    /// on without a gap, at its pitch, for as long as the memo time played at each rate says.
    func testAChangeDuringPlaybackTakesEffectWithoutAGap() throws {
        let tone = fixture.stimulus.samples
        let memo = try addMemo(tone + tone + tone + tone + tone + tone, named: "six-seconds.wav")
        var switches: [(position: Double, rate: Double)] = []
        let heard = try listen(to: memo, for: 5) { speaker, playedFrom in
            try speaker.waitUntilDelivered(1, since: playedFrom)
            try setMediaPlayerProperty("Rate", .double(2))
            switches.append((try mediaPlayerPosition(), 2))
            try speaker.waitUntilDelivered(2, since: playedFrom)
            try setMediaPlayerProperty("Rate", .double(1))
            switches.append((try mediaPlayerPosition(), 1))
        }
        let stretches = AudioAnalysis.soundingStretches(heard, sampleRate: rate)
        XCTAssertEqual(stretches.count, 1, "one tone, without a gap: \(stretches)")
        let stretch = try XCTUnwrap(stretches.first)
        // Memo time before the first switch at 1, up to the second at 2, the rest at 1.
        let expected =
            switches[0].position + (switches[1].position - switches[0].position) / 2
            + (6 - switches[1].position)
        print("rates 1, 2, 1 switched at \(switches): \(stretch.end - stretch.start) s, expected \(expected) s")
        XCTAssertEqual(stretch.end - stretch.start, expected, accuracy: 0.1, "at the sink")
        let start = Int(stretch.start * Double(rate))
        for (name, from) in [("before", start), ("at double speed", start + rate * 3 / 2)] {
            let second = Array(heard[from..<(from + rate / 2)])
            XCTAssertEqual(
                AudioAnalysis.dominantFrequency(second, sampleRate: rate), Stimulus.frequency, accuracy: 3, name)
        }
    }

    func testARateOutOfRangeIsRefusedAndChangesNothing() throws {
        let announcements = try mediaPlayerAnnouncements()
        try recorder.collectSignals(for: .milliseconds(50))
        let announcedBefore = recorder.propertiesChanged().count
        for refused in [3.0, 0.25, -1, .infinity, .nan] {
            XCTAssertThrowsError(try setMediaPlayerProperty("Rate", .double(refused))) { error in
                let busError = error as? BusError
                XCTAssertEqual(busError?.name, ContractError.invalidArgument.name, "Rate \(refused): \(error)")
                XCTAssertTrue(busError?.message.contains("0.5") == true, busError?.message ?? "")
                XCTAssertTrue(busError?.message.contains("2.0") == true, busError?.message ?? "")
            }
        }
        XCTAssertThrowsError(try recorder.setProperty(RecorderMember.playbackRate, .double(2.5))) { error in
            let busError = error as? BusError
            XCTAssertEqual(busError?.name, ContractError.invalidArgument.name, "\(error)")
            XCTAssertTrue(
                busError?.message.contains(RecorderMember.playbackRate.name) == true, "names the property: \(error)")
        }
        XCTAssertEqual(try mediaPlayerProperty("Rate"), .double(1))
        XCTAssertEqual(try recorder.property(RecorderMember.playbackRate), .double(1))
        XCTAssertEqual(try mediaPlayerProperty("MinimumRate"), .double(0.5))
        XCTAssertEqual(try mediaPlayerProperty("MaximumRate"), .double(2))
        XCTAssertNil(try announcements.nextSignal(timeout: .milliseconds(300)), "nothing changed, nothing announced")
        try recorder.collectSignals(for: .milliseconds(300))
        XCTAssertEqual(recorder.propertiesChanged().count, announcedBefore, "nor on the recorder")
    }

    func testWritingEitherPropertyChangesBothAndIsAnnouncedOnBoth() throws {
        for (write, value) in [(RecorderMember.playbackRate.name, 1.5), ("Rate", 0.75)] {
            let announcements = try mediaPlayerAnnouncements()
            let mark = try recorder.markSignals()
            if write == "Rate" {
                try setMediaPlayerProperty("Rate", .double(value))
            } else {
                try recorder.setProperty(RecorderMember.playbackRate, .double(value))
            }
            XCTAssertEqual(try mediaPlayerProperty("Rate"), .double(value))
            XCTAssertEqual(try recorder.property(RecorderMember.playbackRate), .double(value))
            let mediaPlayerChange = try XCTUnwrap(announcements.nextSignal(timeout: .seconds(2)), "Rate announced")
            XCTAssertEqual(mediaPlayerChange.arguments[1].stringDictionary?["Rate"], .double(value))
            let recorderChange = try recorder.waitForSignal("PropertiesChanged", after: mark) {
                $0.arguments[1].stringDictionary?[RecorderMember.playbackRate.name] == .double(value)
            }
            XCTAssertEqual(recorderChange.arguments.first?.string, VoiceMemoProxy.interface.rawValue)
        }
    }

    func testRateZeroPausesAndLeavesTheRateAsItIs() throws {
        try recorder.setProperty(RecorderMember.playbackRate, .double(1.5))
        let memo = try addMemo(fixture.stimulus.samples + fixture.stimulus.samples, named: "tone-to-pause.wav")
        try recorder.callMemo(memo, MemoMember.play)
        try waitUntil("the memo plays", timeout: .seconds(3)) {
            try self.mediaPlayerProperty("PlaybackStatus") == .string("Playing")
        }
        try setMediaPlayerProperty("Rate", .double(0))
        XCTAssertEqual(try mediaPlayerProperty("PlaybackStatus"), .string("Paused"), "Rate 0 pauses")
        XCTAssertEqual(try mediaPlayerProperty("Rate"), .double(1.5), "and leaves Rate as it was")
        XCTAssertEqual(try recorder.property(RecorderMember.playbackRate), .double(1.5))
        _ = try recorder.call(RecorderMember.stopPlayback)
    }
}
