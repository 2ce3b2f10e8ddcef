import FoundationEssentials

/// Where voicememo keeps things, per the XDG Base Directory specification.
package struct Locations {
    /// `$XDG_DATA_HOME/voicememo`, default `~/.local/share/voicememo`.
    package let memoDirectory: String
    /// `$XDG_DATA_HOME/Trash`, the home trash deleted memos go to (freedesktop Trash spec).
    package let trashDirectory: String
    /// `$XDG_CONFIG_HOME/voicememo`, default `~/.config/voicememo`.
    package let configDirectory: String
    /// Where the library cache goes: `$XDG_RUNTIME_DIR/voicememo` (the daemon keeps to its
    /// memo, config and runtime directories), or `$XDG_CACHE_HOME/voicememo` without one.
    package let cacheDirectory: String
    /// `$XDG_STATE_HOME/voicememo`, default `~/.local/state/voicememo`: what must outlive a
    /// restart but is no setting (the transcription queue).
    package let stateDirectory: String
    /// The virtual environment holding the speech engine: `$VOICEMEMO_TRANSCRIPTION_ENGINE`,
    /// default `$XDG_DATA_HOME/voicememo-transcription-engine` (where `make engine-environment`
    /// puts it).
    package let engineDirectory: String
    /// The worker script the engine runs: `$VOICEMEMO_TRANSCRIBER`, else beside the daemon
    /// (`../libexec/voicememo/voicememo-transcriber` installed, `data/` in a checkout).
    package let transcriberScript: String

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        func base(_ variable: String, _ fallback: String) -> String {
            // The spec says relative paths are invalid and must be ignored.
            guard let value = environment[variable], value.hasPrefix("/") else { return home + "/" + fallback }
            return value
        }
        memoDirectory = base("XDG_DATA_HOME", ".local/share") + "/voicememo"
        trashDirectory = base("XDG_DATA_HOME", ".local/share") + "/Trash"
        configDirectory = base("XDG_CONFIG_HOME", ".config") + "/voicememo"
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            cacheDirectory = runtime + "/voicememo"
        } else {
            cacheDirectory = base("XDG_CACHE_HOME", ".cache") + "/voicememo"
        }
        stateDirectory = base("XDG_STATE_HOME", ".local/state") + "/voicememo"
        engineDirectory =
            environment["VOICEMEMO_TRANSCRIPTION_ENGINE"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? base("XDG_DATA_HOME", ".local/share") + "/voicememo-transcription-engine"
        transcriberScript =
            environment["VOICEMEMO_TRANSCRIBER"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? Self.besideExecutable("voicememo-transcriber")
    }

    /// Where a helper shipped with the daemon is: the installed layout first, then a source
    /// checkout's `data/` above `.build/<configuration>/`.
    private static func besideExecutable(_ name: String) -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var directory = executable.split(separator: "/").dropLast().map(String.init)
        let installed = "/" + (directory.dropLast() + ["libexec", "voicememo", name]).joined(separator: "/")
        if FileManager.default.fileExists(atPath: installed) { return installed }
        while !directory.isEmpty {
            let candidate = "/" + (directory + ["data", name]).joined(separator: "/")
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            directory.removeLast()
        }
        return installed
    }
}
