import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// Issue 14: slow is not lost. Inputs that deliver in bursts (module-sine-source's 2 s
/// blocks, pipe and network sources) are recorded like any other: no interruption, no
/// reopened stream, every frame in order; and a Stop while a read is late is answered.
final class SlowInputTests: RecorderTestCase {
    /// Records `seconds` from `source` into a 16-bit WAV memo between two spans of the clock,
    /// and returns its samples with the span; the recording must pass without a hitch.
    private func recordCleanly(
        from source: String, seconds: Double, sampleRate: Int, whenOpen: () -> Void = {},
        whenStopped: () -> Void = {}, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> (samples: [Int16], span: RecordingSpan) {
        var span = RecordingSpan()
        let memo = try span.start {
            let memo = try recorder.recordWithOptions([
                "format": .string("wav"), "quality": .string("medium"), "source": .string(source),
                "sample-rate": .uint32(UInt32(sampleRate)), "channels": .uint32(1),
            ])
            whenOpen()
            return memo
        }
        XCTAssertEqual(try recorder.property(RecorderMember.activeSource).string, source, file: file, line: line)
        try recorder.waitUntilRecorded(seconds)
        XCTAssertEqual(try recorder.state, "recording", "late is not lost", file: file, line: line)
        XCTAssertEqual(
            try span.stop { try recorder.call(RecorderMember.stop) }.first?.objectPath, memo, file: file, line: line)
        whenStopped()
        try recorder.drainSignals()
        let hitches = recorder.received.filter {
            [RecorderMember.interruption.name, RecorderMember.routeChanged.name].contains($0.member)
        }
        XCTAssertEqual(
            hitches.map { "\($0.member) \($0.arguments.compactMap(\.string))" }, [],
            "no interruption and no route change",
            file: file, line: line)
        XCTAssertFalse(
            recorder.announcedStates.contains("interrupted"), "\(recorder.announcedStates)", file: file, line: line)
        let reader = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(reader.sampleRate, sampleRate, file: file, line: line)
        return (reader.readInt16(), span)
    }

    // A 5 s memo from PulseAudio's module-sine-source, which hands out 2 s blocks.
    // pipewire-pulse has no such module; there the pipe source below stands for it.
    func testASineSourceThatDeliversTwoSecondBlocksIsRecordedWithoutAHitch() throws {
        let module = try? fixture.audioServer.pactl([
            "load-module", "module-sine-source", "source_name=voicememo_sine", "rate=48000", "frequency=440",
        ])
        guard let module else {
            XCTAssertEqual(fixture.audioServer.serverName, "PipeWire", "only pipewire-pulse lacks module-sine-source")
            return
        }
        defer { _ = try? fixture.audioServer.pactl(["unload-module", module]) }
        let (samples, span) = try recordCleanly(from: "voicememo_sine", seconds: 5, sampleRate: 48_000)

        // The source posts each block ahead of the clock (2.2 s by 1.7 s), so the memo may run
        // ahead of the span as well as behind it, by less than a block either way.
        let duration = Double(samples.count) / 48_000
        let block = 2.0
        print("sine source: \(duration) s recorded in \(span)")
        XCTAssertLessThanOrEqual(duration, span.seconds.upperBound + block, "within one block of \(span)")
        XCTAssertGreaterThanOrEqual(duration, span.seconds.lowerBound - block, "within one block of \(span)")
        let tones = AudioAnalysis.tones(
            in: AudioAnalysis.normalized(samples), frequencies: [440], sampleRate: 48_000, window: 480)
        XCTAssertEqual(tones.filter { $0 != 440 }.count, 0, "the tone throughout, no gap: \(tones.count) windows")
    }

    // A 5 s memo from a pipe source fed in half-second bursts: every frame, in order.
    func testAPipeSourceFedInBurstsIsRecordedWithoutGapsOrRepeats() throws {
        let input = try BurstInput(session: fixture.session, server: fixture.audioServer, burst: 0.5)
        defer { input.remove() }
        var fedAtStop = 0
        let (samples, span) = try recordCleanly(
            from: BurstInput.source, seconds: 5, sampleRate: BurstInput.sampleRate, whenOpen: input.start,
            whenStopped: { fedAtStop = input.framesFed })

        let duration = Double(samples.count) / Double(BurstInput.sampleRate)
        let rampFrames = samples.drop { $0 == 0 }.count
        print(
            "burst input on \(fixture.audioServer.serverName): \(duration) s recorded in \(span), "
                + "\(rampFrames) frames of the ramp of \(fedAtStop) fed by the Stop reply")
        XCTAssertEqual(BurstInput.breaks(in: samples), 0, "every frame once and in order")
        // The source runs one to two bursts ahead of the clock, so the memo may too; what it
        // cannot hold is a frame the source had not been given when Stop was answered.
        XCTAssertLessThanOrEqual(rampFrames, fedAtStop, "nothing beyond what the source was fed")
        // Nor may it fall behind the clock by more than the burst in flight, give or take a
        // couple of 20 ms fragments (the recorder's own granularity).
        let fragment = 0.05
        XCTAssertGreaterThanOrEqual(
            duration, span.seconds.lowerBound - input.burst - fragment, "within one burst of \(span)")
    }

    // Stop while the server has stalled (frozen with SIGSTOP, every connection open), long
    // before a stall could be declared: answered in well under a second, with a valid file
    // holding what came before.
    func testStopDuringALateReadIsAnsweredWithAValidFile() throws {
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "channels": .uint32(1)])
        try recorder.waitUntilRecorded(1.5)
        fixture.audioServer.send(SIGSTOP)
        defer { fixture.audioServer.send(SIGCONT) }
        // The stall is the scenario: far longer than a fragment, far short of a stall being
        // declared. A frozen server tells nothing, and the daemon reports nothing until then.
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try recorder.state, "recording", "late is not lost")

        let asked = ContinuousClock.now
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
        let answered = ContinuousClock.now - asked
        print("Stop during a late read on \(fixture.audioServer.serverName): answered after \(answered)")
        XCTAssertLessThan(answered, .seconds(1))
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        XCTAssertFalse(recorder.received.contains { $0.member == RecorderMember.interruption.name })

        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.format, .wav)
        XCTAssertGreaterThan(file.duration, 1.2, "the audio from before the stall")
        XCTAssertLessThan(file.duration, 1.8, "nothing made up for the stall")
        let exact = AudioAnalysis.exactSamplesAcrossSourceDropouts(
            recorded: file.readInt16(), period: fixture.stimulus.samples)
        XCTAssertGreaterThanOrEqual(Double(exact) / Double(Stimulus.sampleRate), 1.1, "the tone, bit for bit")
    }
}
