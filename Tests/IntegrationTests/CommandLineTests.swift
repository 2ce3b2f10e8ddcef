import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// The `voicememo` CLI end to end: the built binary against the real daemon, checking
/// stdout, stderr and exit status.
final class CommandLineTests: IntegrationTestCase {
    private func voicememo(_ arguments: String...) throws -> CommandOutput {
        try fixture.voicememo(arguments)
    }

    func testStatusJSONDescribesTheIdleRecorder() throws {
        let output = try voicememo("status", "--json")
        XCTAssertEqual(output.status, 0, "\(output)")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["state"] as? String, "idle")
        XCTAssertEqual(object["memo"] as? String, "/")
        XCTAssertEqual(object["format"] as? String, "opus")
        XCTAssertEqual(object["sampleRate"] as? Int, 48000)
        XCTAssertEqual(object["channels"] as? Int, 1)
        XCTAssertEqual(object["directory"] as? String, fixture.session.memoDirectory.path)
        XCTAssertEqual(object["activeOutput"] as? String, "")
        XCTAssertEqual(object["systemAudio"] as? Bool, false)
    }

    func testRecordWithOptionsThenStatusThenStop() throws {
        var span = RecordingSpan()
        let record = try span.start {
            try voicememo("record", "--format", "wav", "--rate", "16000", "--title", "From the CLI")
        }
        XCTAssertEqual(record.status, 0, "\(record)")
        XCTAssertTrue(record.stdout.hasPrefix("Recording \(Contract.memoParentPath)/"), record.stdout)

        let status = try voicememo("status")
        XCTAssertTrue(status.stdout.contains("State:     recording"), status.stdout)
        XCTAssertTrue(status.stdout.contains("Input:     voicememo_mic"), status.stdout)
        try VoiceMemoProxy(session: fixture.session).waitUntilRecorded(1)

        let stop = try span.stop { try voicememo("stop") }
        XCTAssertEqual(stop.status, 0, "\(stop)")
        XCTAssertEqual(stop.stdout.replacingOccurrences(of: "Saved", with: "Recording"), record.stdout)
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.session.memoDirectory.path)
        XCTAssertEqual(names.count, 1)
        let name = try XCTUnwrap(names.first)
        XCTAssertTrue(name.hasSuffix(" From the CLI.wav"), name)
        let file = try SoundFileReader(path: fixture.session.memoDirectory.appendingPathComponent(name).path)
        XCTAssertEqual(file.sampleRate, 16000)
        XCTAssertEqual(file.title, "From the CLI")
        XCTAssertTrue(span.admits(file.duration, tolerance: 0.1), "duration \(file.duration) s, recorded \(span)")
    }

    func testToggleAlternatesAndPrintsTheNewState() throws {
        XCTAssertEqual(try voicememo("toggle").stdout, "recording\n")
        XCTAssertEqual(try voicememo("toggle").stdout, "idle\n")
    }

    func testTheDaemonsRefusalIsPrintedWithStatusOne() throws {
        let output = try voicememo("record", "--channels", "9")
        XCTAssertEqual(output.status, 1)
        XCTAssertTrue(output.stderr.contains("'channels' must be 1 (mono) or 2 (stereo); got 9"), output.stderr)
        let stop = try voicememo("stop")
        XCTAssertEqual(stop.status, 1)
        XCTAssertTrue(stop.stderr.contains("nothing is being recorded"), stop.stderr)
    }

    func testUsageErrorsExitWith64AndShowUsage() throws {
        for arguments in [
            ["record", "--bogus"], ["frobnicate"], ["record", "--rate", "fast"], ["stop", "now"], [],
            ["record", "--split"], ["record", "--system-audio=yes"],
        ] {
            let output = try fixture.voicememo(arguments)
            XCTAssertEqual(output.status, 64, "\(arguments): \(output)")
            XCTAssertTrue(output.stderr.contains("Usage: voicememo"), "\(arguments): \(output.stderr)")
            XCTAssertEqual(output.stdout, "")
        }
    }

    func testPlaySpeedIsCheckedThenRemembered() throws {
        let recorder = try VoiceMemoProxy(session: fixture.session)
        for speed in ["3", "0.25", "nan", "fast", "-1"] {
            let output = try voicememo("play", "latest", "--speed", speed)
            XCTAssertEqual(output.status, 64, "--speed \(speed): \(output)")
            XCTAssertTrue(output.stderr.contains("Usage: voicememo play"), output.stderr)
            XCTAssertTrue(output.stderr.contains("0.5"), "says the range: \(output.stderr)")
            XCTAssertEqual(output.stdout, "")
        }
        XCTAssertEqual(try recorder.property(RecorderMember.playbackRate), .double(1), "no refused speed was set")

        XCTAssertEqual(try voicememo("record", "--format", "wav", "--duration", "0.5").status, 0)
        try waitUntil("the memo is finished", timeout: .seconds(5)) {
            try self.voicememo("status", "--format", "{state}").stdout == "idle\n"
        }
        let play = try voicememo("play", "latest", "--speed", "1.5")
        XCTAssertEqual(play.status, 0, "\(play)")
        XCTAssertTrue(play.stdout.hasPrefix("Playing ") && play.stdout.hasSuffix(" at speed 1.5\n"), play.stdout)
        XCTAssertEqual(try recorder.property(RecorderMember.playbackRate), .double(1.5), "remembered")
        let again = try voicememo("play", "latest")
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertEqual(try recorder.property(RecorderMember.playbackRate), .double(1.5), "kept without --speed")
    }

    func testEverySubcommandHasHelp() throws {
        for command in [
            "record", "stop", "pause", "resume", "toggle", "cancel", "status", "meter", "watch", "list", "peaks",
            "play", "rename", "delete",
        ] {
            let output = try voicememo(command, "--help")
            XCTAssertEqual(output.status, 0)
            XCTAssertTrue(output.stdout.contains("Usage: voicememo \(command)"), output.stdout)
        }
        XCTAssertTrue(try voicememo("--help").stdout.contains("Commands:"))
    }

    func testListRenamePlayAndDeleteByIdPrefix() throws {
        for round in 0..<2 {
            XCTAssertEqual(try voicememo("record", "--format", "flac", "--duration", "0.5").status, 0)
            try waitUntil("the memo is finished", timeout: .seconds(5)) {
                try self.voicememo("status", "--format", "{state}").stdout == "idle\n"
            }
            if round == 0 { try makeTheOnlyMemoAnOldOne() }
        }
        let listing = try voicememo("list", "--json")
        XCTAssertEqual(listing.status, 0, "\(listing)")
        let memos = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(memos.count, 2)
        let newest = try XCTUnwrap(memos.first?["id"] as? String)
        XCTAssertGreaterThan(newest, try XCTUnwrap(memos.last?["id"] as? String), "newest first")
        XCTAssertEqual(try XCTUnwrap(memos.first?["duration"] as? Double), 0.5, accuracy: 0.05)

        let others = memos.dropFirst().compactMap { $0["id"] as? String }
        let prefix = try XCTUnwrap(
            (1...newest.count).map { String(newest.prefix($0)) }.first { prefix in
                !others.contains { $0.hasPrefix(prefix) }
            })
        XCTAssertLessThan(prefix.count, newest.count, "a shorter prefix than the whole id picks the memo")
        XCTAssertEqual(try voicememo("rename", prefix, "Standup notes").status, 0)
        let text = try voicememo("list")
        XCTAssertTrue(text.stdout.hasPrefix(newest), text.stdout)
        XCTAssertTrue(text.stdout.split(separator: "\n").first?.hasSuffix("Standup notes") == true, text.stdout)

        let ambiguous = try voicememo("delete", "20")
        XCTAssertEqual(ambiguous.status, 1)
        XCTAssertTrue(ambiguous.stderr.contains("matches 2 memos"), ambiguous.stderr)

        let play = try voicememo("play", "latest")
        XCTAssertEqual(play.stdout, "Playing \(newest)\n", "\(play)")
        let delete = try voicememo("delete", newest)
        XCTAssertEqual(delete.stdout, "Moved \(newest) to the trash\n", "\(delete)")
        let remaining = try voicememo("list", "--json")
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(remaining.stdout.utf8)) as? [Any])?.count, 1)
    }

    func testTrimTakesSecondsOrAClockAndSilence() throws {
        XCTAssertEqual(try voicememo("record", "--format", "wav", "--duration", "2").status, 0)
        try waitUntil("the memo is finished", timeout: .seconds(6)) {
            try self.voicememo("status", "--format", "{state}").stdout == "idle\n"
        }
        let id = try XCTUnwrap(try voicememo("list").stdout.split(separator: " ").first.map(String.init))
        let trim = try voicememo("trim", "latest", "0:00.5", "1.5")
        XCTAssertEqual(trim.status, 0, "\(trim)")
        XCTAssertEqual(trim.stdout, "Trimmed \(id) to 0:01; the old version is in the trash\n")
        let listing = try voicememo("list", "--json")
        let memos = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(try XCTUnwrap(memos.first?["duration"] as? Double), 1, accuracy: 1e-9)

        let backwards = try voicememo("trim", "latest", "1", "0:00.5")
        XCTAssertEqual(backwards.status, 64, "\(backwards)")
        XCTAssertTrue(backwards.stderr.contains("must come before END"), backwards.stderr)
        let tooLong = try voicememo("trim", "latest", "0", "1:00")
        XCTAssertEqual(tooLong.status, 1, "the daemon refuses: \(tooLong)")
        XCTAssertTrue(tooLong.stderr.contains("past the memo's end"), tooLong.stderr)
        let both = try voicememo("trim", "latest", "0", "1", "--silence")
        XCTAssertEqual(both.status, 64, "\(both)")
        // The stimulus tone has no silence at either end: nothing to cut.
        let silence = try voicememo("trim", "latest", "--silence")
        XCTAssertEqual(silence.status, 0, "\(silence)")
        XCTAssertEqual(silence.stdout, "Nothing to trim in \(id)\n")
    }

    func testListPagesThroughALongLibraryAndSearchFolds() throws {
        let directory = fixture.session.memoDirectory
        try MemoLibraryFiles.create(1100, in: directory)
        try FileManager.default.moveItem(
            at: directory.appendingPathComponent("2026-01-01 00.00.00 Memo 0.wav"),
            to: directory.appendingPathComponent("2026-03-01 10.00.00 Réunion Müller.wav"))
        let recorder = try VoiceMemoProxy(session: fixture.session)
        try waitUntil("the daemon has read the copied memos", timeout: .seconds(10)) {
            try recorder.property(RecorderMember.memoCount).uint32 == 1100
        }
        let listing = try voicememo("list", "--json")
        XCTAssertEqual(listing.status, 0, "\(listing)")
        let memos = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(memos.count, 1100, "more than one page of ListMemos")
        XCTAssertEqual(memos.first?["title"] as? String, "Réunion Müller", "newest first")
        XCTAssertEqual(Set(memos.compactMap { $0["id"] as? String }).count, 1100, "each memo once")

        let found = try voicememo("list", "--search", "MULLER", "--json")
        XCTAssertEqual(found.status, 0, "\(found)")
        let foundMemos = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(foundMemos.map { $0["title"] as? String }, ["Réunion Müller"])
        let text = try voicememo("list", "--search", "memo 1099")
        XCTAssertEqual(text.stdout.split(separator: "\n").count, 1, text.stdout)
        XCTAssertTrue(text.stdout.hasSuffix("Memo 1099\n"), text.stdout)
        let oldest = try voicememo("list", "--search", "memo 1", "--json")
        let oldestMemos = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(oldest.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(oldestMemos.count, 211, "Memo 1, 10–19, 100–199 and 1000–1099")
        XCTAssertEqual(oldestMemos.last?["title"] as? String, "Memo 1", "newest first, down to the oldest found")
        let none = try voicememo("list", "--search", "no such memo")
        XCTAssertEqual(none.status, 0, "\(none)")
        XCTAssertEqual(none.stdout, "")
        let missing = try voicememo("list", "--search")
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("search"), missing.stderr)
    }

    /// Renames the one memo file to a time stamp of long ago. Memos recorded a second apart
    /// have ids that differ only in their last digit, so only the whole id would tell them
    /// apart; against an old memo a short prefix picks the new one.
    private func makeTheOnlyMemoAnOldOne() throws {
        let directory = fixture.session.memoDirectory
        let name = try XCTUnwrap(
            FileManager.default.contentsOfDirectory(atPath: directory.path).first { !$0.hasPrefix(".") })
        let old = "2000-01-01 09.00.00." + (name as NSString).pathExtension
        try FileManager.default.moveItem(
            at: directory.appendingPathComponent(name), to: directory.appendingPathComponent(old))
        try waitUntil("the daemon lists the renamed memo", timeout: .seconds(5)) {
            try self.voicememo("list", "--json").stdout.contains("\"20000101T090000\"")
        }
    }

    func testAMissingDaemonIsExplained() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        let output = try voicememo("status")
        XCTAssertEqual(output.status, 69)
        XCTAssertTrue(output.stderr.contains("daemon is not running"), output.stderr)
    }
}
