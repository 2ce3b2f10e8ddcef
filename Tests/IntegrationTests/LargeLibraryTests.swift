import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// A library of years (ten thousand memos, no library cache, as after a reboot): the daemon
/// answers the hotkey's `Record` before it has read the library, then announces every memo.
final class LargeLibraryTests: IntegrationTestCase {
    override class var launchesDaemon: Bool { false }

    private static let memoCount = 10_000

    func testRecordIsAnsweredBeforeTheLibraryIsReadAndEveryMemoIsAnnouncedOnce() throws {
        let session = fixture.session
        try MemoLibraryFiles.create(Self.memoCount, in: session.memoDirectory)
        // Listening before the daemon starts, as a panel applet does, so no announcement is missed.
        let recorder = try VoiceMemoProxy(session: session)
        let daemon = try fixture.launchDaemon(waitsForLibrary: false)
        defer { daemon.stop() }

        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        XCTAssertFalse(
            daemon.log.contains(Daemon.libraryReadMessage), "Record waited for the library to be read:\n\(daemon.log)")
        let listedWhileLoading = Set(try recorder.managedMemos().keys)
        XCTAssertLessThan(
            listedWhileLoading.count, Self.memoCount, "a listing during the load shows what is known so far")

        try daemon.waitForLibrary()
        XCTAssertTrue(
            daemon.log.contains("library: \(Self.memoCount) memos (0 from the cache, \(Self.memoCount) read)"),
            daemon.log)
        try recorder.call(RecorderMember.stop)
        try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(10)) {
            $0.arguments.first?.objectPath == memo
        }
        try recorder.drainSignals()

        let announced = recorder.received.filter { $0.member.rawValue == "InterfacesAdded" }.compactMap {
            $0.arguments.first?.objectPath
        }
        XCTAssertEqual(announced.count, Set(announced).count, "no memo is announced twice")
        let listed = try recorder.managedMemos()
        XCTAssertEqual(listed.count, Self.memoCount + 1, "every memo and the new recording")
        XCTAssertEqual(Set(announced), Set(listed.keys), "each memo was announced as it became known")
        XCTAssertTrue(listedWhileLoading.isSubset(of: Set(listed.keys)))
        XCTAssertEqual(listed[memo]?[MemoMember.format.name]?.string, "wav")
        XCTAssertGreaterThan(
            try XCTUnwrap(listed[memo]?[MemoMember.duration.name]?.double), 0.1, "the new memo is read once finished")
    }
}
