import FoundationEssentials
import Glibc
import Testing
import VoiceMemoCore
import VoiceMemoRuntime

@Suite("settings.json on disk")
struct SettingsStoreTests {
    /// Defaults with no field left at its built-in value, so a field the file drops shows.
    static var everyFieldChanged: RecorderDefaults {
        var defaults = RecorderDefaults()
        defaults.format = .opus
        defaults.sampleRate = 16000
        defaults.channels = 2
        defaults.quality = .low
        defaults.source = "alsa_input.usb-mic"
        defaults.isMeteringEnabled = !defaults.isMeteringEnabled
        defaults.areNotificationsEnabled = !defaults.areNotificationsEnabled
        defaults.reconnectTimeout = 12
        defaults.resumeAfterSleep = !defaults.resumeAfterSleep
        defaults.isTrayEnabled = !defaults.isTrayEnabled
        defaults.skipsSilence = !defaults.skipsSilence
        defaults.systemAudio = !defaults.systemAudio
        return defaults
    }

    @Test func whatIsSavedReadsBackUnchanged() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "voicememo-settings-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = SettingsStore(directory: directory)
        try store.save(Self.everyFieldChanged)
        var problems: [SettingsProblem] = []
        #expect(store.load { problems.append($0) } == Self.everyFieldChanged)
        #expect(problems == [])
    }

    /// What is at the path: missing (silent), a directory, too large, a FIFO (which a plain
    /// read would block on forever).
    @Test func onlyARegularFileOfSaneSizeIsRead() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "voicememo-settings-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = SettingsStore(directory: directory)
        func load() -> (RecorderDefaults, [SettingsProblem]) {
            var problems: [SettingsProblem] = []
            let defaults = store.load { problems.append($0) }
            return (defaults, problems)
        }

        var (defaults, problems) = load()
        #expect(defaults == RecorderDefaults() && problems == [], "nothing saved yet")

        try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: false)
        (defaults, problems) = load()
        #expect(defaults == RecorderDefaults())
        #expect(problems.map(\.message) == ["is not a regular file; using the built-in defaults"])
        try FileManager.default.removeItem(atPath: store.path)

        let padding = String(repeating: " ", count: SettingsStore.maximumFileSize)
        try Data((#"{"channels": 2}"# + padding).utf8).write(to: URL(filePath: store.path))
        (defaults, problems) = load()
        #expect(defaults == RecorderDefaults())
        #expect(problems.map(\.message) == ["is larger than 64 KiB; using the built-in defaults"])
        try FileManager.default.removeItem(atPath: store.path)

        try #require(mkfifo(store.path, 0o600) == 0)
        (defaults, problems) = load()
        #expect(defaults == RecorderDefaults())
        #expect(problems.map(\.message) == ["is not a regular file; using the built-in defaults"])
        try FileManager.default.removeItem(atPath: store.path)

        // A symlink to a good file (dotfile managers make those) is followed.
        let real = directory + "/real.json"
        try Data(#"{"channels": 2}"#.utf8).write(to: URL(filePath: real))
        try FileManager.default.createSymbolicLink(atPath: store.path, withDestinationPath: real)
        (defaults, problems) = load()
        #expect(defaults.channels == 2 && problems == [])
    }
}
