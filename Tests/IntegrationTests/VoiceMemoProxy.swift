import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// The daemon's recorder object seen from a test: typed calls on one private-bus
/// connection, and a second connection that records every signal the recorder emits.
final class VoiceMemoProxy {
    static let busName = Contract.busName
    static let path = Contract.recorderPath
    static let interface = Contract.recorderInterface
    static let properties = InterfaceName.properties

    private let calls: BusConnection
    private let signals: BusConnection
    private let memoDirectory: URL
    /// Every signal from the recorder object seen so far, in order.
    private(set) var received: [BusSignal] = []

    convenience init(session: TestSession) throws {
        try self.init(busAddress: session.busAddress, memoDirectory: session.memoDirectory)
    }

    /// A proxy for a daemon on the bus at `busAddress` that keeps its memos in `memoDirectory`.
    init(busAddress: String, memoDirectory: URL) throws {
        calls = try BusConnection.connect(address: busAddress)
        signals = try BusConnection.connect(address: busAddress)
        try signals.addMatch("type='signal',path_namespace='\(Self.path.rawValue)'")
        self.memoDirectory = memoDirectory
    }

    /// Calls a recorder method; the contract's errors are thrown as `BusError`.
    @discardableResult
    func call(_ member: String, _ arguments: [BusValue] = []) throws -> [BusValue] {
        try calls.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: MemberName(member),
            arguments: arguments)
    }

    /// Calls `member` expecting the error `name`; returns its message.
    func callFailing(_ member: String, _ arguments: [BusValue] = [], file: StaticString = #filePath, line: UInt = #line)
        -> BusError?
    {
        do {
            let reply = try call(member, arguments)
            XCTFail("\(member) succeeded with \(reply); an error was expected", file: file, line: line)
            return nil
        } catch let error as BusError {
            return error
        } catch {
            XCTFail("\(member) failed with a non-bus error \(error)", file: file, line: line)
            return nil
        }
    }

    func recordWithOptions(_ options: [String: BusValue]) throws -> ObjectPath {
        try XCTUnwrap(call("RecordWithOptions", [.stringDictionary(options)]).first?.objectPath)
    }

    func property(_ name: String) throws -> BusValue {
        let reply = try calls.call(
            destination: Self.busName, path: Self.path, interface: Self.properties, member: MemberName("Get"),
            arguments: [.string(Self.interface.rawValue), .string(name)])
        return try XCTUnwrap(reply.first?.variant)
    }

    func setProperty(_ name: String, _ value: BusValue) throws {
        _ = try calls.call(
            destination: Self.busName, path: Self.path, interface: Self.properties, member: MemberName("Set"),
            arguments: [.string(Self.interface.rawValue), .string(name), .variant(value)])
    }

    static let memoInterface = Contract.memoInterface

    /// Calls a method of the memo object at `memo`.
    @discardableResult
    func callMemo(_ memo: ObjectPath, _ member: String, _ arguments: [BusValue] = []) throws -> [BusValue] {
        try calls.call(
            destination: Self.busName, path: memo, interface: Self.memoInterface, member: MemberName(member),
            arguments: arguments)
    }

    /// Every memo object with its properties, from ObjectManager.GetManagedObjects.
    func managedMemos() throws -> [ObjectPath: [String: BusValue]] {
        let reply = try calls.call(
            destination: Self.busName, path: Self.path, interface: InterfaceName("org.freedesktop.DBus.ObjectManager"),
            member: MemberName("GetManagedObjects"))
        var memos: [ObjectPath: [String: BusValue]] = [:]
        for object in try XCTUnwrap(reply.first?.dictionaryEntries) {
            let path = try XCTUnwrap(object.key.objectPath)
            let interfaces = try XCTUnwrap(object.value.dictionaryEntries)
            memos[path] = interfaces.first { $0.key.string == Self.memoInterface.rawValue }?.value.stringDictionary
        }
        return memos
    }

    /// Sets a memo's Title property.
    func setMemoTitle(_ memo: ObjectPath, _ title: String) throws {
        _ = try calls.call(
            destination: Self.busName, path: memo, interface: Self.properties, member: MemberName("Set"),
            arguments: [.string(Self.memoInterface.rawValue), .string("Title"), .variant(.string(title))])
    }

    /// One property of the memo object at `memo`.
    func memoProperty(_ memo: ObjectPath, _ name: String) throws -> BusValue {
        let reply = try calls.call(
            destination: Self.busName, path: memo, interface: Self.properties, member: MemberName("Get"),
            arguments: [.string(Self.memoInterface.rawValue), .string(name)])
        return try XCTUnwrap(reply.first?.variant)
    }

    var state: String { get throws { try XCTUnwrap(property("State").string) } }

    /// Reads signals until one named `member` satisfies `condition`, or fails after `timeout`.
    @discardableResult
    /// Signals seen before `seenBefore` (a count of `received`) are passed over: a memo
    /// path can come again once its memo is gone (an empty one, in the same second).
    func waitForSignal(
        _ member: String, timeout: Duration = .seconds(5), seenBefore: Int = 0,
        where condition: (BusSignal) -> Bool = { _ in true }
    ) throws -> BusSignal {
        if let seen = received[min(seenBefore, received.count)...].first(where: {
            $0.member.rawValue == member && condition($0)
        }) {
            return seen
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let signal = try signals.nextSignal(timeout: deadline - ContinuousClock.now) else { break }
            received.append(signal)
            if signal.member.rawValue == member && condition(signal) { return signal }
        }
        throw FixtureError.timedOut(waitingUntil: "the recorder emits \(member)", after: timeout)
    }

    /// Reads whatever signals are already queued (waiting at most `timeout` for each).
    func drainSignals(timeout: Duration = .milliseconds(200)) throws {
        while let signal = try signals.nextSignal(timeout: timeout) { received.append(signal) }
    }

    /// Reads every signal that comes within `duration` (however busy the recorder is).
    func collectSignals(for duration: Duration) throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            guard let signal = try signals.nextSignal(timeout: deadline - ContinuousClock.now) else { break }
            received.append(signal)
        }
    }

    /// The `PropertiesChanged` signals received so far from the object at `path` for `interface`.
    func propertiesChanged(
        on path: ObjectPath = VoiceMemoProxy.path, interface: InterfaceName = VoiceMemoProxy.interface
    ) -> [BusSignal] {
        received.filter {
            $0.member.rawValue == "PropertiesChanged" && $0.path == path
                && $0.arguments.first?.string == interface.rawValue
        }
    }

    /// The `State` values announced by `PropertiesChanged`, in order.
    var announcedStates: [String] {
        received.compactMap { signal in
            guard signal.member.rawValue == "PropertiesChanged" else { return nil }
            return signal.arguments[1].stringDictionary?["State"]?.string
        }
    }

    /// The file of memo `path`: its id is the last path element, and the memo directory
    /// is the one place it can be.
    func file(of memo: ObjectPath) throws -> URL {
        let id = String(memo.rawValue.split(separator: "/").last ?? "")
        let names = try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)
        let name = try XCTUnwrap(
            names.first { MemoNaming.memoID(forFileName: $0) == id }, "no file for memo \(id) among \(names)")
        return memoDirectory.appendingPathComponent(name)
    }

    /// Every file in the memo directory but the daemon's hidden bookkeeping (the journal of
    /// recordings in progress).
    var memoFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)) ?? []).filter { !$0.hasPrefix(".") }
            .sorted()
    }
}
