import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An unprivileged Unix user a whole `TestSession` runs as (bus, audio server, daemon,
/// compositor, panel), for programs that refuse root, as sway does, while CI runs as root.
///
/// Each child is started through `setpriv`, which drops to the user and then executes the
/// program itself, so the fixture's process id is the program's.
package struct SessionUser: Sendable {
    package let name: String
    package let uid: uid_t
    package let gid: gid_t

    /// The user the real-panel tests run their session as, created (a system user without
    /// a home or a login shell) if it does not exist yet.
    ///
    /// - Throws: `FixtureError.commandFailed` if `useradd` fails, e.g. when not run as root.
    package static func panelUser(named name: String = "voicememo-panel") throws -> SessionUser {
        if let user = lookUp(name) { return user }
        _ = try Executable.find("setpriv")
        let add = try ChildProcess.run(
            "useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], timeout: .seconds(20))
        guard add.succeeded || lookUp(name) != nil, let user = lookUp(name) else {
            throw FixtureError.commandFailed(command: "useradd \(name)", output: add)
        }
        return user
    }

    private static func lookUp(_ name: String) -> SessionUser? {
        guard let entry = getpwnam(name) else { return nil }
        return SessionUser(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    /// `executable` and `arguments` as run by this user: through `setpriv`.
    package func command(_ executable: String, _ arguments: [String]) throws -> (String, [String]) {
        let program = try Executable.find(executable)
        return (
            try Executable.find("setpriv"),
            ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--", program] + arguments
        )
    }

    /// Makes `path` and everything below it the user's.
    package func takeOwnership(of path: String) throws {
        let output = try ChildProcess.run(
            "chown", ["-R", "\(uid):\(gid)", path], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(20))
        guard output.succeeded else {
            throw FixtureError.commandFailed(command: "chown -R \(uid):\(gid) \(path)", output: output)
        }
    }

    /// Whether the user may read and run the file at `path` (every directory above it
    /// searchable), checked by running `test` as the user.
    package func canExecute(_ path: String) -> Bool {
        guard let (program, arguments) = try? command("test", ["-r", path, "-a", "-x", path]) else { return false }
        return
            (try? ChildProcess.run(program, arguments, environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(10))
            .succeeded) == true
    }
}
