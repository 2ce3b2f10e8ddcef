import FoundationEssentials

/// Keeps the recorder defaults in `settings.json` under the config directory, written
/// atomically so a crash mid-write never leaves a torn file.
public struct SettingsStore: Sendable {
    public let path: String

    public init(directory: String) {
        path = directory + "/settings.json"
    }

    /// The saved defaults; the built-in ones when nothing (or nothing readable) is saved.
    public func load() -> RecorderDefaults {
        guard let data = FileManager.default.contents(atPath: path),
            let defaults = try? JSONDecoder().decode(RecorderDefaults.self, from: data)
        else { return RecorderDefaults() }
        return defaults
    }

    /// Saves `defaults`, creating the directory (user-only) if needed.
    public func save(_ defaults: RecorderDefaults) throws(RecorderError) {
        let directory = String(path[..<path.lastIndex(of: "/")!])
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(defaults).write(to: URL(filePath: path), options: .atomic)
        } catch {
            throw .storage("cannot save settings to \(path): \(FileSystemFailure.reason(error))")
        }
    }
}
