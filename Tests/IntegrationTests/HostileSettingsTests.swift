import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import XCTest

/// Whatever is in `settings.json`, the daemon starts, serves only values within the
/// contract, says in its log which keys it did not use, and records.
final class HostileSettingsTests: RecorderTestCase {

    /// A settings file's content, and the keys whose values must be refused (nil: the whole file).
    private struct HostileFile {
        let name: String
        let content: String
        let refusedKeys: [String]?
        /// What the daemon must serve: the file's good values, defaults for the rest.
        var format = "opus"
        var channels: UInt32 = 1
        var quality = "medium"
    }

    private static let files: [HostileFile] = [
        HostileFile(
            name: "out of range",
            content:
                #"{"sampleRate": 4294967295, "channels": 300, "reconnectTimeout": 1e300, "format": "wav", "quality": "max", "playbackRate": 99}"#,
            refusedKeys: ["channels", "playbackRate", "reconnectTimeout", "sampleRate"], format: "wav",
            quality: "max"),
        HostileFile(
            name: "zero rate, unknown names",
            content: #"{"sampleRate": 0, "format": "aiff", "quality": "ultra", "channels": 2}"#,
            refusedKeys: ["format", "quality", "sampleRate"], channels: 2),
        HostileFile(
            name: "wrong types",
            content:
                #"{"format": 3, "quality": ["max"], "source": {"name": "mic"}, "sampleRate": "16000", "channels": true, "isMeteringEnabled": "yes", "resumeAfterSleep": 0, "areNotificationsEnabled": null, "playbackRate": "fast"}"#,
            refusedKeys: [
                "areNotificationsEnabled", "channels", "format", "isMeteringEnabled", "playbackRate", "quality",
                "resumeAfterSleep", "sampleRate", "source",
            ]),
        HostileFile(
            name: "unrepresentable numbers",
            content:
                #"{"sampleRate": 1e400, "channels": -1e-400, "reconnectTimeout": -1e308, "format": "flac", "sampleRate ": 8, "playbackRate": -1e400}"#,
            refusedKeys: ["channels", "playbackRate", "reconnectTimeout", "sampleRate"], format: "flac"),
        HostileFile(
            name: "huge strings",
            content: #"{"format": "wav"# + String(repeating: "v", count: 20_000) + #"", "source": ""#
                + String(repeating: "é", count: 15_000) + #"", "quality": "low"}"#,
            refusedKeys: ["format", "source"], quality: "low"),
        HostileFile(name: "truncated", content: #"{"format": "flac", "sampleRate": 4410"#, refusedKeys: nil),
        HostileFile(name: "not an object", content: #"["opus", 48000, 1]"#, refusedKeys: nil),
        HostileFile(name: "too large", content: "{" + String(repeating: " ", count: 70_000) + "}", refusedKeys: nil),
    ]

    private var settingsFile: URL { fixture.session.settingsFile }

    // Each file in turn: a daemon that starts, keeps to the contract, logs each refused key
    // once, and records a real file with what it serves.
    func testHostileSettingsFilesFallBackToDefaultsAndTheDaemonRecords() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        for file in Self.files {
            try fixture.session.writeSettings(file.content)
            let served = try assertServesTheContractAndRecords(file.name, refusedKeys: file.refusedKeys)
            XCTAssertEqual(served.format, file.format, file.name)
            XCTAssertEqual(served.channels, file.channels, file.name)
            XCTAssertEqual(served.quality, file.quality, file.name)
            XCTAssertEqual(served.sampleRate, 48000, "\(file.name): no file here has a good rate")
        }
    }

    // A directory where the file should be is reported, not fatal.
    func testADirectoryInsteadOfTheFileIsReportedAndIgnored() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        try FileManager.default.createDirectory(at: settingsFile, withIntermediateDirectories: true)
        let served = try assertServesTheContractAndRecords("a directory", refusedKeys: nil, savesSettings: false)
        XCTAssertEqual(served.format, "opus")
    }

    // A reconnect timeout no timer can hold used to trap when the server went away.
    func testAnAbsurdReconnectTimeoutSurvivesALostServer() throws {
        XCTAssertEqual(daemon.stop(), .exited(0))
        try fixture.session.writeSettings(#"{"reconnectTimeout": 1e300}"#)
        let patient = try fixture.launchDaemon()
        defer { _ = patient.stop() }

        let memo = try recorder.recordWithOptions(["format": .string("wav")])
        try recorder.waitUntilRecorded(0.5)
        let beforeKill = try recorder.markSignals()
        fixture.audioServer.kill()
        try recorder.waitForSignal(RecorderMember.interruption, timeout: .seconds(3), after: beforeKill) {
            $0.arguments.first?.string == "began"
        }
        // The trap came as the reconnect was scheduled, in the same turn of the daemon's queue
        // that sent the Interruption signal: a call made after that signal is answered after it.
        XCTAssertEqual(try recorder.state, "interrupted")
        XCTAssertTrue(patient.isRunning, "the daemon is alive after the server went away: \(patient.log)")
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, memo)
        let finished = try SoundFileReader(path: recorder.file(of: memo).path)
        XCTAssertEqual(finished.duration, 0.5, accuracy: 0.15)
        XCTAssertTrue(
            patient.log.contains("settings.json: 'reconnectTimeout' must be a number of seconds from 0 to a week"),
            patient.log)
    }

    /// Starts a daemon on the settings file in place and checks it; returns what it served.
    @discardableResult
    private func assertServesTheContractAndRecords(
        _ name: String, refusedKeys: [String]?, savesSettings: Bool = true
    ) throws -> (format: String, sampleRate: UInt32, channels: UInt32, quality: String) {
        let daemon = try fixture.launchDaemon()
        defer { _ = daemon.stop() }

        let properties = try allProperties()
        let rate = try XCTUnwrap(properties[RecorderMember.sampleRate.name]?.uint32, name)
        let channels = try XCTUnwrap(properties[RecorderMember.channels.name]?.uint32, name)
        let format = try XCTUnwrap(properties[RecorderMember.format.name]?.string, name)
        XCTAssertTrue((8000...192000).contains(rate), "\(name): SampleRate \(rate)")
        XCTAssertTrue([1, 2].contains(channels), "\(name): Channels \(channels)")
        XCTAssertTrue(["opus", "flac", "wav", "vorbis", "mp3"].contains(format), "\(name): Format \(format)")
        XCTAssertTrue(
            ["min", "low", "medium", "high", "max"].contains(properties[RecorderMember.quality.name]?.string ?? ""),
            "\(name): \(properties)")
        XCTAssertEqual(
            properties[RecorderMember.playbackRate.name], .double(1), "\(name): no file here has a good playback rate")
        let source = try XCTUnwrap(properties[RecorderMember.source.name]?.string, "\(name): Source is a string")
        XCTAssertEqual(source, "", "\(name): no hostile file here names a usable source")

        // One log line per refused key (or one for the file), each naming it.
        let complaints = daemon.log.split(separator: "\n").filter { $0.contains("settings.json: ") }
        if let refusedKeys {
            let named = complaints.compactMap { line in refusedKeys.first { line.contains("settings.json: '\($0)' ") } }
            XCTAssertEqual(named.sorted(), refusedKeys, "\(name): \(complaints)")
            XCTAssertEqual(complaints.count, refusedKeys.count, "\(name): \(complaints)")
        } else {
            XCTAssertEqual(complaints.count, 1, "\(name): \(complaints)")
            XCTAssertTrue(complaints.first?.hasSuffix("using the built-in defaults") ?? false, "\(name): \(complaints)")
        }
        XCTAssertTrue(complaints.allSatisfy { $0.count < 400 }, "\(name): the log is not flooded")

        let memo = try recorder.call(RecorderMember.record).first?.objectPath
        let recording = try XCTUnwrap(memo, name)
        try recorder.waitUntilRecorded(0.4)
        XCTAssertEqual(try recorder.call(RecorderMember.stop).first?.objectPath, recording, name)
        let file = try SoundFileReader(path: recorder.file(of: recording).path)
        XCTAssertEqual(file.sampleRate, Int(rate), name)
        XCTAssertEqual(file.channelCount, Int(channels), name)
        XCTAssertEqual(file.duration, 0.4, accuracy: 0.15, name)
        XCTAssertEqual(file.format?.rawValue, format, name)
        XCTAssertTrue(daemon.isRunning, name)

        // A property write replaces the bad file with a good one.
        if savesSettings {
            try recorder.setProperty(RecorderMember.channels, .uint32(channels == 1 ? 2 : 1))
            let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: settingsFile)) as? [String: Any]
            XCTAssertEqual(saved?["channels"] as? Int, channels == 1 ? 2 : 1, name)
            XCTAssertEqual(saved?["sampleRate"] as? Int, Int(rate), name)
        }
        return (format, rate, channels, properties[RecorderMember.quality.name]?.string ?? "")
    }

    private func allProperties() throws -> [String: BusValue] {
        var properties: [String: BusValue] = [:]
        for property in [
            RecorderMember.sampleRate, RecorderMember.channels, RecorderMember.format, RecorderMember.quality,
            RecorderMember.source, RecorderMember.playbackRate,
        ] {
            properties[property.name] = try recorder.property(property)
        }
        return properties
    }
}
