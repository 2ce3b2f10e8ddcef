import Foundation
import Testing
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// The memo files libsndfile writes for the daemon.
@Suite("Sound file writer")
struct SoundFileWriterTests {
    /// A memo is its owner's alone even where the umask would share it (the daemon also
    /// sets one, but the writer does not rely on it).
    @Test(arguments: AudioFormat.allCases)
    func aNewMemoIsReadableByItsOwnerAlone(format: AudioFormat) throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let fixture = try MemoFixture(format)
        defer { fixture.remove() }
        #expect(fixture.mode & 0o777 == 0o600)
    }
}
