import Bus
import Foundation
import VoiceMemoContract
import VoiceMemoCore

/// The daemon's recorder object seen from a test or the benchmark: typed calls on one
/// private-bus connection, and a second connection that records every signal the recorder
/// emits.
///
/// A wait for a signal looks only at signals emitted after a mark (`markSignals()`),
/// by default the one taken as the proxy's latest call was sent: a memo's path can come
/// again once its memo is gone (an empty one, in the same second), so an older signal
/// must not answer a newer wait.
package final class VoiceMemoProxy {
    /// The daemon's bus name.
    package static let busName = Contract.busName
    /// The recorder object's path.
    package static let path = Contract.recorderPath
    /// The recorder's interface.
    package static let interface = Contract.recorderInterface
    /// The standard properties interface.
    package static let properties = InterfaceName.properties
    /// The memo objects' interface.
    package static let memoInterface = Contract.memoInterface

    /// A place in the order of the recorder's signals: every signal after it was emitted
    /// after the mark was taken.
    package struct SignalMark: Sendable {
        /// How many signals `received` held at the mark.
        package let index: Int
    }

    private let calls: BusConnection
    private let signals: BusConnection
    private let memoDirectory: URL
    private let marksEachCall: Bool
    /// Every signal from the recorder object seen so far, in order.
    package private(set) var received: [BusSignal] = []
    /// The mark taken before the latest call through this proxy (the start, before any).
    package private(set) var lastCallMark = SignalMark(index: 0)

    /// A proxy for the daemon of `session`.
    package convenience init(session: TestSession, marksEachCall: Bool = true) throws {
        try self.init(
            busAddress: session.busAddress, memoDirectory: session.memoDirectory, marksEachCall: marksEachCall)
    }

    /// A proxy for a daemon on the bus at `busAddress` that keeps its memos in
    /// `memoDirectory`. With `marksEachCall`, every call first takes a mark (one round trip
    /// more); the benchmark, which times calls, turns it off and marks by itself.
    package init(busAddress: String, memoDirectory: URL, marksEachCall: Bool = true) throws {
        calls = try BusConnection.connect(address: busAddress)
        signals = try BusConnection.connect(address: busAddress)
        try signals.addMatch("type='signal',path_namespace='\(Self.path.rawValue)'")
        self.memoDirectory = memoDirectory
        self.marksEachCall = marksEachCall
    }

    /// Marks the present in the order of the recorder's signals.
    ///
    /// A ping of the daemon on the signal connection: the bus keeps one sender's messages
    /// in order, so every signal the daemon emitted before answering is queued before the
    /// answer, and is read into `received` here.
    package func markSignals() throws -> SignalMark {
        _ = try signals.call(
            destination: Self.busName, path: Self.path, interface: InterfaceName("org.freedesktop.DBus.Peer"),
            member: MemberName("Ping"))
        while let signal = try signals.nextSignal(timeout: .zero) { received.append(signal) }
        return SignalMark(index: received.count)
    }

    /// Calls a recorder method; the contract's errors are thrown as `BusError`.
    @discardableResult
    package func call(_ member: BusMethodDeclaration, _ arguments: [BusValue] = []) throws -> [BusValue] {
        try call(unlisted: member.name.rawValue, arguments)
    }

    /// Calls a recorder method by a name the contract may not have: for the tests of how the
    /// daemon answers one.
    @discardableResult
    package func call(unlisted member: String, _ arguments: [BusValue] = []) throws -> [BusValue] {
        try markBeforeCall()
        return try calls.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: MemberName(member),
            arguments: arguments)
    }

    /// Starts a memo with `options` (RecordWithOptions) and returns its object path.
    package func recordWithOptions(_ options: [String: BusValue]) throws -> ObjectPath {
        try memo(in: call(RecorderMember.recordWithOptions, [.stringDictionary(options)]))
    }

    /// The memo object path a `Record`, `RecordWithOptions` or `Stop` reply names.
    package func memo(in reply: [BusValue]) throws -> ObjectPath {
        try unwrap(reply.first?.objectPath, "the reply \(reply) names a memo")
    }

    /// One property of the recorder, e.g. `State`.
    package func property(_ declaration: BusPropertyDeclaration) throws -> BusValue {
        try property(unlisted: declaration.name)
    }

    /// One property of the recorder by a name read at run time (from introspection) or one
    /// the contract may not have.
    package func property(unlisted name: String) throws -> BusValue {
        let reply = try calls.call(
            destination: Self.busName, path: Self.path, interface: Self.properties, member: MemberName("Get"),
            arguments: [.string(Self.interface.rawValue), .string(name)])
        return try unwrap(reply.first?.variant, "Get \(name) answers a variant, not \(reply)")
    }

    /// Sets a property of the recorder, e.g. `Format`.
    package func setProperty(_ declaration: BusPropertyDeclaration, _ value: BusValue) throws {
        try setProperty(unlisted: declaration.name, value)
    }

    /// Sets a recorder property by a name the contract may not have, or one it makes
    /// read-only: for the tests of how the daemon refuses it.
    package func setProperty(unlisted name: String, _ value: BusValue) throws {
        try markBeforeCall()
        _ = try calls.call(
            destination: Self.busName, path: Self.path, interface: Self.properties, member: MemberName("Set"),
            arguments: [.string(Self.interface.rawValue), .string(name), .variant(value)])
    }

    /// Calls a method of the memo object at `memo`.
    @discardableResult
    package func callMemo(_ memo: ObjectPath, _ member: BusMethodDeclaration, _ arguments: [BusValue] = []) throws
        -> [BusValue]
    {
        try markBeforeCall()
        return try calls.call(
            destination: Self.busName, path: memo, interface: Self.memoInterface, member: member.name,
            arguments: arguments)
    }

    /// Every memo object with its properties, from ObjectManager.GetManagedObjects.
    package func managedMemos() throws -> [ObjectPath: [String: BusValue]] {
        let reply = try calls.call(
            destination: Self.busName, path: Self.path, interface: InterfaceName("org.freedesktop.DBus.ObjectManager"),
            member: MemberName("GetManagedObjects"))
        var memos: [ObjectPath: [String: BusValue]] = [:]
        for object in try unwrap(reply.first?.dictionaryEntries, "GetManagedObjects answers a dictionary") {
            let path = try unwrap(object.key.objectPath, "GetManagedObjects's keys are object paths")
            let interfaces = try unwrap(object.value.dictionaryEntries, "each object's value is a dictionary")
            memos[path] = interfaces.first { $0.key.string == Self.memoInterface.rawValue }?.value.stringDictionary
        }
        return memos
    }

    /// Sets a memo's Title property.
    package func setMemoTitle(_ memo: ObjectPath, _ title: String) throws {
        try markBeforeCall()
        _ = try calls.call(
            destination: Self.busName, path: memo, interface: Self.properties, member: MemberName("Set"),
            arguments: [.string(Self.memoInterface.rawValue), .string(MemoMember.title.name), .variant(.string(title))])
    }

    /// One property of the memo object at `memo`.
    package func memoProperty(_ memo: ObjectPath, _ declaration: BusPropertyDeclaration) throws -> BusValue {
        let name = declaration.name
        let reply = try calls.call(
            destination: Self.busName, path: memo, interface: Self.properties, member: MemberName("Get"),
            arguments: [.string(Self.memoInterface.rawValue), .string(name)])
        return try unwrap(reply.first?.variant, "Get \(name) of \(memo) answers a variant, not \(reply)")
    }

    /// The recorder's `State`.
    package var state: String {
        get throws { try unwrap(property(RecorderMember.state).string, "State is a string") }
    }

    /// Waits until the memo in progress holds at least `seconds` of audio (`CurrentTime`):
    /// a recording's length as the daemon counts it, rather than a guess at how long that takes.
    package func waitUntilRecorded(_ seconds: Double, timeout: Duration = .seconds(30)) throws {
        try waitUntil("the memo in progress holds \(seconds) s", timeout: timeout, pollingEvery: .milliseconds(5)) {
            try recordedSeconds() >= seconds
        }
    }

    /// Waits until the memo in progress holds `seconds` more audio than it does now.
    package func waitUntilRecorded(further seconds: Double, timeout: Duration = .seconds(30)) throws {
        try waitUntilRecorded(recordedSeconds() + seconds, timeout: timeout)
    }

    /// The seconds of audio in the memo in progress (`CurrentTime`).
    package func recordedSeconds() throws -> Double {
        try unwrap(property(RecorderMember.currentTime).double, "CurrentTime is a double")
    }

    /// Returns the first signal named `member` satisfying `condition` that was emitted after
    /// `mark` (by default the one before the latest call through this proxy), reading signals
    /// until it comes; fails after `timeout`.
    @discardableResult
    package func waitForSignal(
        _ signal: BusSignalDeclaration, timeout: Duration = .seconds(5), after mark: SignalMark? = nil,
        where condition: (BusSignal) -> Bool = { _ in true }
    ) throws -> BusSignal {
        try waitForSignal(signal.name.rawValue, timeout: timeout, after: mark, where: condition)
    }

    /// `waitForSignal` by name, for the standard interfaces' signals (`PropertiesChanged`,
    /// `InterfacesAdded`), which the contract does not declare.
    @discardableResult
    package func waitForSignal(
        _ member: String, timeout: Duration = .seconds(5), after mark: SignalMark? = nil,
        where condition: (BusSignal) -> Bool = { _ in true }
    ) throws -> BusSignal {
        let start = min((mark ?? lastCallMark).index, received.count)
        if let seen = received[start...].first(where: { $0.member.rawValue == member && condition($0) }) {
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
    package func drainSignals(timeout: Duration = .milliseconds(200)) throws {
        while let signal = try signals.nextSignal(timeout: timeout) { received.append(signal) }
    }

    /// Reads every signal that comes within `duration` (however busy the recorder is).
    package func collectSignals(for duration: Duration) throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            guard let signal = try signals.nextSignal(timeout: deadline - ContinuousClock.now) else { break }
            received.append(signal)
        }
    }

    /// The `PropertiesChanged` signals received so far from the object at `path` for `interface`.
    package func propertiesChanged(
        on path: ObjectPath = VoiceMemoProxy.path, interface: InterfaceName = VoiceMemoProxy.interface
    ) -> [BusSignal] {
        received.filter {
            $0.member.rawValue == "PropertiesChanged" && $0.path == path
                && $0.arguments.first?.string == interface.rawValue
        }
    }

    /// The `State` values announced by `PropertiesChanged`, in order.
    package var announcedStates: [String] {
        received.compactMap { signal in
            guard signal.member.rawValue == "PropertiesChanged" else { return nil }
            return signal.arguments[1].stringDictionary?[RecorderMember.state.name]?.string
        }
    }

    /// The file of memo `path`: its id is the last path element, and the memo directory
    /// is the one place it can be.
    package func file(of memo: ObjectPath) throws -> URL {
        let id = String(memo.rawValue.split(separator: "/").last ?? "")
        let names = try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)
        let name = try unwrap(
            names.first { MemoNaming.memoID(forFileName: $0) == id },
            "a file for memo \(id) is among the \(names.count) in the memo directory")
        return memoDirectory.appendingPathComponent(name)
    }

    /// Every file in the memo directory but the daemon's hidden bookkeeping (the journal of
    /// recordings in progress).
    package var memoFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)) ?? []).filter { !$0.hasPrefix(".") }
            .sorted()
    }

    private func markBeforeCall() throws {
        if marksEachCall { lastCallMark = try markSignals() }
    }

    private func unwrap<Value>(_ value: Value?, _ expectation: @autoclosure () -> String) throws -> Value {
        guard let value else { throw FixtureError.unexpectedReply(expectation()) }
        return value
    }
}
