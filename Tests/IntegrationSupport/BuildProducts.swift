import Foundation

/// Finds this package's executables next to the test bundle, so the tests run
/// exactly what `swift test` just built.
package enum BuildProducts {
    /// The build directory: the one holding the test bundle (on Linux, the
    /// `*.xctest` executable itself; on macOS, the `*.xctest` bundle).
    package static var directory: URL {
        let bundle = Bundle(for: Marker.self).bundleURL
        return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
    }

    /// The voicememod daemon; `VOICEMEMOD` in the environment overrides the path.
    package static func voicememod() throws -> URL {
        try product("voicememod", overrideVariable: "VOICEMEMOD")
    }

    /// The voicememo command-line client; `VOICEMEMO` in the environment overrides the path.
    package static func voicememo() throws -> URL {
        try product("voicememo", overrideVariable: "VOICEMEMO")
    }

    private static func product(_ name: String, overrideVariable: String) throws -> URL {
        let override = ProcessInfo.processInfo.environment[overrideVariable] ?? ""
        let url = override.isEmpty ? directory.appendingPathComponent(name) : URL(fileURLWithPath: override)
        guard Executable.isExecutableFile(url.path) else {
            throw FixtureError.missingBuildProduct(name, searched: url.path, overrideVariable: overrideVariable)
        }
        return url
    }

    /// A class defined in the test bundle, to find the bundle with `Bundle(for:)`.
    private final class Marker {}
}
