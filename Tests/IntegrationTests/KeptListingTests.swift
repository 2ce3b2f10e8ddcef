import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// GetManagedObjects answered again from the reply the daemon kept since the last listing:
/// the same listing while nothing changed, never a stale one after a change, and each copy
/// addressed to its own caller and call.
final class KeptListingTests: RecorderTestCase {
    /// Lists the memos from `connection`; a reply that answers another serial or goes to
    /// another client never arrives, and the call fails after five seconds.
    private func listing(from connection: BusConnection) throws -> [BusValue] {
        try connection.call(
            destination: VoiceMemoProxy.busName, path: VoiceMemoProxy.path, interface: .objectManager,
            member: MemberName("GetManagedObjects"), timeout: .seconds(5))
    }

    /// Each memo of a listing with its properties.
    private func memos(in listing: [BusValue]) throws -> [ObjectPath: [String: BusValue]] {
        var memos: [ObjectPath: [String: BusValue]] = [:]
        for object in try XCTUnwrap(listing.first?.dictionaryEntries, "a{oa{sa{sv}}}") {
            let interfaces = try XCTUnwrap(object.value.dictionaryEntries)
            let memo = try XCTUnwrap(interfaces.first { $0.key.string == VoiceMemoProxy.memoInterface.rawValue })
            memos[try XCTUnwrap(object.key.objectPath)] = try XCTUnwrap(memo.value.stringDictionary)
        }
        return memos
    }

    /// Lists twice from `connection` (the second answered from the kept reply), checks both
    /// agree with each memo's own properties (`GetAll`), and returns the memos listed.
    private func checkedMemos(
        from connection: BusConnection, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [ObjectPath: [String: BusValue]] {
        let first = try listing(from: connection)
        XCTAssertEqual(try listing(from: connection), first, "a repeat with nothing changed", file: file, line: line)
        let listed = try memos(in: first)
        for (memo, properties) in listed {
            let all = try connection.call(
                destination: VoiceMemoProxy.busName, path: memo, interface: .properties, member: MemberName("GetAll"),
                arguments: [.string(VoiceMemoProxy.memoInterface.rawValue)])
            XCTAssertEqual(all.first?.stringDictionary, properties, "\(memo) as listed", file: file, line: line)
        }
        return listed
    }

    /// Writes a second of tone as a WAV memo titled `title`, an hour older than the last.
    private func addMemo(titled title: String) throws -> ObjectPath {
        let age = 3600.0 * Double(try recorder.managedMemos().count + 1)
        let name = MemoNaming.fileName(date: Date(timeIntervalSinceNow: -age), title: title, format: .wav)
        return try addMemo(Stimulus.period, named: name, title: title)
    }

    func testARepeatListsTheSameAndEachChangeShowsInTheNextListing() throws {
        let alpha = try addMemo(titled: "Alpha")
        let beta = try addMemo(titled: "Beta")
        let client = try BusConnection.connect(address: fixture.session.busAddress)
        let start = try checkedMemos(from: client)
        XCTAssertEqual(Set(start.keys), [alpha, beta])

        // Each change comes right after a listing, while its reply is kept.
        try recorder.callMemo(alpha, MemoMember.rename, [.string("Budget")])
        let renamed = try checkedMemos(from: client)
        XCTAssertEqual(renamed[alpha]?[MemoMember.title.name], .string("Budget"), "after Rename")
        XCTAssertNotEqual(renamed[alpha]?[MemoMember.path.name], start[alpha]?[MemoMember.path.name])
        XCTAssertEqual(renamed[beta], start[beta], "the other memo is as it was")

        try recorder.setMemoTitle(beta, "Gamma")
        let retitled = try checkedMemos(from: client)
        XCTAssertEqual(retitled[beta]?[MemoMember.title.name], .string("Gamma"), "after a Set of Title")

        try recorder.callMemo(beta, MemoMember.trim, [.double(0), .double(0.5)])
        let trimmed = try checkedMemos(from: client)
        let duration = try XCTUnwrap(trimmed[beta]?[MemoMember.duration.name]?.double)
        XCTAssertEqual(duration, 0.5, accuracy: 0.05, "after Trim")

        let delta = try addMemo(titled: "Delta")
        let added = try checkedMemos(from: client)
        XCTAssertEqual(Set(added.keys), [alpha, beta, delta], "after a memo was added")

        try recorder.callMemo(alpha, MemoMember.deletePermanently)
        let removed = try checkedMemos(from: client)
        XCTAssertEqual(Set(removed.keys), [beta, delta], "after a memo was removed")
        XCTAssertEqual(removed[beta], added[beta])
    }

    func testTwoClientsInTurnEachGetTheirOwnCopy() throws {
        _ = try addMemo(titled: "Alpha")
        _ = try addMemo(titled: "Beta")
        let first = try BusConnection.connect(address: fixture.session.busAddress)
        let second = try BusConnection.connect(address: fixture.session.busAddress)
        // The first client's serials run ahead of the second's: a copy answering the serial
        // of the call it was made for, or sent to its caller, would leave the other waiting.
        for _ in 0..<3 {
            _ = try first.call(
                destination: VoiceMemoProxy.busName, path: VoiceMemoProxy.path, interface: .properties,
                member: MemberName("Get"),
                arguments: [.string(VoiceMemoProxy.interface.rawValue), .string(RecorderMember.state.name)])
        }
        let expected = try listing(from: first)
        XCTAssertEqual(try memos(in: expected).count, 2)
        for round in 1...3 {
            XCTAssertEqual(try listing(from: second), expected, "round \(round), the second client")
            XCTAssertEqual(try listing(from: first), expected, "round \(round), the first client")
        }
    }
}
