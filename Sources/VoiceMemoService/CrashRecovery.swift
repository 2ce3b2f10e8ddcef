import AudioContainers
import FoundationEssentials
import SoundFile
import VoiceMemoCore
import VoiceMemoRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// At start-up, finds the memos a crash or power loss left open (the recording journal
/// lists them), repairs them so every decoder reads them, and says which were kept.
///
/// The journal is read before the name is owned, so a recording started meanwhile is not
/// taken for a crashed one; the repair runs away from the bus (it decodes whole memos), and
/// the journal is written only on the recorder's queue, as the recorder writes it.
package struct CrashRecovery: Sendable {
    let directory: MemoDirectory
    /// The files the journal listed as open when the daemon started.
    let leftOpen: [String]

    package init(directory: MemoDirectory) {
        self.directory = directory
        leftOpen = RecordingJournal(directory: directory.path).entries()
    }

    /// Undoes each title or transcript change made in place that a crash cut short, so the
    /// memo reads as before it (see `TagJournal`); before the library reads the memos.
    package func undoInterruptedTagEdits() {
        for line in TagEditor.recoverInterruptedEdits(in: directory.path) { Log.warning(line) }
    }

    /// Repairs each memo left open; returns those kept (a file that never got any audio is
    /// removed, as a finished empty memo would be). Touches no journal.
    package func repair() -> [MemoReference] {
        var recovered: [MemoReference] = []
        for name in leftOpen {
            let memo = MemoReference(id: MemoNaming.memoID(forFileName: name), path: directory.path + "/" + name)
            guard FileManager.default.fileExists(atPath: memo.path) else { continue }
            guard let format = AudioFormat(fileExtension: String(name.split(separator: ".").last ?? "")) else {
                continue
            }
            // FLAC is decoded once, before the repair, which needs the count; the other
            // containers' repaired headers say how much audio they hold.
            let decodedFrames = format == .flac ? decodableFrames(memo.path) : nil
            do {
                let fixes = try CrashRepair.repair(
                    fileAt: memo.path, container: format.tagContainer, decodedFrames: decodedFrames)
                Log.info(
                    "recovered \(name) after a crash" + (fixes.isEmpty ? "" : ": " + fixes.joined(separator: ", ")))
            } catch {
                Log.error("cannot repair \(name): \(error)")
            }
            let heldFrames = decodedFrames ?? (try? SoundFileReader(path: memo.path)).map { UInt64($0.frameCount) }
            if heldFrames ?? 0 > 0 {
                recovered.append(memo)
            } else {
                Log.info("\(name) holds no audio; removing it")
                try? directory.remove(memo)
            }
        }
        return recovered
    }

    /// Takes the repaired files off the journal; on the recorder's queue.
    package func closeJournalEntries() {
        let journal = RecordingJournal(directory: directory.path)
        for name in leftOpen { journal.remove(name) }
    }

    /// How many frames libsndfile can decode from the file, read in chunks (a crashed FLAC
    /// does not know its length; a long memo must not be loaded whole).
    private func decodableFrames(_ path: String) -> UInt64? {
        guard let reader = try? SoundFileReader(path: path) else { return nil }
        let chunk = 8192
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: chunk * max(1, reader.channelCount))
        defer { buffer.deallocate() }
        var total: UInt64 = 0
        while let frames = try? reader.read(into: buffer, frameCount: chunk), frames > 0 {
            total += UInt64(frames)
        }
        return total
    }
}
