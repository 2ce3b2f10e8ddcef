import Bus
import Foundation
import IntegrationSupport
import VoiceMemoContract
import VoiceMemoCore

/// voicememod's recorder object as the benchmark drives it: blocking calls on one
/// private-bus connection, and a second connection that receives `RecordingFinished`.
final class RecorderClient {
    private static let busName = Contract.busName
    private static let path = Contract.recorderPath
    private static let interface = Contract.recorderInterface

    private let calls: BusConnection
    private let finishedSignals: BusConnection
    private let memoDirectory: URL

    /// Connects to the session bus of `session`.
    init(session: TestSession) throws {
        calls = try BusConnection.connect(address: session.busAddress)
        finishedSignals = try BusConnection.connect(address: session.busAddress)
        try finishedSignals.addMatch(
            "type='signal',interface='\(Self.interface.rawValue)',member='RecordingFinished'")
        memoDirectory = session.memoDirectory
    }

    /// Calls a method of the recorder and returns its reply.
    @discardableResult
    func call(_ member: String, _ arguments: [BusValue] = []) throws -> [BusValue] {
        try calls.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: MemberName(member),
            arguments: arguments)
    }

    /// Starts a memo in `format` with `channels` at 48 kHz and returns its object path.
    func record(format: String, channels: UInt32) throws -> ObjectPath {
        let options: [String: BusValue] = [
            "format": .string(format), "channels": .uint32(channels), "sample-rate": .uint32(48_000),
        ]
        return try memo(in: call("RecordWithOptions", [.stringDictionary(options)]))
    }

    /// The memo object path a `Record`, `RecordWithOptions` or `Stop` reply names.
    func memo(in reply: [BusValue]) throws -> ObjectPath {
        guard let memo = reply.first?.objectPath else {
            throw BenchmarkError.unexpected("the reply \(reply) names no memo")
        }
        return memo
    }

    /// Sets a property of the recorder, e.g. `Format`.
    func setProperty(_ name: String, _ value: BusValue) throws {
        _ = try calls.call(
            destination: Self.busName, path: Self.path, interface: InterfaceName("org.freedesktop.DBus.Properties"),
            member: MemberName("Set"), arguments: [.string(Self.interface.rawValue), .string(name), .variant(value)])
    }

    /// Reads a property of the recorder, e.g. `State`.
    func property(_ name: String) throws -> BusValue {
        let reply = try calls.call(
            destination: Self.busName, path: Self.path, interface: InterfaceName("org.freedesktop.DBus.Properties"),
            member: MemberName("Get"), arguments: [.string(Self.interface.rawValue), .string(name)])
        guard let value = reply.first?.variant else {
            throw BenchmarkError.unexpected("Get \(name) answered \(reply)")
        }
        return value
    }

    /// Waits for the next `RecordingFinished` and returns when it arrived.
    func waitForRecordingFinished(timeout: Duration = .seconds(10)) throws -> ContinuousClock.Instant {
        guard try finishedSignals.nextSignal(timeout: timeout) != nil else {
            throw BenchmarkError.unexpected("no RecordingFinished within \(timeout)")
        }
        return ContinuousClock.now
    }

    /// The file of `memo`: its id is the last path element, the memo directory the one place.
    func file(of memo: ObjectPath) throws -> URL {
        let id = String(memo.rawValue.split(separator: "/").last ?? "")
        let names = try FileManager.default.contentsOfDirectory(atPath: memoDirectory.path)
        guard let name = names.first(where: { MemoNaming.memoID(forFileName: $0) == id }) else {
            throw BenchmarkError.unexpected("no file for memo \(id) among \(names.count) files")
        }
        return memoDirectory.appendingPathComponent(name)
    }
}
