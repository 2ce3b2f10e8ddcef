import AudioContainers
import Foundation
import Testing

/// The file system helpers the tag editor and trimming share.
@Suite("Durable rename: links resolved, directories synced")
struct DurableRenameTests {
    private let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("durable-rename-\(getpid())-\(UUID().uuidString)").path

    @Test func aLinkResolvesToTheFileItPointsTo() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/memo.wav"
        let link = directory + "/link.wav"
        #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "memo.wav")
        // The temporary directory may itself lie behind a link (/tmp on some systems).
        let real = DurableRename.resolvingLinks(directory)
        #expect(DurableRename.resolvingLinks(link) == real + "/memo.wav")
        #expect(DurableRename.resolvingLinks(file) == real + "/memo.wav")
    }

    @Test func aPathThatCannotBeResolvedIsUsedAsGiven() {
        #expect(DurableRename.resolvingLinks("/no/such/directory/memo.wav") == "/no/such/directory/memo.wav")
    }

    @Test(arguments: [
        ("/tmp/memo.wav", "/tmp"), ("/memo.wav", "/"), ("memo.wav", "."), ("memos/memo.wav", "memos"),
    ])
    func theDirectorySyncedIsTheOneHoldingThePath(_ path: String, _ directory: String) {
        #expect(DurableRename.directory(of: path) == directory)
    }
}
