import Foundation
import Testing
import VoiceMemoService

/// What a trim or a rename cut short by a crash leaves in the memo directory, removed at the next start.
@Suite("Trim and rename leftovers")
struct TrimLeftoverTests {
    /// A trim's temporary file, the tag editor's copy of it (made while the original's tags
    /// are carried over) and a killed rename's copy of a memo go; the memos stay, and so do
    /// names that only look alike.
    @Test func temporaryFilesAreRemovedAndNothingElse() throws {
        let directory = NSTemporaryDirectory() + "TrimLeftoverTests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let leftovers = [".memo.wav.trim-Ab12Cd", "..memo.wav.trim-Ab12Cd.tagedit-Xy34Zw", ".memo.wav.tagedit-Xy34Zw"]
        let kept = ["memo.wav", "trim-Ab12Cd", "memo.wav.tagedit-Xy34Zw", "memo.trim-Ab12Cd.wav", ".memo.wav.tagedit-"]
        for name in leftovers + kept {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data([1])))
        }
        MemoTrimming.removeLeftovers(in: directory)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == Set(kept))
    }
}
