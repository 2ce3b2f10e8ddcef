import FoundationEssentials
import VoiceMemoCore

/// Keeps the recorder defaults in `settings.json` under the config directory, written
/// atomically so a crash mid-write never leaves a torn file.
public struct SettingsStore: Sendable {
    public let path: String
    /// Larger files are not read: real settings take a few hundred bytes.
    public static let maximumFileSize = 64 * 1024

    public init(directory: String) {
        path = directory + "/settings.json"
    }

    /// The saved defaults; the built-in ones for whatever is missing. A value that cannot be
    /// used (or a file that cannot be read) keeps its default and is reported, once, through
    /// `report`.
    public func load(reportingProblems report: (SettingsProblem) -> Void = { _ in }) -> RecorderDefaults {
        let document = read()
        document.problems.forEach(report)
        return document.defaults
    }

    /// Reads the file only if it is a regular one of sane size: a FIFO would block the read
    /// forever, a directory or a huge file is a mistake.
    private func read() -> SettingsDocument {
        let resolved = URL(filePath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved) else {
            guard FileManager.default.fileExists(atPath: path) else { return SettingsDocument() }
            return SettingsDocument(problem: "cannot be read; using the built-in defaults")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            return SettingsDocument(problem: "is not a regular file; using the built-in defaults")
        }
        let tooLarge = SettingsDocument(
            problem: "is larger than \(Self.maximumFileSize / 1024) KiB; using the built-in defaults")
        // The size attribute is a `UInt` here; any integer type will do.
        let size = (attributes[.size] as? any BinaryInteger).map { Int(clamping: $0) } ?? 0
        guard size <= Self.maximumFileSize else { return tooLarge }
        guard let data = FileManager.default.contents(atPath: resolved) else {
            return SettingsDocument(problem: "cannot be read; using the built-in defaults")
        }
        return data.count <= Self.maximumFileSize ? SettingsDocument(data: data) : tooLarge
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
