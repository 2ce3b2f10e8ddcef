import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// Issue 14: `make run` is the product's first impression. Its helper, `data/run-headless.sh`,
/// runs here as `make run` runs it on a machine with no session bus and no audio server: it
/// starts private ones, and a 4 s memo from its microphone must record cleanly.
///
/// The helper brings its own PulseAudio, so this class needs no fixture of its own.
final class MakeRunTests: XCTestCase {

    func testMakeRunHeadlessRecordsAFourSecondMemoWithoutAnInterruption() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-make-run-\(getpid())")
        let runtime = home.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: home) }
        let log = home.appendingPathComponent("make-run.log")

        // A desktop-less machine: no session bus, no audio server, nothing but PATH and a home.
        let script = try ChildProcess(
            "sh", [Checkout.root.appendingPathComponent("data/run-headless.sh").path],
            environment: [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": home.path,
                "XDG_RUNTIME_DIR": runtime.path, "BIN": BuildProducts.directory.path,
            ],
            standardOutput: .file(log), standardError: .file(log))
        var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        defer { if script.isRunning { _ = script.kill() } }

        try waitUntil("make run serves \(Contract.busName)", timeout: .seconds(20)) {
            if let ended = script.termination {
                throw FixtureError.exitedEarly("run-headless.sh", termination: ended, log: output)
            }
            return output.contains("voicememod: serving")
        }
        // "export DBUS_SESSION_BUS_ADDRESS=unix:path=/tmp/voicememo-run.XXXXXX/bus PULSE_SERVER=…"
        let exports = try XCTUnwrap(
            output.split(separator: "\n").first { $0.contains("export DBUS_SESSION_BUS_ADDRESS=") }, output)
        let address = try XCTUnwrap(exports.split(separator: " ").first { $0.hasPrefix("DBUS_SESSION_BUS_ADDRESS=") })
            .dropFirst("DBUS_SESSION_BUS_ADDRESS=".count)
        let privateDirectory = URL(fileURLWithPath: String(address.dropFirst("unix:path=".count)))
            .deletingLastPathComponent()
        XCTAssertTrue(output.contains("started a private PulseAudio"), output)

        let recorder = try VoiceMemoProxy(
            busAddress: String(address), memoDirectory: home.appendingPathComponent(".local/share/voicememo"))
        let memo = try recorder.recordWithOptions(["format": .string("wav"), "duration": .double(4)])
        let finished = try recorder.waitForSignal(RecorderMember.recordingFinished, timeout: .seconds(10)) {
            $0.arguments.first?.objectPath == memo
        }
        XCTAssertEqual(finished.arguments.last?.boolean, true, output)
        let hitches = recorder.received.filter {
            [RecorderMember.interruption.name, RecorderMember.routeChanged.name].contains($0.member)
        }
        XCTAssertEqual(hitches.map { "\($0.member) \($0.arguments.compactMap(\.string))" }, [], output)
        XCTAssertFalse(recorder.announcedStates.contains("interrupted"), "\(recorder.announcedStates)")

        let file = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(file.duration, 4, accuracy: 0.05)
        let tones = AudioAnalysis.tones(
            in: file.readFloats(), frequencies: [440], sampleRate: file.sampleRate, window: file.sampleRate / 100)
        XCTAssertEqual(tones.filter { $0 != 440 }.count, 0, "the 440 Hz microphone throughout, no gap")

        // SIGTERM, as a logout would: the helper stops the daemon and then its private servers,
        // each by the PID it kept.
        let servers = try ["bus.pid", "pulse.pid"].map { name in
            try XCTUnwrap(
                pid_t(
                    String(contentsOf: privateDirectory.appendingPathComponent(name), encoding: .utf8)
                        .trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        script.send(SIGTERM)
        let ended = try script.waitForExit(timeout: .seconds(10))
        XCTAssertEqual(ended, .exited(143), output)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: privateDirectory.path), "the private runtime directory is removed")
        try waitUntil("the private bus and PulseAudio have exited", timeout: .seconds(5)) {
            servers.allSatisfy { kill($0, 0) != 0 || Self.isZombie($0) }
        }
    }

    /// Whether `pid` has exited and waits for its parent (gone with the helper) to be reaped.
    private static func isZombie(_ pid: pid_t) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }
}
