import Dispatch
import FoundationEssentials
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// One run of the speech worker (`data/voicememo-transcriber`): a child process that reads
/// memo paths on its standard input and answers one `WorkerMessage` per line on its standard
/// output; its standard error goes where the daemon's does (the journal). The daemon never
/// loads Python or a model: a crash, a hang or a runaway allocation stays in the child.
package final class TranscriptionWorker: @unchecked Sendable {
    package let pid: pid_t
    /// The write end of the child's standard input; -1 once closed.
    private var input: Int32

    /// Starts `arguments[0]` with `arguments`; each line it prints is decoded and handed to
    /// `received` on `queue`, and `exited` runs there once its output has ended and it has
    /// been reaped (its status as `waitpid` gives it).
    package init(
        arguments: [String], queue: DispatchQueue, received: @escaping @Sendable (WorkerMessage) -> Void,
        exited: @escaping @Sendable (Int32) -> Void
    ) throws(WorkerError) {
        let toChild = try Self.makePipe()
        let fromChild: [Int32]
        do {
            fromChild = try Self.makePipe()
        } catch {
            close(toChild[0])
            close(toChild[1])
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 onto 0 and 1 clears close-on-exec there; every other descriptor stays closed.
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The daemon ignores SIGPIPE; the worker should die of a broken pipe as usual.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // A group of its own: should the daemon die while the worker is suspended, the group
        // is orphaned with a stopped member, and the kernel sends it SIGHUP and SIGCONT.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var child: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let status = posix_spawn(&child, arguments[0], &actions, &attributes, argv, environ)
        guard status == 0 else {
            for end in toChild + fromChild { close(end) }
            throw WorkerError("cannot start \(arguments[0])", errno: status)
        }
        Self.lowerToIdle(child)
        close(toChild[0])
        close(fromChild[1])
        pid = child
        input = toChild[1]
        Self.read(from: fromChild[0], of: child, queue: queue, received: received, exited: exited)
    }

    /// Puts the child at idle CPU priority the moment it exists, before Python's start-up
    /// (about 85 ms of a core), which at normal priority delayed the Record calls of that
    /// moment by 30 to 40 ms; the worker lowers itself too, for when it is started by hand.
    ///
    /// Not through `posix_spawnattr_setschedpolicy`: glibc's takes only SCHED_OTHER,
    /// SCHED_FIFO and SCHED_RR and answers EINVAL for SCHED_IDLE, so a worker spawned that
    /// way started at normal priority. Here only the end of its `execve` runs at normal.
    private static func lowerToIdle(_ child: pid_t) {
        var idle = sched_param(sched_priority: 0)
        if sched_setscheduler(child, idleScheduling, &idle) != 0 {
            Log.warning("transcription: the worker stays at normal priority: \(String(cString: strerror(errno)))")
        }
    }

    /// `SCHED_IDLE`, which `<sched.h>` defines only for `_GNU_SOURCE`, out of the Glibc
    /// module's sight.
    private static let idleScheduling: Int32 = 5

    /// A pipe whose ends a later child does not inherit. (Glibc's module lacks `pipe2`; the
    /// daemon starts no other process while it makes one.)
    private static func makePipe() throws(WorkerError) -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw WorkerError("cannot make a pipe", errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    /// Reads the worker's lines on a thread of their own, blocking: a pipe read per line at
    /// most, and the thread ends with the worker.
    private static func read(
        from descriptor: Int32, of child: pid_t, queue: DispatchQueue,
        received: @escaping @Sendable (WorkerMessage) -> Void, exited: @escaping @Sendable (Int32) -> Void
    ) {
        DispatchQueue.global(qos: .utility).async {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16384)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[..<count])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(pending[..<newline])
                    pending.removeSubrange(...newline)
                    guard !line.isEmpty else { continue }
                    if let message = WorkerMessage(line: line) {
                        queue.async { received(message) }
                    } else {
                        Log.warning(
                            "transcription worker: unreadable line: \(String(decoding: line.prefix(200), as: UTF8.self))"
                        )
                    }
                }
            }
            close(descriptor)
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            let ended = status
            queue.async { exited(ended) }
        }
    }

    /// Asks the worker to transcribe the file at `path`; false if it can no longer be told.
    @discardableResult
    func transcribe(_ path: String) -> Bool {
        guard input >= 0 else { return false }
        let line = Array((path + "\n").utf8)
        var written = 0
        while written < line.count {
            let count = line[written...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }

    /// Closes the worker's input: it finishes what it was given and exits.
    func finish() {
        guard input >= 0 else { return }
        close(input)
        input = -1
    }

    /// Stops the worker where it is (SIGSTOP) until `resume()`: not a cycle of the CPU, not a
    /// byte of memory traffic meanwhile.
    package func suspend() { _ = Glibc.kill(pid, SIGSTOP) }

    /// Lets a suspended worker go on.
    package func resume() { _ = Glibc.kill(pid, SIGCONT) }

    /// Ends the worker at once (a hang, or a memo deleted or trimmed under it).
    package func kill() {
        finish()
        _ = Glibc.kill(pid, SIGKILL)
    }

    deinit { finish() }
}

/// Why the worker could not be started, with the system's reason.
package struct WorkerError: Error, CustomStringConvertible {
    package let description: String

    init(_ what: String, errno code: Int32) {
        description = "\(what): \(String(cString: strerror(code)))"
    }
}
