// libc's `stderr` is a C global that Swift imports as a mutable `var`. libc sets it before
// `main` and nothing in this process assigns it, so reading it from any thread races with
// nothing; `@preconcurrency` says so for this one file, the only one that writes to it.
@preconcurrency import Glibc

/// The daemon's log: one line per event, `voicememod: <message>`, on stderr, which the
/// systemd user unit hands to the journal. There each line starts with its syslog priority
/// (`<3>`…`<7>`, sd-daemon(3)), so `journalctl -p warning` filters it; on a terminal the
/// line is the same without it. Safe from any thread: a line is one unbuffered write.
package enum Log {
    /// How much a line matters; the raw value is its syslog priority.
    enum Level: Int32 {
        /// Something failed that the user will miss.
        case error = 3
        /// Something did not work and the daemon carries on without it.
        case warning = 4
        /// What the daemon is doing, a few lines a day.
        case info = 6
        /// Detail for tests and for finding leaks; written only with VOICEMEMO_DEBUG=1.
        case debug = 7
    }

    /// Whether debug lines are written (VOICEMEMO_DEBUG=1).
    package static let isDebugEnabled = getenv("VOICEMEMO_DEBUG").map { String(cString: $0) } == "1"

    package static func error(_ message: String) { write(.error, message) }
    package static func warning(_ message: String) { write(.warning, message) }
    package static func info(_ message: String) { write(.info, message) }
    package static func debug(_ message: String) { write(.debug, message) }

    /// Writes one line at `level`.
    static func write(_ level: Level, _ message: String) {
        if level == .debug && !isDebugEnabled { return }
        fputs((isJournal ? "<\(level.rawValue)>" : "") + "voicememod: " + message + "\n", stderr)
    }

    /// Whether stderr is the journal's stream: JOURNAL_STREAM names its device and inode,
    /// which a redirected stderr no longer has (sd-daemon(3)).
    private static let isJournal: Bool = {
        guard let variable = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: variable).split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
            fstat(STDERR_FILENO, &status) == 0
        else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }()
}
