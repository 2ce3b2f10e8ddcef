import AudioContainers
import FoundationEssentials
import SoundFile
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// At start-up, finds the memos a crash or power loss left open (the recording journal
/// lists them), repairs them so every decoder reads them, and says which were kept.
struct CrashRecovery {
    let directory: MemoDirectory

    /// Repairs each memo left open; returns those kept (a file that never got any audio is
    /// removed, as a finished empty memo would be).
    func recover() -> [MemoReference] {
        let journal = RecordingJournal(directory: directory.path)
        var recovered: [MemoReference] = []
        for name in journal.entries() {
            defer { journal.remove(name) }
            let memo = MemoReference(id: MemoNaming.memoID(forFileName: name), path: directory.path + "/" + name)
            guard FileManager.default.fileExists(atPath: memo.path) else { continue }
            guard let format = AudioFormat(fileExtension: String(name.split(separator: ".").last ?? "")) else { continue }
            do {
                let fixes = try CrashRepair.repair(
                    fileAt: memo.path, container: format.tagContainer, decodedFrames: decodableFrames(memo.path))
                log("recovered \(name) after a crash" + (fixes.isEmpty ? "" : ": " + fixes.joined(separator: ", ")))
            } catch {
                log("cannot repair \(name): \(error)")
            }
            if decodableFrames(memo.path) ?? 0 > 0 {
                recovered.append(memo)
            } else {
                log("\(name) holds no audio; removing it")
                try? directory.remove(memo)
            }
        }
        return recovered
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

    private func log(_ message: String) {
        fputs("voicememod: \(message)\n", standardError)
    }
}
