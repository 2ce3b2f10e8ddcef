import Bus
import Foundation
import IntegrationSupport
import SoundFile
import Synchronization
import TestSupport
import VoiceMemoContract
import VoiceMemoCore
import XCTest

/// Nothing let in: whatever any program on the session bus sends, the daemon answers
/// properly and keeps its state; and only the session's user is served.
final class HostileInputTests: RecorderTestCase {

    /// Error names a well-behaved service may answer with.
    private static let properErrors: Set<String> = Set([
        ErrorName.unknownMethod.rawValue, ErrorName.unknownObject.rawValue,
        ErrorName.unknownInterface.rawValue, ErrorName.unknownProperty.rawValue,
        ErrorName.propertyReadOnly.rawValue, ErrorName.invalidArgs.rawValue,
    ]).union(ContractError.allCases.map(\.name.rawValue))

    /// Random values of every kind the contract uses and some it does not, nested, huge or odd.
    private struct Fuzzer {
        var random = SeededGenerator(seed: 0x5EED_2026)
        let keys = [
            "format", "sample-rate", "channels", "quality", "title", "source", "duration", "start-at",
            "stop-after-silence", "silence-threshold", "start-on-sound", "sound-threshold", "pre-roll", "system-audio",
            "channel-layout", "", "x",
        ]

        mutating func string() -> String {
            switch Int.random(in: 0..<8, using: &random) {
            case 0: return ""
            case 1: return String(repeating: "é", count: Int.random(in: 1000...100_000, using: &random))
            case 2:
                return ["opus", "flac", "wav", "vorbis", "mp3", "max", "min", "../../etc/passwd", "a/b"][
                    Int.random(in: 0..<9, using: &random)]
            case 3: return "\u{1B}[31m\t\n\r" + String(UnicodeScalar(UInt8.random(in: 1...31, using: &random)))
            case 4: return "🎙️ memo \(Int.random(in: 0...1_000_000, using: &random))"
            default:
                return String(
                    (0..<Int.random(in: 1...40, using: &random)).map { _ in
                        Character(UnicodeScalar(UInt8.random(in: 32...126, using: &random)))
                    })
            }
        }

        /// An a{sv} of contract option keys (and a few others) with random values.
        mutating func options() -> BusValue {
            let entries = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                BusDictionaryEntry(
                    key: .string(keys[Int.random(in: 0..<keys.count, using: &random)]), value: .variant(value(depth: 1))
                )
            }
            return .dictionary(keySignature: "s", valueSignature: "v", entries)
        }

        mutating func value(depth: Int = 0) -> BusValue {
            switch Int.random(in: 0..<(depth > 2 ? 8 : 12), using: &random) {
            case 0: return .string(string())
            case 1:
                return .uint32(
                    [0, 1, 2, 7, 8000, 44100, 48000, 192000, 192001, .max][Int.random(in: 0..<10, using: &random)])
            case 2:
                return .int64(
                    [Int64.min, -1, 0, Int64(Date().timeIntervalSince1970) + 1, .max][
                        Int.random(in: 0..<5, using: &random)])
            case 3:
                return .double(
                    [.nan, .infinity, -.infinity, -1, 0, 0.05, 1, 30, 1e300][Int.random(in: 0..<9, using: &random)])
            case 4: return .boolean(Bool.random(using: &random))
            case 5: return .byte(UInt8.random(in: 0...255, using: &random))
            case 6:
                return .objectPath(
                    ObjectPath(
                        ["/", Contract.recorderPath.rawValue, "/x/y", Contract.memoPath(id: "none").rawValue][
                            Int.random(in: 0..<4, using: &random)]))
            case 7: return .int32(Int32.random(in: .min ... .max, using: &random))
            case 8: return .variant(value(depth: depth + 1))
            case 9:
                let count = Bool.random(using: &random) ? Int.random(in: 0...5, using: &random) : 20_000
                return .array(
                    elementSignature: "u", (0..<count).map { _ in .uint32(UInt32.random(in: 0...9, using: &random)) })
            case 10:
                return options()
            default:
                return .structure((0..<Int.random(in: 1...3, using: &random)).map { _ in value(depth: depth + 1) })
            }
        }
    }

    // 4. Thousands of randomized calls: every one answered, the daemon alive and consistent.
    func testFuzzedCallsAreAllAnsweredAndTheDaemonSurvives() throws {
        var fuzzer = Fuzzer()
        let connection = try BusConnection.connect(address: fixture.session.busAddress)
        let interfaces = [
            Contract.recorderInterface.rawValue, Contract.memoInterface.rawValue, "org.freedesktop.DBus.Properties",
            "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.ObjectManager", "org.freedesktop.DBus.Peer",
            "org.example.Nope",
        ]
        let members = [
            "Record", "RecordWithOptions", "Pause", "Resume", "Stop", "Cancel", "Toggle", "StopPlayback", "GetLevels",
            "Get", "GetAll", "Set", "Introspect", "GetManagedObjects", "Play", "Rename", "Delete", "Peaks", "Ping",
            "Nope",
        ]
        let properties = [
            "State", "Format", "SampleRate", "Channels", "Quality", "Source", "MeteringEnabled", "Title", "Nope", "",
        ]
        let realMembers: [(interface: String, member: String, isMemo: Bool)] =
            [
                "Record", "RecordWithOptions", "RecordWithOptions", "RecordWithOptions", "Pause", "Resume", "Stop",
                "Cancel", "Toggle",
                "StopPlayback", "GetLevels",
            ].map { (Contract.recorderInterface.rawValue, $0, false) }
            + ["Get", "GetAll", "Set", "Set", "Set"].map { ("org.freedesktop.DBus.Properties", $0, false) }
            + ["Get", "Set"].map { ("org.freedesktop.DBus.Properties", $0, true) }
            + ["Play", "Rename", "Rename", "Delete", "Peaks", "Peaks"].map {
                (Contract.memoInterface.rawValue, $0, true)
            }
            + [
                ("org.freedesktop.DBus.ObjectManager", "GetManagedObjects", false),
                ("org.freedesktop.DBus.Introspectable", "Introspect", false),
            ]
        var errors: [String: Int] = [:]
        let calls = 5000
        for index in 0..<calls {
            let memoPaths = recorder.memoFiles.prefix(2).map {
                Contract.memoPath(id: MemoNaming.memoID(forFileName: $0)).rawValue
            }
            let paths =
                [
                    Contract.recorderPath.rawValue, Contract.recorderPath.rawValue, "/", "/org/example",
                    Contract.memoPath(id: "x").rawValue,
                ] + memoPaths
            // Mostly a real member on its own interface and path, so the handlers (not only
            // the routing) see the random values; sometimes anything at all.
            let pair =
                Int.random(in: 0..<4, using: &fuzzer.random) > 0
                ? realMembers.randomElement(using: &fuzzer.random) : nil
            let member = pair?.member ?? members[Int.random(in: 0..<members.count, using: &fuzzer.random)]
            var arguments = (0..<Int.random(in: 0...3, using: &fuzzer.random)).map { _ in fuzzer.value() }
            if ["Get", "Set", "GetAll"].contains(member), Bool.random(using: &fuzzer.random) {
                // Well-formed property calls, so the setters' validation is reached too.
                arguments = [
                    .string(interfaces[Int.random(in: 0..<2, using: &fuzzer.random)]),
                    .string(properties[Int.random(in: 0..<properties.count, using: &fuzzer.random)]),
                ]
                if member == "Set" { arguments.append(.variant(fuzzer.value(depth: 1))) }
                if member == "GetAll" { arguments.removeLast() }
            }
            if member == "RecordWithOptions", Bool.random(using: &fuzzer.random) {
                arguments = [fuzzer.options()]
            }
            do {
                _ = try connection.call(
                    destination: Contract.busName,
                    path: ObjectPath(
                        pair.map { $0.isMemo ? (memoPaths.first ?? paths[0]) : paths[0] }
                            ?? paths[Int.random(in: 0..<paths.count, using: &fuzzer.random)]),
                    interface: InterfaceName(
                        pair?.interface ?? interfaces[Int.random(in: 0..<interfaces.count, using: &fuzzer.random)]),
                    member: MemberName(member), arguments: arguments, timeout: .seconds(5))
            } catch {
                errors[error.name.rawValue, default: 0] += 1
                XCTAssertTrue(Self.properErrors.contains(error.name.rawValue), "call \(index) \(member): \(error)")
                if !Self.properErrors.contains(error.name.rawValue) { break }
            }
        }
        print("fuzz: \(calls) calls; errors by name: \(errors.sorted { $0.key < $1.key })")
        XCTAssertTrue(daemon.isRunning, "the daemon survived: \(daemon.log.suffix(2000))")

        // The state machine is still sound: end whatever the fuzz left open, then record.
        let state = try recorder.state
        XCTAssertTrue(["idle", "scheduled", "recording", "paused"].contains(state), state)
        if state != "idle" { try recorder.call(RecorderMember.cancel) }
        XCTAssertEqual(try recorder.state, "idle")
        for (name, value) in [
            (RecorderMember.format, BusValue.string("wav")), (RecorderMember.sampleRate, .uint32(48000)),
            (RecorderMember.channels, .uint32(1)), (RecorderMember.source, .string("")),
        ] {
            try recorder.setProperty(name, value)
        }
        let memo = try XCTUnwrap(recorder.call(RecorderMember.record).first?.objectPath)
        try recorder.waitUntilRecorded(0.5)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, 0.5, accuracy: 0.15)
    }

    // 5. Twenty clients at once for ten seconds: only contract errors, every call within a second.
    func testTwentyConcurrentClientsAreAllServedPromptly() throws {
        let address = fixture.session.busAddress
        let failures = Mutex<[String]>([])
        let slowest = Mutex<Duration>(.zero)
        let count = Mutex(0)
        let deadline = ContinuousClock.now + .seconds(10)
        DispatchQueue.concurrentPerform(iterations: 20) { client in
            do {
                let connection = try BusConnection.connect(address: address)
                var random = SeededGenerator(seed: UInt64(client + 1) * 7919)
                while ContinuousClock.now < deadline {
                    let (interface, member, arguments): (String, String, [BusValue]) =
                        switch Int.random(in: 0..<10, using: &random) {
                        case 0: (Contract.recorderInterface.rawValue, "Toggle", [])
                        case 1: (Contract.recorderInterface.rawValue, "GetLevels", [])
                        case 2:
                            (
                                "org.freedesktop.DBus.Properties", "GetAll",
                                [.string(Contract.recorderInterface.rawValue)]
                            )
                        case 3: ("org.freedesktop.DBus.Introspectable", "Introspect", [])
                        case 4: (Contract.recorderInterface.rawValue, "Pause", [])
                        case 5: ("org.freedesktop.DBus.ObjectManager", "GetManagedObjects", [])
                        default:
                            (
                                "org.freedesktop.DBus.Properties", "Get",
                                [.string(Contract.recorderInterface.rawValue), .string("State")]
                            )
                        }
                    let started = ContinuousClock.now
                    do {
                        _ = try connection.call(
                            destination: Contract.busName, path: Contract.recorderPath,
                            interface: InterfaceName(interface), member: MemberName(member), arguments: arguments,
                            timeout: .seconds(5))
                    } catch let error as BusError where Self.properErrors.contains(error.name.rawValue) {
                        // the contract's answer, e.g. NotRecording for Pause while idle
                    } catch {
                        failures.withLock { $0.append("\(member): \(error)") }
                    }
                    let took = ContinuousClock.now - started
                    slowest.withLock { $0 = max($0, took) }
                    count.withLock { $0 += 1 }
                }
            } catch {
                failures.withLock { $0.append("connect: \(error)") }
            }
        }
        print("concurrency: \(count.withLock { $0 }) calls from 20 clients in 10 s; slowest \(slowest.withLock { $0 })")
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertLessThan(slowest.withLock { $0 }, .seconds(1), "no call waited a second")
        XCTAssertTrue(daemon.isRunning)
        if try recorder.state != "idle" { try recorder.call(RecorderMember.stop) }
        XCTAssertEqual(try recorder.state, "idle")
        for name in recorder.memoFiles {
            XCTAssertNoThrow(
                try SoundFileReader(path: fixture.session.memoDirectory.appendingPathComponent(name).path), name)
        }
    }

    // 7. A caller that is not the session's user is refused and nothing is recorded.
    func testAnotherUnixUserIsRefused() throws {
        // A second private bus whose socket any user can reach and whose policy admits anyone.
        let socket = "voicememo-shared-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let configuration = fixture.session.root.appendingPathComponent("shared-bus.conf")
        try SessionBusConfiguration.document(socketPath: "IGNORED")
            .replacingOccurrences(of: "unix:path=IGNORED", with: "unix:abstract=\(socket)")
            .write(to: configuration, atomically: true, encoding: .utf8)
        let bus = try fixture.session.launch(
            "dbus-daemon", ["--nofork", "--config-file=\(configuration.path)"], logName: "shared-bus")
        defer { _ = bus.terminate() }
        let address = "unix:abstract=\(socket)"
        try waitUntil("the shared bus answers", timeout: .seconds(5)) {
            try fixture.session.run("busctl", ["--address=\(address)", "status"]).succeeded
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
        let shared = try fixture.session.launch(
            BuildProducts.voicememod().path, [], logName: "shared-daemon",
            environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        defer { _ = shared.terminate() }
        try waitUntil("voicememod owns its name on the shared bus", timeout: .seconds(10)) {
            try fixture.session.run(
                "busctl",
                [
                    "--address=\(address)", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus",
                    "NameHasOwner", "s", Contract.busName.rawValue,
                ]
            ).stdout.contains("true")
        }

        let asNobody = try fixture.session.run(
            "setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", "dbus-send", "--bus=\(address)", "--print-reply",
                "--dest=\(Contract.busName)", Contract.recorderPath.rawValue, "\(Contract.recorderInterface).Record",
            ])
        XCTAssertNotEqual(asNobody.status, 0)
        XCTAssertTrue(asNobody.stderr.contains(ErrorName.accessDenied.rawValue), "\(asNobody)")
        XCTAssertEqual(recorder.memoFiles, [], "nothing was recorded")

        let asOwner = try fixture.session.run(
            "dbus-send",
            [
                "--bus=\(address)", "--print-reply", "--dest=\(Contract.busName)", Contract.recorderPath.rawValue,
                "org.freedesktop.DBus.Properties.Get", "string:\(Contract.recorderInterface)", "string:State",
            ])
        XCTAssertEqual(asOwner.status, 0, "the session's own user is served: \(asOwner)")
        XCTAssertTrue(asOwner.stdout.contains("\"idle\""), asOwner.stdout)
    }
}
