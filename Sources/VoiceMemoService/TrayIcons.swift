#if canImport(Glibc)
    import Glibc
#endif

/// Where the tray item's icons are found.
///
/// Installed, they are in the system's hicolor theme and found by name, so
/// `IconThemePath` is empty. Run from a build (`.build/…/voicememod` inside the source
/// tree), they are the checkout's `data/icons`, a small hicolor theme of its own; a host
/// adds that path to its icon search. `VOICEMEMO_ICON_THEME_PATH` overrides both (for a
/// copied binary, as the real-panel test runs one).
enum TrayIcons {
    static func themePath(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> String {
        if let override = environment("VOICEMEMO_ICON_THEME_PATH") { return override }
        guard let executable = resolvedExecutable() else { return "" }
        // Walk up from .build/<triple>/<config>/voicememod to the checkout holding Package.swift.
        var directory = executable
        for _ in 0..<6 {
            guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { return "" }
            directory = String(directory[..<slash])
            let icons = directory + "/data/icons"
            if access(directory + "/Package.swift", F_OK) == 0, access(icons + "/hicolor/index.theme", R_OK) == 0 {
                return icons
            }
        }
        return ""
    }

    private static func resolvedExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
