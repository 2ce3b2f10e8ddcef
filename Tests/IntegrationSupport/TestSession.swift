import Foundation

/// A private user session for one test class: its own directories, environment
/// and D-Bus session bus, so tests never touch the developer's bus, audio
/// server or files.
///
/// The layout under `root` (`/tmp/voicememo-test.XXXXXX`) is `runtime/`
/// (`XDG_RUNTIME_DIR`, mode 0700, holding the bus and audio sockets), `data/`,
/// `config/`, `state/`, `home/`, and `logs/` for the children's output.
/// `close()` stops every child the session started and removes `root`, unless
/// `VOICEMEMO_TEST_KEEP` is set in the test runner's environment.
package final class TestSession {
    /// The session's private root directory.
    package let root: URL
    /// `XDG_RUNTIME_DIR`: the bus socket and `pulse/native` live here.
    package let runtimeDirectory: URL
    /// `XDG_DATA_HOME`.
    package let dataDirectory: URL
    /// `XDG_CONFIG_HOME`.
    package let configDirectory: URL
    /// `XDG_STATE_HOME`.
    package let stateDirectory: URL
    /// `HOME`.
    package let homeDirectory: URL
    /// Where the children's logs go, one `<name>.log` per program.
    package let logDirectory: URL
    /// The D-Bus address of the private session bus.
    package let busAddress: String
    /// The complete environment for the session's children.
    package let environment: [String: String]
    /// The long-running children, stopped by `close()`.
    package let processes = ProcessRegistry()
    /// The user every child runs as, when not the test runner's own (`root` and all
    /// below it then belong to that user).
    package let user: SessionUser?

    private var isClosed = false

    /// Where voicememod keeps memos: `$XDG_DATA_HOME/voicememo`.
    package var memoDirectory: URL { dataDirectory.appendingPathComponent("voicememo") }

    /// Creates the directories and starts the session bus.
    ///
    /// - Throws: `FixtureError.missingExecutable` without dbus-daemon or busctl,
    ///   `FixtureError.startupFailed` if the bus does not answer within `timeout`.
    package init(timeout: Duration = .seconds(10), user: SessionUser? = nil) throws {
        self.user = user
        var template = Array("/tmp/voicememo-test.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw FixtureError.systemCallFailed("mkdtemp", errno: errno)
        }
        root = URL(fileURLWithPath: String(cString: created), isDirectory: true)
        runtimeDirectory = root.appendingPathComponent("runtime", isDirectory: true)
        dataDirectory = root.appendingPathComponent("data", isDirectory: true)
        configDirectory = root.appendingPathComponent("config", isDirectory: true)
        stateDirectory = root.appendingPathComponent("state", isDirectory: true)
        homeDirectory = root.appendingPathComponent("home", isDirectory: true)
        logDirectory = root.appendingPathComponent("logs", isDirectory: true)
        let busSocket = runtimeDirectory.appendingPathComponent("bus")
        busAddress = "unix:path=\(busSocket.path)"
        let clientConfig = configDirectory.appendingPathComponent("pulse/client.conf")
        environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
            "HOME": homeDirectory.path,
            "LANG": "C.UTF-8",
            "XDG_RUNTIME_DIR": runtimeDirectory.path,
            "XDG_DATA_HOME": dataDirectory.path,
            "XDG_CONFIG_HOME": configDirectory.path,
            "XDG_STATE_HOME": stateDirectory.path,
            "DBUS_SESSION_BUS_ADDRESS": busAddress,
            "PULSE_CLIENTCONFIG": clientConfig.path,
        ]
        do {
            let files = FileManager.default
            for directory in [dataDirectory, configDirectory, stateDirectory, homeDirectory, logDirectory] {
                try files.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            try files.createDirectory(
                at: runtimeDirectory, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700])
            try files.createDirectory(at: clientConfig.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "autospawn = no\n".write(to: clientConfig, atomically: true, encoding: .utf8)
            try user?.takeOwnership(of: root.path)
            try startBus(socketPath: busSocket.path, timeout: timeout)
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Stops every child the session started, newest first, then removes `root`.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        processes.terminateAll()
        if ProcessInfo.processInfo.environment["VOICEMEMO_TEST_KEEP"] == nil {
            try? FileManager.default.removeItem(at: root)
        }
    }

    /// The log file for the child called `name`.
    package func logFile(_ name: String) -> URL {
        logDirectory.appendingPathComponent("\(name).log")
    }

    /// The text of the log file for the child called `name`, or "" if it has none.
    package func log(_ name: String) -> String {
        (try? String(contentsOf: logFile(name), encoding: .utf8)) ?? ""
    }

    /// Starts a long-running child in the session's environment (plus
    /// `overrides`), with stdout and stderr appended to `logFile(logName)`, and
    /// registers it so `close()` stops it.
    package func launch(
        _ executable: String,
        _ arguments: [String],
        logName: String,
        environment overrides: [String: String] = [:],
        standardInput: ChildProcess.Input = .null
    ) throws -> ChildProcess {
        let log = logFile(logName)
        let (program, programArguments) = try command(executable, arguments)
        let child = try ChildProcess(
            program, programArguments,
            environment: environment.merging(overrides) { $1 },
            standardInput: standardInput,
            standardOutput: .file(log), standardError: .file(log))
        processes.register(child)
        return child
    }

    /// Runs a short command in the session's environment and returns its output.
    package func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(10)) throws
        -> CommandOutput
    {
        let (program, programArguments) = try command(executable, arguments)
        return try ChildProcess.run(program, programArguments, environment: environment, timeout: timeout)
    }

    /// `executable` with `arguments` as the session runs it: as `user` when there is one.
    package func command(_ executable: String, _ arguments: [String]) throws -> (String, [String]) {
        try user?.command(executable, arguments) ?? (executable, arguments)
    }

    /// Runs `busctl --user` against the session bus (busctl finds it through
    /// `DBUS_SESSION_BUS_ADDRESS`); a non-zero status is returned, not thrown.
    package func busctl(_ arguments: [String], timeout: Duration = .seconds(10)) throws -> CommandOutput {
        try run("busctl", ["--user", "--no-pager"] + arguments, timeout: timeout)
    }

    /// Whether `name` currently has an owner on the session bus.
    package func busNameHasOwner(_ name: String) throws -> Bool {
        let output = try busctl([
            "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            "NameHasOwner", "s", name,
        ])
        return output.succeeded && output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "b true"
    }

    /// voicememo's saved settings (`$XDG_CONFIG_HOME/voicememo`).
    package var settingsDirectory: URL { configDirectory.appendingPathComponent("voicememo") }

    /// voicememo's settings file, as a user edits it by hand.
    package var settingsFile: URL { settingsDirectory.appendingPathComponent("settings.json") }

    /// Writes `text` as the settings file, as a hand edit would; a daemon launched next reads it.
    package func writeSettings(_ text: String) throws {
        try FileManager.default.createDirectory(at: settingsDirectory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: settingsFile)
    }

    /// Removes the memo directory and the saved settings, so every test starts from a new
    /// user's state; voicememod creates both again.
    package func resetUserData() throws {
        // The state directory holds the transcription queue, which a test must not inherit.
        let state = stateDirectory.appendingPathComponent("voicememo")
        for directory in [memoDirectory, settingsDirectory, state]
        where FileManager.default.fileExists(atPath: directory.path) {
            try FileManager.default.removeItem(at: directory)
        }
    }

    private func startBus(socketPath: String, timeout: Duration) throws {
        let configuration = root.appendingPathComponent("bus.conf")
        try SessionBusConfiguration.document(socketPath: socketPath)
            .write(to: configuration, atomically: true, encoding: .utf8)
        let bus = try launch(
            "dbus-daemon", ["--nofork", "--nopidfile", "--nosyslog", "--config-file=\(configuration.path)"],
            logName: "dbus-daemon")
        _ = try Executable.find("busctl")
        do {
            try waitUntil("the session bus at \(socketPath) answers GetId", timeout: timeout) {
                if let ended = bus.termination {
                    throw FixtureError.exitedEarly("dbus-daemon", termination: ended, log: log("dbus-daemon"))
                }
                let getID = ["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"]
                return try busctl(getID).succeeded
            }
        } catch FixtureError.timedOut(let condition, let after) {
            throw FixtureError.startupFailed(
                "dbus-daemon", reason: "timed out after \(after) waiting until \(condition)", log: log("dbus-daemon"))
        }
    }
}
