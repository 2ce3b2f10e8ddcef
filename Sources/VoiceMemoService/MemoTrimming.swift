import AudioContainers
import FoundationEssentials
import SoundFile
import VoiceMemoCore
import VoiceMemoRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// `Trim` and `TrimSilence` on a memo's file, on the library's file queue.
///
/// The new version is written beside the memo as a hidden temporary file and synced; the
/// old one is hard-linked into the trash (its `.trashinfo` first); then the new one is
/// renamed over it. A crash at any moment leaves the memo's path holding the complete old
/// file or the complete new one, never neither; at worst a temporary file is left, which
/// the next start removes (`removeLeftovers(in:)`), or the trash holds the old version while
/// the memo is still the old one too.
package struct MemoTrimming {
    /// What to keep of the memo.
    enum Cut: Sendable {
        /// `Trim(start, end)`, in seconds.
        case range(start: Double, end: Double)
        /// `TrimSilence()`.
        case silence
    }

    /// Where the old versions go.
    let trash: Trash

    /// The marker in a temporary file's name (`.<memo file>.trim-XXXXXX`).
    private static let marker = ".trim-"

    /// Cuts the memo at `path`; false when there was nothing to cut (the file is untouched).
    /// A `transcript` (WebVTT) goes into the new version cut the same way, its segments moved
    /// to their new times, before that version takes the memo's place.
    func trim(fileAt path: String, _ cut: Cut, transcript: String? = nil) throws(RecorderError) -> Bool {
        // The file a symbolic link points to is trimmed, and the link stays.
        let path = DurableRename.resolvingLinks(path)
        let reader: SoundFileReader
        do {
            reader = try SoundFileReader(path: path)
        } catch {
            throw .storage("cannot read \(path): \(error.message)")
        }
        let kept = try frames(of: reader, cut)
        guard kept != 0..<reader.frameCount else { return false }
        var original = stat()
        guard stat(path, &original) == 0 else { throw .storage("cannot read \(path): \(Self.systemError())") }
        let temporary = try Self.temporaryFile(beside: path)
        var isPlaced = false
        defer { if !isPlaced { unlink(temporary) } }
        let bitsPerSecond = reader.duration > 0 ? Double(original.st_size) * 8 / reader.duration : 0
        let format = reader.format ?? AudioFormat(fileExtension: String(path.split(separator: ".").last ?? ""))
        let level = format.flatMap {
            ReencodingLevel.compressionLevel(format: $0, bitsPerSecond: bitsPerSecond, channels: reader.channelCount)
        }
        do {
            try SoundFileExcerpt.write(kept, of: reader, to: temporary, compressionLevel: level)
        } catch {
            throw .storage("cannot write the trimmed memo: \(error.description); the memo is unchanged")
        }
        // libsndfile wrote the tags it knows, in its own spelling; the original's go back key
        // for key (pictures, custom fields, unknown chunks), the lengths staying the new ones.
        if let format {
            do {
                try TagEditor.copyMetadata(from: path, to: temporary, container: format.tagContainer)
            } catch {
                throw .storage(
                    "cannot carry the memo's tags into its trimmed version: \(error.message); the memo is unchanged")
            }
        }
        if let format, let transcript = transcript.flatMap(Transcript.init(webVTT:)) {
            let rate = Double(max(reader.sampleRate, 1))
            let seconds = Double(kept.lowerBound) / rate..<Double(kept.upperBound) / rate
            do {
                try TagEditor.setText(
                    transcript.cut(keeping: seconds).webVTT, for: .transcript, ofFileAt: temporary,
                    container: format.tagContainer)
            } catch {
                throw .storage(
                    "cannot carry the transcript into the trimmed memo: \(error.message); the memo is unchanged")
            }
        }
        chmod(temporary, original.st_mode & 0o7777)
        let trashed = try trash.linkIntoTrash(path)
        guard rename(temporary, path) == 0 else {
            let reason = Self.systemError()
            trash.forget(trashed)
            throw .storage("cannot replace \(path) with its trimmed version: \(reason); the memo is unchanged")
        }
        isPlaced = true
        DurableRename.syncDirectory(of: path)
        return true
    }

    /// The frames `cut` keeps of the file `reader` has open.
    private func frames(of reader: SoundFileReader, _ cut: Cut) throws(RecorderError) -> Range<Int> {
        switch cut {
        case .range(let start, let end):
            return try MemoTrim.frames(
                start: start, end: end, sampleRate: reader.sampleRate, frameCount: reader.frameCount)
        case .silence:
            let framesPerPeak = max(1, Int((Double(reader.sampleRate) * MemoTrim.silenceBlockSeconds).rounded()))
            let peaks: [Float]
            do {
                peaks = try reader.blockPeaks(framesPerBlock: framesPerPeak)
            } catch {
                throw .storage("cannot decode \(reader.path): \(error.message)")
            }
            guard
                let kept = MemoTrim.framesWithoutSilence(
                    peaks: peaks, framesPerPeak: framesPerPeak, frameCount: reader.frameCount,
                    sampleRate: reader.sampleRate)
            else {
                throw .invalidArgument(
                    "the memo is silent throughout (no 10 ms peak reaches \(Int(MemoTrim.silenceThreshold)) dBFS), "
                        + "so nothing would be left; delete it instead")
            }
            return kept
        }
    }

    /// Removes the temporary files that a crash left in `directory`: a trim's, and the tag
    /// editor's copy of a memo (a rename or transcript rewriting a whole Ogg or MP3 file, or
    /// of a trim's file); at start-up, before any trim or rename can run.
    package static func removeLeftovers(in directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where isTemporary(name[...]) {
            if unlink(directory + "/" + name) == 0 { Log.info("removed \(name), left by an interrupted file edit") }
        }
    }

    /// Whether `name` is a trim's temporary file (`.<memo>.trim-XXXXXX`) or the tag editor's
    /// (`.<file>.tagedit-XXXXXX`, see `AtomicFileReplacement`).
    private static func isTemporary(_ name: Substring) -> Bool {
        let stem = name.dropLast(6)
        return name.hasPrefix(".") && (stem.hasSuffix(marker) || stem.hasSuffix(tagEditorMarker))
    }

    /// The marker in the name of the tag editor's temporary copy (`AtomicFileReplacement`).
    private static let tagEditorMarker = ".tagedit-"

    /// A new, empty, user-only file named `.<name>.trim-XXXXXX` in the directory of `path`.
    private static func temporaryFile(beside path: String) throws(RecorderError) -> String {
        let slash = path.lastIndex(of: "/")!
        let name = path[path.index(after: slash)...]
        var template = Array("\(path[...slash]).\(name)\(marker)XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw .storage("cannot create a temporary file beside \(path): \(systemError()); the memo is unchanged")
        }
        close(descriptor)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }
}
