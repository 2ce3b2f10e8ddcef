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
    }
}
