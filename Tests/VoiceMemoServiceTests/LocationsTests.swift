import Testing
import VoiceMemoService

/// Where the daemon keeps memos, settings and its cache, read from the XDG variables.
@Suite("Locations: the XDG base directories")
struct LocationsTests {
    @Test func withoutVariablesEverythingIsUnderHome() {
        let locations = Locations(environment: ["HOME": "/home/ada"])
        #expect(locations.memoDirectory == "/home/ada/.local/share/voicememo")
        #expect(locations.trashDirectory == "/home/ada/.local/share/Trash")
        #expect(locations.configDirectory == "/home/ada/.config/voicememo")
        #expect(locations.cacheDirectory == "/home/ada/.cache/voicememo")
    }

    @Test func theVariablesMoveEachDirectoryAndTheCacheGoesToTheRuntimeDirectory() {
        let locations = Locations(environment: [
            "HOME": "/home/ada", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/config",
            "XDG_CACHE_HOME": "/cache", "XDG_RUNTIME_DIR": "/run/user/1000",
        ])
        #expect(locations.memoDirectory == "/data/voicememo")
        #expect(locations.trashDirectory == "/data/Trash")
        #expect(locations.configDirectory == "/config/voicememo")
        #expect(locations.cacheDirectory == "/run/user/1000/voicememo")
    }

    /// The XDG specification: a relative path in one of the variables is invalid and ignored.
    @Test func relativePathsAreIgnored() {
        let locations = Locations(environment: [
            "HOME": "/home/ada", "XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "config",
            "XDG_CACHE_HOME": "cache", "XDG_RUNTIME_DIR": "run",
        ])
        #expect(locations.memoDirectory == "/home/ada/.local/share/voicememo")
        #expect(locations.configDirectory == "/home/ada/.config/voicememo")
        #expect(locations.cacheDirectory == "/home/ada/.cache/voicememo")
    }
}
