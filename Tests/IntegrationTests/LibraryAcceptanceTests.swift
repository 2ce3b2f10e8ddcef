import AudioContainers
import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// The memo library on the bus: memo objects, ObjectManager, rename, delete, playback and
/// files copied in by hand, against the real daemon and audio server.
final class LibraryAcceptanceTests: RecorderTestCase {

    /// Records a memo of `seconds` with `options` and waits until it is finished.
    private func recordMemo(_ seconds: Double, _ options: [String: BusValue] = ["format": .string("wav")]) throws
        -> ObjectPath
    {
        let memo = try recorder.recordWithOptions(options.merging(["duration": .double(seconds)]) { $1 })
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(seconds + 5)) {
            $0.arguments.first?.objectPath == memo
        }
        return memo
    }

    private var memoDirectory: URL { fixture.session.memoDirectory }

    // 1 and 2. Three memos listed with their properties, announced, and the same after a restart.
    func testManagedObjectsListEveryMemoAndSurviveARestart() throws {
        let specs: [(seconds: Double, options: [String: BusValue], format: String, rate: UInt32, channels: UInt32)] = [
            (1.0, ["format": .string("wav")], "wav", 48000, 1),
            (1.5, ["format": .string("flac"), "channels": .uint32(2)], "flac", 48000, 2),
            (0.5, ["format": .string("opus"), "sample-rate": .uint32(16000)], "opus", 16000, 1),
        ]
        var memos: [ObjectPath] = []
        for spec in specs {
            let memo = try recordMemo(spec.seconds, spec.options)
            memos.append(memo)
            let added = try recorder.waitForSignal("InterfacesAdded") { $0.arguments.first?.objectPath == memo }
            let finishedIndex = recorder.received.firstIndex {
                $0.member == RecorderMember.recordingFinished.name && $0.arguments.first?.objectPath == memo
            }
            let addedIndex = recorder.received.firstIndex {
                $0.member.rawValue == "InterfacesAdded" && $0.arguments.first?.objectPath == memo
            }
            XCTAssertLessThan(
                try XCTUnwrap(addedIndex), try XCTUnwrap(finishedIndex), "the object exists before RecordingFinished")
            XCTAssertNotNil(
                added.arguments[1].dictionaryEntries?.first { $0.key.string == Contract.memoInterface.rawValue })
        }

        let listed = try recorder.managedMemos()
        XCTAssertEqual(Set(listed.keys), Set(memos))
        for (memo, spec) in zip(memos, specs) {
            let properties = try XCTUnwrap(listed[memo])
            let file = try recorder.file(of: memo)
            XCTAssertEqual(try XCTUnwrap(properties[MemoMember.duration.name]?.double), spec.seconds, accuracy: 0.1)
            XCTAssertEqual(properties[MemoMember.format.name]?.string, spec.format)
            XCTAssertEqual(properties[MemoMember.sampleRate.name]?.uint32, spec.rate)
            XCTAssertEqual(properties[MemoMember.channels.name]?.uint32, spec.channels)
            XCTAssertEqual(properties[MemoMember.path.name]?.string, file.path)
            XCTAssertEqual(
                properties[MemoMember.id.name]?.string, memo.rawValue.split(separator: "/").last.map(String.init))
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
            XCTAssertEqual(properties[MemoMember.size.name]?.uint64, size.map(UInt64.init))
            let created = try XCTUnwrap(properties[MemoMember.created.name]?.int64)
            XCTAssertEqual(Double(created) / 1e6, Date().timeIntervalSince1970, accuracy: 30)
        }

        XCTAssertEqual(daemon.stop(), .exited(0))
        let restarted = try fixture.launchDaemon()
        defer { restarted.stop() }
        let fresh = try VoiceMemoProxy(session: fixture.session)
        XCTAssertEqual(try fresh.managedMemos(), listed, "the same ids and properties after a restart")
    }

    // 3. Rename: the title, the tags and the file name change; the id does not; nothing escapes.
    func testRenameChangesTitleTagsAndNameButNotTheId() throws {
        let memo = try recordMemo(0.5)
        let id = memo.rawValue.split(separator: "/").last.map(String.init)
        try recorder.callMemo(memo, MemoMember.rename, [.string("Meeting notes")])
        let changed = try recorder.waitForSignal("PropertiesChanged") {
            $0.path == memo && $0.arguments[1].stringDictionary?[MemoMember.title.name]?.string == "Meeting notes"
        }
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.title).string, "Meeting notes")
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.id).string, id)
        let file = try recorder.file(of: memo)
        XCTAssertEqual(
            changed.arguments[1].stringDictionary?[MemoMember.path.name]?.string, file.path,
            "the new name is announced with the title")
        XCTAssertTrue(file.lastPathComponent.hasSuffix(" Meeting notes.wav"), file.lastPathComponent)
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.path).string, file.path)
        XCTAssertEqual(try SoundFileReader(path: file.path).title, "Meeting notes")
        XCTAssertEqual(try TagEditor.title(ofFileAt: file.path, container: .wav), "Meeting notes")

        // Setting the Title property is the same as Rename.
        try recorder.setMemoTitle(memo, "Budget")
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.title).string, "Budget")

        let parent = memoDirectory.deletingLastPathComponent()
        let before = try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted()
        for hostile in [
            "../../etc/x", "a/b", "", String(repeating: "x", count: 10_000), "tab\there", "/absolute", "..", ".",
        ] {
            do {
                try recorder.callMemo(memo, MemoMember.rename, [.string(hostile)])
            } catch let error as BusError {
                XCTAssertEqual(
                    error.name.rawValue, ContractError.invalidArgument.name.rawValue, hostile.prefix(20) + "")
                continue
            }
            let now = try recorder.file(of: memo)
            XCTAssertEqual(now.deletingLastPathComponent().standardizedFileURL, memoDirectory.standardizedFileURL)
            XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.title).string, hostile)
            XCTAssertNoThrow(
                try SoundFileReader(path: now.path), "still decodes after renaming to \(hostile.prefix(20))")
        }
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted(), before,
            "nothing written beside the memo directory")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path).count, 1, "no stray files")
        XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.id).string, id)
    }

    // 4. Delete moves the file to the trash and removes the object, stopping its playback
    // first (TrashAcceptanceTests has the trash's side).
    // A title lives in the file's tags, so renaming copies the whole file: the bus is answered
    // meanwhile, and a Delete of the same memo waits for the rename instead of racing it.
    func testRenamingALongMemoLeavesTheBusFreeAndADeleteWaitsForIt() throws {
        // 30 minutes of 48 kHz 16-bit mono silence, 165 MiB, put into the library by hand.
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -7200), title: nil, format: .wav)
        try FileManager.default.createDirectory(at: memoDirectory, withIntermediateDirectories: true)
        let staged = fixture.session.root.appendingPathComponent(name)
        let dataSize = 48_000 * 2 * 1800
        XCTAssertTrue(FileManager.default.createFile(atPath: staged.path, contents: nil))
        let writer = try FileHandle(forWritingTo: staged)
        try writer.write(contentsOf: WaveHeader.pcm16(frames: dataSize / 2, sampleRate: 48_000))
        let chunk = Data(count: 1 << 20)
        for _ in 0..<dataSize / chunk.count { try writer.write(contentsOf: chunk) }
        try writer.write(contentsOf: Data(count: dataSize % chunk.count))
        try writer.close()
        try FileManager.default.moveItem(at: staged, to: memoDirectory.appendingPathComponent(name))
        let memo = Contract.memoPath(id: MemoNaming.memoID(forFileName: name))
        try recorder.waitForSignal("InterfacesAdded", timeout: .seconds(10)) { $0.arguments.first?.objectPath == memo }

        // The rename is a client of its own (busctl), whose end tells when it was answered.
        let rename = try fixture.session.launch(
            "busctl",
            [
                "--user", "--timeout=60", "call", Contract.busName.rawValue, memo.rawValue,
                Contract.memoInterface.rawValue,
                MemoMember.rename.name.rawValue, "s", "Long lecture",
            ], logName: "rename")
        // The copy has begun once its hidden replacement file exists; until the copy is done,
        // the memo keeps its old name.
        let original = memoDirectory.appendingPathComponent(name)
        try waitUntil("the rename copies the memo", timeout: .seconds(10), pollingEvery: .milliseconds(1)) {
            try FileManager.default.contentsOfDirectory(atPath: self.memoDirectory.path).contains {
                $0.hasPrefix(".") && $0.contains(name)
            }
        }
        XCTAssertEqual(try recorder.state, "idle")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: original.path),
            "State was answered only after the rename had copied the whole memo")

        // Had the Delete not waited, the trash would hold the old name and the copy would
        // bring the memo back under the new one.
        try recorder.callMemo(memo, MemoMember.delete)
        XCTAssertEqual(try rename.waitForExit(timeout: .seconds(5)), .exited(0))
        try recorder.waitForSignal("InterfacesRemoved") { $0.arguments.first?.objectPath == memo }
        let left = try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(left, [], "the rename's copy did not bring the file back")
        let trashed = try FileManager.default.contentsOfDirectory(
            atPath: fixture.session.dataDirectory.appendingPathComponent("Trash/files").path)
        XCTAssertTrue(
            trashed.contains(MemoNaming.renamedFileName(name, title: "Long lecture")),
            "the renamed file is in the trash: \(trashed)")
    }

    func testDeleteTrashesFileAndRemovesObjectAndStopsItsPlayback() throws {
        let memo = try recordMemo(3)
        let file = try recorder.file(of: memo)
        try recorder.callMemo(memo, MemoMember.play)
        XCTAssertEqual(try recorder.property(RecorderMember.playing).objectPath, memo)
        try recorder.callMemo(memo, MemoMember.delete)
        let removed = try recorder.waitForSignal("InterfacesRemoved") { $0.arguments.first?.objectPath == memo }
        XCTAssertEqual(removed.arguments[1].array?.compactMap(\.string), [Contract.memoInterface.rawValue])
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        let trashed = fixture.session.dataDirectory.appendingPathComponent("Trash/files").appendingPathComponent(
            file.lastPathComponent)
        XCTAssertTrue(FileManager.default.fileExists(atPath: trashed.path), "in the trash")
        XCTAssertEqual(try recorder.property(RecorderMember.playing).objectPath, .root)
        let finished = try recorder.waitForSignal(RecorderMember.playbackFinished) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, false)
        XCTAssertNil(try recorder.managedMemos()[memo])
        XCTAssertThrowsError(try recorder.callMemo(memo, MemoMember.play)) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ErrorName.unknownObject.rawValue)
        }
    }

    // 5a. Play: the speaker hears the memo, and PlaybackFinished arrives when it ends.
    func testPlaybackSoundsOnTheDefaultOutputAndFinishesOnTime() throws {
        let memo = try recordMemo(2)
        fixture.stimulus.stop()  // so the speaker carries only the playback
        let speaker = try SourceRecording(from: AudioDevices.speaker + ".monitor", in: fixture.session)
        defer { speaker.stop() }
        let started = Date()
        try recorder.callMemo(memo, MemoMember.play)
        let finished = try recorder.waitForSignal(RecorderMember.playbackFinished, timeout: .seconds(6)) {
            $0.arguments.first?.objectPath == memo
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(finished.arguments.last?.boolean, true)
        XCTAssertEqual(elapsed, 2.0, accuracy: 0.3, "PlaybackFinished within 0.3 s of the end")
        XCTAssertEqual(try recorder.property(RecorderMember.playing).objectPath, .root)

        let heard = AudioAnalysis.normalized(speaker.samples)
        let loud = heard.enumerated().filter { abs($0.element) > 0.05 }.map(\.offset)
        let first = try XCTUnwrap(loud.first)
        let last = try XCTUnwrap(loud.last)
        XCTAssertEqual(
            Double(last - first) / Double(Stimulus.sampleRate), 2.0, accuracy: 0.1,
            "the tone sounds for the memo's duration")
        let tone = Array(heard[first..<last])
        XCTAssertEqual(
            AudioAnalysis.dominantFrequency(tone, sampleRate: Stimulus.sampleRate), Stimulus.frequency,
            accuracy: 440 * 0.02)
        XCTAssertEqual(AudioAnalysis.rmsDBFS(tone), fixture.stimulus.rmsDBFS, accuracy: 1)
    }

    // 5b. A corrupt file gets DecodeError; the daemon keeps serving.
    func testACorruptMemoGetsDecodeErrorAndTheDaemonKeepsServing() throws {
        let good = try recordMemo(2, ["format": .string("flac")])
        var bytes = try Data(contentsOf: recorder.file(of: good))
        // Keep the header (so it is listed) and scramble the audio frames.
        for index in stride(from: 4096, to: bytes.count - 16, by: 7) { bytes[index] ^= 0x5A }
        let corrupt = memoDirectory.appendingPathComponent("corrupt.flac")
        try bytes.write(to: corrupt)
        let added = try recorder.waitForSignal("InterfacesAdded", timeout: .seconds(2)) {
            $0.arguments.first?.objectPath?.rawValue.hasSuffix(MemoNaming.memoID(forFileName: "corrupt.flac")) == true
        }
        let memo = try XCTUnwrap(added.arguments.first?.objectPath)
        _ = try? recorder.callMemo(memo, MemoMember.play)
        let error = try recorder.waitForSignal(RecorderMember.decodeError, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertFalse(error.arguments.last?.string?.isEmpty ?? true)
        let finished = try recorder.waitForSignal(RecorderMember.playbackFinished, timeout: .seconds(5)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, false)
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try recorder.state, "idle")
        try recorder.callMemo(good, MemoMember.play)
        try recorder.call(RecorderMember.stopPlayback)
    }

    // 6. Files copied in by hand appear within a second; removed ones disappear.
    func testFilesCopiedInByHandAppearAndDisappear() throws {
        let source = try recordMemo(1, ["format": .string("flac")])
        let sourceFile = try recorder.file(of: source)
        let staging = fixture.session.root.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        let wav = try recordMemo(1, ["format": .string("wav")])
        try FileManager.default.copyItem(
            at: try recorder.file(of: wav), to: staging.appendingPathComponent("interview.wav"))
        try FileManager.default.copyItem(at: sourceFile, to: staging.appendingPathComponent("lecture.flac"))

        for name in ["interview.wav", "lecture.flac"] {
            let copied = Date()
            try FileManager.default.copyItem(
                at: staging.appendingPathComponent(name), to: memoDirectory.appendingPathComponent(name))
            let id = MemoNaming.memoID(forFileName: name)
            let added = try recorder.waitForSignal("InterfacesAdded", timeout: .seconds(1)) {
                $0.arguments.first?.objectPath?.rawValue.hasSuffix("/" + id) == true
            }
            XCTAssertLessThan(Date().timeIntervalSince(copied), 1)
            let path = try XCTUnwrap(added.arguments.first?.objectPath)
            XCTAssertEqual(
                try recorder.memoProperty(path, MemoMember.title).string, String(name.split(separator: ".")[0]))
            XCTAssertEqual(try XCTUnwrap(recorder.memoProperty(path, MemoMember.duration).double), 1, accuracy: 0.1)
        }
        try FileManager.default.removeItem(at: memoDirectory.appendingPathComponent("interview.wav"))
        try recorder.waitForSignal("InterfacesRemoved", timeout: .seconds(1)) {
            $0.arguments.first?.objectPath?.rawValue.hasSuffix("/" + MemoNaming.memoID(forFileName: "interview.wav"))
                == true
        }
        XCTAssertEqual(try recorder.managedMemos().count, 3)
    }

    func testPlayingWhileRecordingIsBusy() throws {
        let memo = try recordMemo(0.5)
        _ = try recorder.recordWithOptions(["format": .string("wav")])
        XCTAssertThrowsError(try recorder.callMemo(memo, MemoMember.play)) { error in
            XCTAssertEqual((error as? BusError)?.name.rawValue, ContractError.busy.name.rawValue)
        }
        try recorder.call(RecorderMember.stop)
    }
}
