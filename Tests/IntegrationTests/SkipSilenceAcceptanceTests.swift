import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// SkipSilence against the real daemon: a memo of 1 s tone, 4 s silence, 1 s tone is played
/// and the speaker's monitor records what the output really sounded.
final class SkipSilenceAcceptanceTests: RecorderTestCase {
    private let rate = Stimulus.sampleRate

    /// The MPRIS position, in seconds.
    private func mediaPlayerPosition() throws -> Double {
        let output = try fixture.session.busctl([
            "get-property", "org.mpris.MediaPlayer2.voicememo", "/org/mpris/MediaPlayer2",
            "org.mpris.MediaPlayer2.Player",
            "Position",
        ])
        let micros = try XCTUnwrap(
            Double(output.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""),
            output.stdout)
        return micros / 1_000_000
    }

    func testALongSilenceIsSkippedAndBothTonesAreHeardWhole() throws {
        fixture.stimulus.stop()  // so the speaker carries only the playback
        XCTAssertEqual(try recorder.property(RecorderMember.skipSilence).boolean, false, "off by default")
        try recorder.setProperty(RecorderMember.skipSilence, .boolean(true))
        let settings = try String(
            contentsOf: fixture.session.settingsDirectory.appendingPathComponent("settings.json"), encoding: .utf8)
        XCTAssertTrue(
            settings.contains("\"skipsSilence\" : true") || settings.contains("\"skipsSilence\":true"), settings)

        let tone = fixture.stimulus.samples  // 1 s
        let memo = try addMemo(tone + [Int16](repeating: 0, count: 4 * rate) + tone, named: "tone-gap-tone.wav")
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.duration).double ?? 0, 6, accuracy: 0.01)

        let speaker = try SourceRecording(from: AudioDevices.speaker + ".monitor", in: fixture.session)
        defer { speaker.stop() }
        // The monitor's stream runs before the first block plays: on PipeWire a monitor
        // opened together with the playback can miss the output's first graph cycle.
        _ = try speaker.waitForSamples(rate / 10)
        let started = Date()
        let playedFrom = speaker.sampleCount
        try recorder.callMemo(memo, MemoMember.play)
        // In the second tone by the output's clock, 5 s or more into the memo by its own.
        try speaker.waitUntilDelivered(1.9, since: playedFrom)
        let position = try mediaPlayerPosition()
        XCTAssertGreaterThan(position, 4.8, "MPRIS reports the memo's own time, past the skipped silence")
        XCTAssertLessThan(position, 6.0)
        let finished = try recorder.waitForSignal(RecorderMember.playbackFinished, timeout: .seconds(8)) {
            $0.arguments.first?.objectPath == memo
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        XCTAssertEqual(elapsed, 2.4, accuracy: 0.3, "the 6 s memo plays in about 2.4 s")

        let heard = AudioAnalysis.normalized(speaker.samples)
        let stretches = AudioAnalysis.soundingStretches(heard, sampleRate: rate)
        XCTAssertEqual(stretches.count, 2, "two tones: \(stretches)")
        guard stretches.count == 2 else { return }
        for (index, stretch) in stretches.enumerated() {
            XCTAssertEqual(stretch.end - stretch.start, 1.0, accuracy: 0.02, "tone \(index + 1) heard whole")
            let start = Int(stretch.start * Double(rate))
            let end = Int(stretch.end * Double(rate))
            let sound = Array(heard[start..<end])
            XCTAssertEqual(
                AudioAnalysis.dominantFrequency(sound, sampleRate: rate), Stimulus.frequency, accuracy: 440 * 0.02)
            XCTAssertEqual(AudioAnalysis.rmsDBFS(sound), fixture.stimulus.rmsDBFS, accuracy: 1)
        }
        XCTAssertEqual(stretches[1].start - stretches[0].end, 0.4, accuracy: 0.05, "0.2 s of silence kept at each edge")
        XCTAssertEqual(stretches[1].end - stretches[0].start, 2.4, accuracy: 0.05, "at the sink: 1 + 0.4 + 1 s")
    }
}
