import AudioContainers
import Bus
import Foundation
import IntegrationSupport
import SoundFile
import TestSupport
import VoiceMemoContract
import VoiceMemoCore
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `Rename` of long memos against the real daemon: a 4.3 GB RF64 memo (sparse), a one-hour
/// FLAC memo and a one-hour MP3 memo are renamed within a second, the daemon writing under
/// 1 MB, and a SIGKILL at random moments of a stream of renames leaves each playable in full
/// under one of its titles, with nothing left in the memo directory after the next start.
final class RenameInPlaceTests: RecorderTestCase {
    private var memoDirectory: URL { fixture.session.memoDirectory }
    private static let sampleRate = 48_000

    /// A memo as the daemon records a WAV past 4 GiB: RF64 with its ds64 sizes, a LIST chunk
    /// with the title and the room after it, then 4.3 GB of (sparse) 16-bit mono audio.
    func testA43GBRF64MemoIsRenamedInPlaceAndSurvivesKills() throws {
        try exerciseRF64(room: SoundFileWriter.waveTagRoom)
    }

    /// The same memo as recorded before the daemon left room: the first rename moves the
    /// LIST chunk to the end of the file (the old one becomes JUNK, the ds64 size grows),
    /// and the later ones rewrite it there.
    func testA43GBRF64MemoWithoutRoomIsRenamedAtItsEndAndSurvivesKills() throws {
        try exerciseRF64(room: nil)
    }

    private func exerciseRF64(room: Int?) throws {
        let title = "Night shift"
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -7200), title: title, format: .wav)
        let dataSize: Int64 = 4_300_000_000
        let staged = fixture.session.root.appendingPathComponent(name)
        defer { try? FileManager.default.removeItem(at: staged) }
        let header = Self.rf64Header(title: title, room: room, dataSize: dataSize)
        XCTAssertTrue(FileManager.default.createFile(atPath: staged.path, contents: header))
        let handle = try FileHandle(forWritingTo: staged)
        try handle.truncate(atOffset: UInt64(header.count) + UInt64(dataSize))
        try handle.close()
        let duration = Double(dataSize / 2) / Double(Self.sampleRate)
        XCTAssertEqual(try ffprobeDuration(staged.path), duration, accuracy: 0.01, "ffprobe reads the whole length")
        try exerciseRenames(of: staged, named: name, title: title, duration: duration)
    }

    /// A one-hour FLAC memo as `flac` writes one: 8 KiB of padding after the comments.
    func testAnHourLongFlacMemoIsRenamedInPlaceAndSurvivesKills() throws {
        let title = "Lecture"
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -7200), title: title, format: .flac)
        let staged = fixture.session.root.appendingPathComponent(name)
        defer { try? FileManager.default.removeItem(at: staged) }
        // A minute of quiet noise, repeated for an hour: 236 MB of FLAC in a few seconds.
        let raw = fixture.session.root.appendingPathComponent("minute.raw")
        defer { try? FileManager.default.removeItem(at: raw) }
        let noise = try fixture.session.run(
            "sox",
            [
                "-n", "-r", "48000", "-c", "1", "-b", "16", "-t", "raw", raw.path, "synth", "60", "whitenoise", "vol",
                "0.02",
            ])
        XCTAssertTrue(noise.succeeded, noise.stderr)
        let encode = try fixture.session.run(
            "sh",
            [
                "-c",
                "for i in $(seq 60); do cat \"$1\"; done | flac -0 -s --force-raw-format --endian=little --sign=signed"
                    + " --channels=1 --bps=16 --sample-rate=48000 -T \"TITLE=$2\" -T DATE=2026-12-03 -o \"$3\" -",
                "sh", raw.path, title, staged.path,
            ], timeout: .seconds(60))
        XCTAssertTrue(encode.succeeded, encode.stderr)
        let blocks = try fixture.session.run("metaflac", ["--list", "--block-type=PADDING", staged.path])
        XCTAssertTrue(blocks.stdout.contains("length: 8192"), "flac leaves 8 KiB of padding: \(blocks.stdout)")
        XCTAssertEqual(try ffprobeDuration(staged.path), 3600, accuracy: 0.01)
        try exerciseRenames(of: staged, named: name, title: title, duration: 3600)
    }

    /// A one-hour MP3 memo as the daemon records one: its ID3v2 tag with room first, then the
    /// MPEG frames (here a minute of 64 kb/s frames repeated, without an Info frame).
    func testAnHourLongMP3MemoIsRenamedInPlaceAndSurvivesKills() throws {
        let title = "Interview"
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -7200), title: title, format: .mp3)
        let staged = fixture.session.root.appendingPathComponent(name)
        defer { try? FileManager.default.removeItem(at: staged) }
        let minute = fixture.session.root.appendingPathComponent("minute.mp3")
        defer { try? FileManager.default.removeItem(at: minute) }
        let encode = try fixture.session.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "anoisesrc=r=48000:a=0.02:d=60", "-ac", "1", "-c:a", "libmp3lame",
                "-b:a", "64k", "-write_xing", "0", "-id3v2_version", "0", "-y", minute.path,
            ], timeout: .seconds(60))
        XCTAssertTrue(encode.succeeded, encode.stderr)
        let tag = TagEditor.mp3LeadingTag(title: title, date: "2026-12-03T10:00:00Z", software: "voicememo")
        XCTAssertTrue(FileManager.default.createFile(atPath: staged.path, contents: Data(tag)))
        // Appended a page at a time, as the recorder appends: `write_bytes` counts each page-cache
        // folio an edit dirties in full, and one 28 MB write would be cached in 2 MiB folios.
        let frames = try Data(contentsOf: minute)
        let handle = try FileHandle(forWritingTo: staged)
        try handle.seekToEnd()
        for _ in 0..<60 {
            for start in stride(from: 0, to: frames.count, by: 4096) {
                try handle.write(contentsOf: frames[start..<min(start + 4096, frames.count)])
            }
        }
        try handle.close()
        let duration = try ffprobeDuration(staged.path)
        // Each minute brings its encoder's delay and padding: 24 ms more.
        XCTAssertEqual(duration, 3600, accuracy: 2, "an hour")
        try exerciseRenames(of: staged, named: name, title: title, duration: duration)
    }

    /// What a kill leaves of the renames that still copy the file (Ogg, an MP3 without room: a hidden
    /// `.<name>.tagedit-XXXXXX`) and of an in-place one (its journal, here of an edit stopped
    /// after its first write) is gone after the next start, the memo under its old title.
    func testTheNextStartRemovesACopyAndUndoesAJournal() throws {
        let opus = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -7200), title: "Voice", format: .opus)
        _ = try addMemo([Int16](repeating: 0, count: 48_000), named: opus, format: .opus, title: "Voice")
        let wave = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -3600), title: "Wave", format: .wav)
        let waveMemo = try addMemo([Int16](repeating: 0, count: 48_000), named: wave, format: .wav, title: "Wave")
        daemon.kill()
        let copy = memoDirectory.appendingPathComponent(".\(opus).tagedit-Ab12Cd")
        XCTAssertTrue(FileManager.default.createFile(atPath: copy.path, contents: Data(count: 4096)))
        let path = memoDirectory.appendingPathComponent(wave).path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try TagEditor.setText(
            String(repeating: "Longer than the room ", count: 60), for: .title, ofFileAt: path, container: .wav,
            stoppingAfter: .firstRunWritten)
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, "half written")

        let restarted = try fixture.launchDaemon()
        defer { restarted.stop() }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path).sorted(), [opus, wave])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, "the old bytes back")
        XCTAssertEqual(try recorder.memoProperty(waveMemo, MemoMember.title).string, "Wave")
        XCTAssertTrue(restarted.log.contains("undone"), restarted.log)
    }

    /// Moves the memo in, renames it twice measuring time and the daemon's writes, then kills
    /// the daemon 20 times in a stream of renames and checks the memo after each.
    private func exerciseRenames(of staged: URL, named name: String, title: String, duration: Double) throws {
        // On disk first, as a memo long since recorded is: the rename's fsync then flushes
        // its own bytes, not the 236 MB the test has just written.
        let handle = try FileHandle(forUpdating: staged)
        try handle.synchronize()
        try handle.close()
        try FileManager.default.createDirectory(at: memoDirectory, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: staged, to: memoDirectory.appendingPathComponent(name))
        defer { try? FileManager.default.removeItem(at: memoDirectory) }
        let memo = Contract.memoPath(id: MemoNaming.memoID(forFileName: name))
        try waitUntil("the memo is listed", timeout: .seconds(30)) { try self.recorder.managedMemos()[memo] != nil }

        let cache = fixture.session.runtimeDirectory.appendingPathComponent("voicememo/library.cache")
        for newTitle in ["Renamed once", "Renamed twice, with a title rather longer than the one before it"] {
            let cacheBefore = Self.version(of: cache)
            let before = try Self.writtenBytes(of: daemon.process.pid)
            let clock = ContinuousClock.now
            _ = try recorder.callMemo(memo, MemoMember.rename, [.string(newTitle)])
            let elapsed = ContinuousClock.now - clock
            let after = try Self.writtenBytes(of: daemon.process.pid)
            // The library's cache is saved a moment later (a new file put in its place): counted too.
            try waitUntil("the library cache is saved", timeout: .seconds(10)) {
                Self.version(of: cache) != cacheBefore
            }
            let settled = try Self.writtenBytes(of: daemon.process.pid)
            print(
                "rename of \(name): \(elapsed); daemon wrote \(after.storage - before.storage) bytes to storage, "
                    + "\(after.calls - before.calls) through write calls (\(settled.calls - before.calls) with the "
                    + "cache saved after)")
            XCTAssertLessThan(elapsed, .seconds(1))
            XCTAssertLessThan(settled.storage - before.storage, 1_000_000)
            XCTAssertLessThan(settled.calls - before.calls, 1_000_000)
            let file = try recorder.file(of: memo)
            XCTAssertEqual(try ExternalTags.title(ofFileAt: file.path), newTitle)
            XCTAssertEqual(try ffprobeDuration(file.path), duration, accuracy: 0.01)
        }

        // Renames back and forth as fast as the bus carries them; the kill lands anywhere.
        let titles = ["Kill test A", "Kill test B, a longer title than A"]
        let format = name.split(separator: ".").last.map(String.init) ?? ""
        let names = Set(
            (titles + ["Renamed twice, with a title rather longer than the one before it"]).map {
                MemoNaming.renamedFileName(name, title: $0)
            })
        let seed = UInt64(Date().timeIntervalSince1970)
        var generator = SeededGenerator(seed: seed)
        print("seed for the kills: \(seed)")
        var daemon: Daemon? = nil
        defer { daemon?.stop() }
        var outcomes: [String] = []
        for round in 0..<20 {
            let running = daemon ?? self.daemon
            let call = [
                "busctl", "--user", "call", Contract.busName.rawValue, memo.rawValue, Contract.memoInterface.rawValue,
                MemoMember.rename.name.rawValue, "s",
            ].joined(separator: " ")
            let renames = try fixture.session.launch(
                "sh", ["-c", "while :; do \(call) \"$1\"; \(call) \"$2\"; done", "sh", titles[0], titles[1]],
                logName: "renames-\(round)")
            running.kill(after: Double.random(in: 0.05...0.5, using: &generator))
            renames.kill()
            let entries = try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)
            let memos = entries.filter { !$0.hasPrefix(".") }
            XCTAssertEqual(memos.count, 1, "round \(round): one memo file, not \(memos)")
            let file = try XCTUnwrap(memos.first)
            XCTAssertTrue(names.contains(file), "round \(round): named \(file)")
            XCTAssertTrue(file.hasSuffix("." + format))
            let path = memoDirectory.appendingPathComponent(file).path
            let left = entries.filter { $0.hasPrefix(".") }
            // The file as the next start finds it: a journal is undone then, so the title
            // is checked after that; the audio must be whole even before.
            XCTAssertEqual(try ffprobeDuration(path), duration, accuracy: 0.01, "round \(round): plays in full")
            daemon?.stop()
            daemon = try fixture.launchDaemon()
            let after = try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)
            XCTAssertEqual(after, [file], "round \(round): nothing but the memo after the start")
            let kept = try ExternalTags.title(ofFileAt: path)
            XCTAssertTrue(
                kept.map { titles.contains($0) || $0.hasPrefix("Renamed twice") } ?? false,
                "round \(round): the old or the new title, not \(kept ?? "none")")
            XCTAssertEqual(try ffprobeDuration(path), duration, accuracy: 0.01, "round \(round): plays in full")
            XCTAssertEqual(try recorder.memoProperty(memo, MemoMember.title).string, kept)
            // The project's own parser checks every chunk or block length, where ffprobe forgives.
            let container: TagContainer = format == "flac" ? .flac : format == "mp3" ? .mp3 : .wav
            XCTAssertEqual(try TagEditor.title(ofFileAt: path, container: container), kept, "round \(round)")
            outcomes.append("\(kept == titles[0] ? "A" : kept == titles[1] ? "B" : "-")\(left.isEmpty ? "" : "*")")
        }
        print("after each kill (* a journal or copy was left): \(outcomes.joined(separator: " "))")
    }

    /// The RF64 header the daemon's writer makes past 4 GiB (with `room` bytes of JUNK after
    /// the LIST chunk, or none), for `dataSize` bytes of audio added by truncation.
    private static func rf64Header(title: String, room: Int?, dataSize: Int64) -> Data {
        var data = Data()
        func append(_ text: String) { data.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func append64(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        var info = Array("INFO".utf8)
        for (id, text) in [("INAM", title), ("ICRD", "2026-12-03")] {
            let bytes = Array(text.utf8) + [0] + (text.utf8.count % 2 == 0 ? [0] : [])
            info += Array(id.utf8) + withUnsafeBytes(of: UInt32(text.utf8.count + 1).littleEndian) { Array($0) } + bytes
        }
        let headerSize = 12 + (8 + 28) + (8 + 16) + (8 + info.count) + (room.map { 8 + $0 } ?? 0) + 8
        append("RF64")
        append32(UInt32.max)
        append("WAVE")
        append("ds64")
        append32(28)
        append64(Int64(headerSize) + dataSize - 8)
        append64(dataSize)
        append64(dataSize / 2)
        append32(0)
        append("fmt ")
        append32(16)
        data.append(contentsOf: [1, 0, 1, 0])
        append32(UInt32(sampleRate))
        append32(UInt32(sampleRate * 2))
        data.append(contentsOf: [2, 0, 16, 0])
        append("LIST")
        append32(UInt32(info.count))
        data.append(contentsOf: info)
        if let room {
            append("JUNK")
            append32(UInt32(room))
            data.append(Data(count: room))
        }
        append("data")
        append32(UInt32.max)
        precondition(data.count == headerSize)
        return data
    }

    /// ffprobe's duration of the file, in seconds.
    private func ffprobeDuration(_ path: String) throws -> Double {
        let output = try fixture.session.run(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", path],
            timeout: .seconds(30))
        return Double(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Which file is at `url` and when it was last written (nil if none): a file saved
    /// by replacement is another file, one saved in place has another time.
    private static func version(of url: URL) -> [FileAttributeKey: AnyHashable]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        return attributes.filter { [.systemFileNumber, .modificationDate].contains($0.key) }
            .compactMapValues { $0 as? AnyHashable }
    }

    /// What the process wrote so far: bytes it sent to storage (`write_bytes`) and bytes
    /// it passed to write calls (`wchar`), from `/proc/<pid>/io`.
    private static func writtenBytes(of pid: pid_t) throws -> (storage: Int64, calls: Int64) {
        let text = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
        func value(_ key: String) -> Int64 {
            text.split(separator: "\n").first { $0.hasPrefix(key + ": ") }.flatMap {
                Int64($0.dropFirst(key.count + 2))
            }
                ?? -1
        }
        return (value("write_bytes"), value("wchar"))
    }
}
