import Foundation

/// Finds the system programs the fixture runs, so a missing one fails the test
/// with the Debian package that provides it instead of an obscure spawn error.
package enum Executable {
    /// The Debian package providing each program the fixture uses.
    package static let debianPackages: [String: String] = [
        "busctl": "systemd",
        "cc": "gcc",
        "dbus-daemon": "dbus-daemon",
        "pacat": "pulseaudio-utils",
        "pactl": "pulseaudio-utils",
        "parecord": "pulseaudio-utils",
        "pipewire": "pipewire-bin",
        "pipewire-pulse": "pipewire-pulse",
        "pulseaudio": "pulseaudio",
        "pw-cli": "pipewire-bin",
        "wireplumber": "wireplumber",
        "setpriv": "util-linux",
        "useradd": "passwd",
        "sway": "sway",
        "waybar": "waybar",
        "gnome-shell": "gnome-shell",
        "gjs": "gjs",
        "dbus-monitor": "dbus-bin",
        "grim": "grim",
        "fc-list": "fontconfig",
        "gtk-update-icon-cache": "gtk-update-icon-cache",
        "sox": "sox",
        "ffmpeg": "ffmpeg",
        "ffprobe": "ffmpeg",
    ]

    /// The directories searched: the test runner's PATH, then /usr/bin and /usr/sbin.
    package static var searchPath: [String] {
        let inherited = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        return inherited + ["/usr/bin", "/usr/sbin"]
    }

    /// Resolves `name` to an executable file; a name containing "/" is taken as a path.
    ///
    /// - Throws: `FixtureError.missingExecutable`, naming the package to install
    ///   for the programs in `debianPackages`.
    package static func find(_ name: String) throws -> String {
        if name.contains("/") {
            guard isExecutableFile(name) else {
                throw FixtureError.missingExecutable(name, debianPackage: nil)
            }
            return name
        }
        if let found = searchPath.map({ "\($0)/\(name)" }).first(where: isExecutableFile) {
            return found
        }
        throw FixtureError.missingExecutable(name, debianPackage: debianPackages[name])
    }

    /// Whether `path` is a regular file the test runner may execute.
    package static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
