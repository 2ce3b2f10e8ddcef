import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// Start on sound against the real daemon: the fixture's tone played in bursts after silence,
/// each memo compared sample for sample with what the microphone delivered (recorded beside
/// it with parecord).
final class StartOnSoundAcceptanceTests: RecorderTestCase {
    private let rate = Double(Stimulus.sampleRate)

    /// The stretches of `samples` that are the stimulus sample for sample: one per unbroken burst.
    private func bursts(in samples: [Int16]) -> [Range<Int>] {
        AudioAnalysis.alignedExactRuns(recorded: samples, period: fixture.stimulus.samples)
    }

    /// Plays the tone into the silent microphone until `microphone` has heard about `seconds` of it.
    private func playBurst(seconds: Double, heardBy microphone: SourceRecording) throws {
        try fixture.stimulus.start()
        try microphone.waitUntilDelivered(seconds)
        fixture.stimulus.stop()
    }

    /// Asserts that `memo` holds one burst, all of `heard` (the microphone's own copy of it),
    /// after at least `preRoll` seconds of the silence before it.
    private func assertHoldsWholeBurst(
        _ memo: ObjectPath, _ heard: [Int16], preRoll: Double, _ context: String, line: UInt = #line
    ) throws {
        let samples = try SoundFileReader(path: recorder.file(of: memo).path).readInt16()
        let found = bursts(in: samples)
        XCTAssertEqual(found.count, 1, "\(context): one unbroken burst, found \(found)", line: line)
        guard let burst = found.first else { return }
        XCTAssertEqual(burst.count, heard.count, "\(context): every sample of the burst, none missing", line: line)
        XCTAssertEqual(
            Array(samples[burst].prefix(64)), Array(heard.prefix(64)), "\(context): the onset is the burst's own start",
            line: line)
        XCTAssertTrue(samples[..<burst.lowerBound].allSatisfy { $0 == 0 }, "\(context): silence before it", line: line)
        XCTAssertGreaterThanOrEqual(
            Double(burst.lowerBound) / rate, preRoll, "\(context): the pre-roll before the onset", line: line)
    }

    /// Reads the recorder's signals until `State` was announced as `state`.
    private func waitForAnnouncedState(_ state: String) throws {
        try recorder.waitForSignal("PropertiesChanged") {
            $0.arguments[1].stringDictionary?[RecorderMember.state.name]?.string == state
        }
    }

    /// The bursts as the microphone delivered them, each as its samples.
    private func heardBursts(_ microphone: SourceRecording) -> [[Int16]] {
        let samples = microphone.samples
        return bursts(in: samples).map { Array(samples[$0]) }
    }

    func testTheMemoBeginsWithThePreRollAndHoldsTheWholeBurst() throws {
        fixture.stimulus.stop()
        let microphone = try SourceRecording(in: fixture.session)
        defer { microphone.stop() }
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "start-on-sound": .boolean(true)])
        XCTAssertEqual(try recorder.state, "scheduled")
        XCTAssertEqual(try recorder.property(RecorderMember.currentMemo).objectPath, memo)
        XCTAssertEqual(recorder.memoFiles, [], "no file while waiting")
        try microphone.waitUntilDelivered(2)
        XCTAssertEqual(try recorder.state, "scheduled", "silence does not start it")
        XCTAssertEqual(recorder.memoFiles, [])

        try playBurst(seconds: 1, heardBy: microphone)
        XCTAssertEqual(try recorder.state, "recording")
        try recorder.call(RecorderMember.stop)
        let heard = heardBursts(microphone)
        XCTAssertEqual(heard.count, 1, "the microphone heard one burst")
        XCTAssertGreaterThan(heard.first?.count ?? 0, Int(0.8 * rate))
        try assertHoldsWholeBurst(memo, heard.first ?? [], preRoll: 0.45, "start-on-sound")
        try waitForAnnouncedState("idle")
        XCTAssertEqual(recorder.announcedStates, ["scheduled", "recording", "idle"])
    }

    func testWithoutTheOptionNothingWaits() throws {
        fixture.stimulus.stop()
        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        XCTAssertEqual(try recorder.state, "recording", "recording at once, in silence")
        XCTAssertEqual(recorder.memoFiles.count, 1)
        try recorder.waitUntilRecorded(0.5)
        try recorder.call(RecorderMember.stop)
        let samples = try SoundFileReader(path: recorder.file(of: memo).path).readInt16()
        XCTAssertGreaterThan(samples.count, Int(0.4 * rate))
        XCTAssertTrue(samples.allSatisfy { $0 == 0 }, "the silence itself is the memo")
    }

    func testStopWhileWaitingLeavesNoMemo() throws {
        fixture.stimulus.stop()
        let microphone = try SourceRecording(in: fixture.session)
        defer { microphone.stop() }
        let memo = try recorder.recordWithOptions(["start-on-sound": .boolean(true), "pre-roll": .double(2)])
        try microphone.waitUntilDelivered(0.5)  // some pre-roll is held
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
        XCTAssertEqual(try recorder.state, "idle")
        XCTAssertEqual(recorder.memoFiles, [])
        try recorder.collectSignals(for: .milliseconds(300))
        XCTAssertFalse(
            recorder.received.contains { $0.member == RecorderMember.recordingFinished.name }, "nothing to announce")
    }

    func testBadOptionsAreRefusedNamingTheKey() throws {
        for (options, message) in [
            (["pre-roll": BusValue.double(6)], "'pre-roll' must be a number of seconds from 0 to 5; got 6.0"),
            (["sound-threshold": .double(10)], "'sound-threshold' must be a level in dBFS between -160 and 0"),
            (["start-on-sound": .uint32(1)], "option 'start-on-sound' must be of type 'b'"),
        ] {
            let error = recorder.callFailing(RecorderMember.recordWithOptions, [.stringDictionary(options)])
            XCTAssertEqual(error?.name.rawValue, ContractError.invalidArgument.name.rawValue, "\(options)")
            XCTAssertTrue(error?.message.contains(message) ?? false, "\(error?.message ?? "")")
        }
        XCTAssertEqual(try recorder.state, "idle")
    }

    /// A hands-free dictaphone: each burst is a memo, and the recorder waits again after each.
    func testWithStopAfterSilenceEachBurstIsAMemo() throws {
        fixture.stimulus.stop()
        let microphone = try SourceRecording(in: fixture.session)
        defer { microphone.stop() }
        let first = try recorder.recordWithOptions([
            "format": .string("wav"), "start-on-sound": .boolean(true), "stop-after-silence": .double(1),
        ])
        try microphone.waitUntilDelivered(1)
        let started = microphone.sampleCount
        try playBurst(seconds: 1, heardBy: microphone)
        try microphone.waitUntilDelivered(3, since: started)  // bursts 3 s apart
        try playBurst(seconds: 1, heardBy: microphone)

        let finishedFirst = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == first
        }
        let finishedSecond = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath != first
        }
        XCTAssertEqual(finishedFirst.arguments.last?.boolean, true)
        XCTAssertEqual(finishedSecond.arguments.last?.boolean, true)
        let second = try XCTUnwrap(finishedSecond.arguments.first?.objectPath)
        try waitUntil("the recorder waits for the next sound", timeout: .seconds(3)) {
            try self.recorder.state == "scheduled"
        }

        let heard = heardBursts(microphone)
        XCTAssertEqual(heard.count, 2, "the microphone heard two bursts")
        guard heard.count == 2 else { return }
        try assertHoldsWholeBurst(first, heard[0], preRoll: 0.45, "first memo")
        try assertHoldsWholeBurst(second, heard[1], preRoll: 0.45, "second memo")

        try recorder.call(RecorderMember.stop)
        XCTAssertEqual(try recorder.state, "idle")
        XCTAssertEqual(recorder.memoFiles.count, 2, "two memos, nothing from the last wait")
        try waitForAnnouncedState("idle")
        XCTAssertEqual(
            recorder.announcedStates, ["scheduled", "recording", "scheduled", "recording", "scheduled", "idle"])
    }

    func testTheCommandLineWaitsForSound() throws {
        fixture.stimulus.stop()
        let output = try fixture.voicememo(["record", "--on-sound", "--threshold", "-30", "--pre-roll", "1"])
        XCTAssertEqual(output.status, 0, "\(output)")
        XCTAssertTrue(output.stdout.hasPrefix("Waiting for sound to record \(Contract.memoParentPath)/"), output.stdout)
        XCTAssertEqual(try recorder.state, "scheduled")
        try recorder.call(RecorderMember.cancel)
        for arguments in [
            ["record", "--threshold", "-30"], ["record", "--on-sound", "--pre-roll", "soon"],
            ["record", "--on-sound=yes"],
        ] {
            let usage = try fixture.voicememo(arguments)
            XCTAssertEqual(usage.status, 64, "\(arguments): \(usage)")
            XCTAssertTrue(usage.stderr.contains("Usage: voicememo record"), "\(arguments): \(usage.stderr)")
        }
        let refused = try fixture.voicememo(["record", "--on-sound", "--pre-roll", "7"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("'pre-roll' must be a number of seconds from 0 to 5"), refused.stderr)
    }
}
