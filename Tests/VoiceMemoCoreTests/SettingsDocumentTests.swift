import FoundationEssentials
import Glibc
import Testing
import VoiceMemoCore

@Suite("settings.json read back")
struct SettingsDocumentTests {
    /// A value that must not be used, the key it is under, and what the log line must say.
    struct BadValue: CustomTestStringConvertible, Sendable {
        let key: String
        let json: String
        let says: String
        var testDescription: String { "\(key): \(json.prefix(40))" }
    }

    static let badValues: [BadValue] = [
        BadValue(key: "sampleRate", json: "0", says: "between 8000 and 192000 Hz; got 0"),
        BadValue(key: "sampleRate", json: "4294967295", says: "got 4294967295"),
        BadValue(key: "sampleRate", json: "4294967296", says: "whole number from 8000 to 192000"),
        BadValue(key: "sampleRate", json: "-48000", says: "got -48000"),
        BadValue(key: "sampleRate", json: "44100.5", says: "got 44100.5"),
        BadValue(key: "sampleRate", json: "1e300", says: "got 1e+300"),
        BadValue(key: "sampleRate", json: "1e400", says: "is malformed"),
        BadValue(key: "sampleRate", json: "\"48000\"", says: "must be a number"),
        BadValue(key: "sampleRate", json: "null", says: "must be a number"),
        BadValue(key: "channels", json: "300", says: "must be 1 (mono) or 2 (stereo); got 300"),
        BadValue(key: "channels", json: "0", says: "got 0"),
        BadValue(key: "channels", json: "[1]", says: "must be a number"),
        BadValue(key: "format", json: "\"aiff\"", says: "must be one of opus, flac, wav, vorbis, mp3; got 'aiff'"),
        BadValue(key: "format", json: "\"\"", says: "got ''"),
        BadValue(key: "format", json: "3", says: "must be a string"),
        BadValue(key: "format", json: "\"\(String(repeating: "x", count: 100_000))\"", says: "…"),
        BadValue(key: "quality", json: "\"ultra\\n\"", says: "got 'ultra\\n'"),
        BadValue(key: "quality", json: "{}", says: "must be a string"),
        BadValue(
            key: "source", json: "\"\(String(repeating: "é", count: 10_000))\"", says: "'source' must be a source name"),
        BadValue(key: "source", json: "\"mic\\u0007\"", says: "'source' must be a source name"),
        BadValue(key: "source", json: "false", says: "must be a string"),
        BadValue(key: "source", json: #""\ud800""#, says: "is malformed"),
        BadValue(key: "isMeteringEnabled", json: "1", says: "must be true or false"),
        BadValue(key: "areNotificationsEnabled", json: "\"yes\"", says: "must be true or false"),
        BadValue(key: "resumeAfterSleep", json: "null", says: "must be true or false"),
        BadValue(key: "isTrayEnabled", json: "0", says: "must be true or false"),
        BadValue(key: "skipsSilence", json: "\"on\"", says: "must be true or false"),
        BadValue(key: "noiseSuppression", json: "1", says: "must be true or false"),
        BadValue(key: "autoGain", json: "null", says: "must be true or false"),
        BadValue(key: "playbackRate", json: "3", says: "'playbackRate' must be a speed from 0.5 (half) to 2.0"),
        BadValue(key: "playbackRate", json: "0", says: "got 0.0"),
        BadValue(key: "playbackRate", json: "-1.5", says: "got -1.5"),
        BadValue(key: "playbackRate", json: "0.49", says: "got 0.49"),
        BadValue(key: "playbackRate", json: "1e400", says: "is malformed"),
        BadValue(key: "playbackRate", json: "\"1.5\"", says: "must be a number"),
        BadValue(key: "playbackRate", json: "null", says: "must be a number"),
        BadValue(key: "systemAudio", json: "\"true\"", says: "must be true or false"),
        BadValue(key: "systemAudio", json: "1", says: "must be true or false"),
        BadValue(key: "transcribeNewMemos", json: "\"true\"", says: "must be true or false"),
        BadValue(key: "transcriptionModel", json: "\"../tiny.en\"", says: "must be a model name such as tiny.en"),
        BadValue(key: "transcriptionModel", json: "\"\"", says: "must be a model name"),
        BadValue(key: "transcriptionModel", json: "7", says: "must be a string"),
        BadValue(key: "reconnectTimeout", json: "1e300", says: "from 0 to a week"),
        BadValue(key: "reconnectTimeout", json: "-1", says: "got -1.0"),
        BadValue(key: "reconnectTimeout", json: "604801", says: "got 604801.0"),
        BadValue(key: "reconnectTimeout", json: "1e400", says: "is malformed"),
        BadValue(key: "reconnectTimeout", json: "\"60\"", says: "must be a number"),
    ]

    /// The other keys, all valid and not the defaults, so a bad value must not spoil them.
    static let goodValues: [String: String] = [
        "format": "\"flac\"", "sampleRate": "44100", "channels": "2", "quality": "\"high\"", "source": "\"mic\"",
        "isMeteringEnabled": "true", "areNotificationsEnabled": "true", "reconnectTimeout": "5",
        "resumeAfterSleep": "false", "isTrayEnabled": "false", "skipsSilence": "true",
        "playbackRate": "1.5", "systemAudio": "true", "noiseSuppression": "true", "autoGain": "true",
        "transcribeNewMemos": "true", "transcriptionModel": "\"/opt/models/small\"",
    ]

    static func document(_ values: [String: String]) -> SettingsDocument {
        let members = values.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
        return SettingsDocument(data: Data(("{" + members.joined(separator: ", ") + "}").utf8))
    }

    static var goodDefaults: RecorderDefaults {
        var defaults = RecorderDefaults()
        defaults.format = .flac
        defaults.sampleRate = 44100
        defaults.channels = 2
        defaults.quality = .high
        defaults.source = "mic"
        defaults.isMeteringEnabled = true
        defaults.areNotificationsEnabled = true
        defaults.reconnectTimeout = 5
        defaults.resumeAfterSleep = false
        defaults.isTrayEnabled = false
        defaults.skipsSilence = true
        defaults.playbackRate = 1.5
        defaults.systemAudio = true
        defaults.noiseSuppression = true
        defaults.autoGain = true
        defaults.transcribeNewMemos = true
        defaults.transcriptionModel = "/opt/models/small"
        return defaults
    }

    @Test func validValuesAreAllUsedWithoutComplaint() {
        let document = Self.document(Self.goodValues)
        #expect(document.problems == [])
        #expect(document.defaults == Self.goodDefaults)
    }

    @Test func aMissingKeyKeepsItsDefaultSilently() {
        let document = SettingsDocument(data: Data(#"{"channels": 2}"#.utf8))
        #expect(document.problems == [])
        var expected = RecorderDefaults()
        expected.channels = 2
        #expect(document.defaults == expected)
    }

    @Test(arguments: badValues)
    func aBadValueFallsBackToItsDefaultAndIsReportedOnce(bad: BadValue) throws {
        var values = Self.goodValues
        values[bad.key] = bad.json
        let document = Self.document(values)

        #expect(document.problems.count == 1, "\(document.problems)")
        let problem = try #require(document.problems.first)
        #expect(problem.key == bad.key)
        #expect(problem.message.hasPrefix("'\(bad.key)' "), "\(problem.message)")
        #expect(problem.message.contains(bad.says), "\(problem.message)")
        #expect(problem.message.contains("using the default"), "\(problem.message)")
        #expect(!problem.message.contains("\n"), "one log line")
        #expect(problem.message.count < 300, "a hostile value is not copied into the log whole")

        // Only that key went back to its default.
        var expected = Self.goodDefaults
        switch bad.key {
        case "format": expected.format = RecorderDefaults().format
        case "sampleRate": expected.sampleRate = RecorderDefaults().sampleRate
        case "channels": expected.channels = RecorderDefaults().channels
        case "quality": expected.quality = RecorderDefaults().quality
        case "source": expected.source = RecorderDefaults().source
        case "isMeteringEnabled": expected.isMeteringEnabled = RecorderDefaults().isMeteringEnabled
        case "areNotificationsEnabled": expected.areNotificationsEnabled = RecorderDefaults().areNotificationsEnabled
        case "reconnectTimeout": expected.reconnectTimeout = RecorderDefaults().reconnectTimeout
        case "resumeAfterSleep": expected.resumeAfterSleep = RecorderDefaults().resumeAfterSleep
        case "isTrayEnabled": expected.isTrayEnabled = RecorderDefaults().isTrayEnabled
        case "skipsSilence": expected.skipsSilence = RecorderDefaults().skipsSilence
        case "playbackRate": expected.playbackRate = RecorderDefaults().playbackRate
        case "systemAudio": expected.systemAudio = RecorderDefaults().systemAudio
        case "noiseSuppression": expected.noiseSuppression = RecorderDefaults().noiseSuppression
        case "autoGain": expected.autoGain = RecorderDefaults().autoGain
        case "transcribeNewMemos": expected.transcribeNewMemos = RecorderDefaults().transcribeNewMemos
        case "transcriptionModel": expected.transcriptionModel = RecorderDefaults().transcriptionModel
        default: Issue.record("no such key \(bad.key)")
        }
        #expect(document.defaults == expected)
    }

    @Test func everyBadValueAtOnceIsEachReportedByKey() {
        let firstBadValuePerKey = Dictionary(Self.badValues.map { ($0.key, $0.json) }) { first, _ in first }
        let document = Self.document(firstBadValuePerKey)
        #expect(document.defaults == RecorderDefaults())
        #expect(document.problems.compactMap(\.key).sorted() == firstBadValuePerKey.keys.sorted())
    }

    /// Files that are not a JSON object at all: the built-in defaults and one line for the file.
    @Test(arguments: [
        "", "{", #"{"format": "flac", "sampleRate": 4410"#, "[]", "null", "42", #""settings""#, "{format: flac}",
        #"{"sampleRate": NaN}"#, String(repeating: "[", count: 100_000), "\u{FEFF}\u{0}\u{FFFF}",
    ])
    func anUnusableFileGivesTheBuiltInDefaults(text: String) throws {
        let document = SettingsDocument(data: Data(text.utf8))
        #expect(document.defaults == RecorderDefaults())
        #expect(document.problems.count == 1)
        let problem = try #require(document.problems.first)
        #expect(problem.key == nil)
        #expect(problem.message.hasSuffix("using the built-in defaults"))
    }

    @Test func unknownKeysAreIgnored() {
        let document = SettingsDocument(data: Data(#"{"colour": "red", "sampleRate": 16000}"#.utf8))
        #expect(document.problems == [])
        #expect(document.defaults.sampleRate == 16000)
    }

    /// `playbackRate` is saved under that key, read back, and takes both ends of its range.
    @Test(arguments: [0.5, 1, 1.25, 2])
    func playbackRateRoundTrips(rate: Double) throws {
        var defaults = RecorderDefaults()
        defaults.playbackRate = rate
        let data = try JSONEncoder().encode(defaults)
        #expect(String(decoding: data, as: UTF8.self).contains("\"playbackRate\":"))
        let document = SettingsDocument(data: data)
        #expect(document.problems == [] && document.defaults == defaults)
        #expect(RecorderDefaults().playbackRate == 1, "as recorded by default")
    }

    /// `systemAudio` is saved under that key (which a hand-edited file uses) and read back.
    @Test(arguments: [false, true])
    func systemAudioRoundTrips(isOn: Bool) throws {
        var defaults = RecorderDefaults()
        defaults.systemAudio = isOn
        let data = try JSONEncoder().encode(defaults)
        #expect(String(decoding: data, as: UTF8.self).contains("\"systemAudio\":\(isOn)"))
        let document = SettingsDocument(data: data)
        #expect(document.problems == [] && document.defaults == defaults)
        #expect(SettingsDocument(data: Data(#"{"systemAudio": true}"#.utf8)).defaults.systemAudio)
    }
}
