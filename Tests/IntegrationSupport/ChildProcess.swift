import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program started by the fixture with an explicit environment and redirected
/// output, reaped exactly once, so teardown can stop it and prove it is gone.
///
/// The child gets only the environment it is given (never the developer's
/// `DBUS_SESSION_BUS_ADDRESS` or `PULSE_SERVER`), default signal dispositions,
/// and no descriptors but 0, 1 and 2. It stays in the test runner's process
/// group, so interrupting `swift test` from a terminal interrupts it too.
///
/// A `ChildProcess` that is deallocated while its program runs kills it.
package final class ChildProcess: CustomStringConvertible {
    /// Where a child's standard input comes from.
    package enum Input {
        /// `/dev/null`: the child reads end-of-file.
        case null
        /// A pipe whose write end is `standardInput`.
        case pipe
    }

    /// Where a child's standard output or standard error goes.
    package enum Output {
        /// `/dev/null`.
        case null
        /// Appended to a file, created if needed; both streams may share one file.
        case file(URL)
    }

    /// How a child ended.
    package enum Termination: Equatable, CustomStringConvertible {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal with this number ended it.
        case signalled(Int32)
        /// Something other than the fixture reaped it, so its status is lost.
        case unknown

        /// A shell-style status: the exit status, or 128 plus the signal number.
        package var status: Int32 {
            switch self {
            case .exited(let status): return status
            case .signalled(let signal): return 128 + signal
            case .unknown: return -1
            }
        }

        package var description: String {
            switch self {
            case .exited(let status): return "exited with status \(status)"
            case .signalled(let signal): return "was killed by signal \(signal)"
            case .unknown: return "ended with an unknown status"
            }
        }

        /// Decodes a `waitpid` status (the `WIFEXITED` family are C macros Swift cannot import).
        package init(waitStatus: Int32) {
            let signal = waitStatus & 0x7f
            self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signalled(signal)
        }
    }

    /// The absolute path of the program.
    package let executable: String
    /// The arguments after the program's name.
    package let arguments: [String]
    /// The child's process id; never signalled once the child has been reaped.
    package let pid: pid_t
    /// The write end of the child's stdin pipe when started with `Input.pipe`.
    ///
    /// Owned by this object: close it with `closeStandardInput()`.
    package private(set) var standardInput: Int32?

    private let lock = NSLock()
    private var reapedTermination: Termination?

    /// Starts `executable` (a path, or a name looked up by `Executable.find`).
    ///
    /// - Throws: `FixtureError.missingExecutable` if the program is not
    ///   installed, `FixtureError.systemCallFailed` if it cannot be spawned.
    package init(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String],
        standardInput input: Input = .null,
        standardOutput: Output = .null,
        standardError: Output = .null
    ) throws {
        self.executable = try Executable.find(executable)
        self.arguments = arguments

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        var pipeEnds: [Int32] = [-1, -1]
        switch input {
        case .null:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe:
            guard pipeEnds.withUnsafeMutableBufferPointer({ GNU.pipe2($0.baseAddress!, O_CLOEXEC) }) == 0 else {
                throw FixtureError.systemCallFailed("pipe2", errno: errno)
            }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        }
        defer { if pipeEnds[0] >= 0 { close(pipeEnds[0]) } }
        for (descriptor, output) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            let path: String
            switch output {
            case .null: path = "/dev/null"
            case .file(let url): path = url.path
            }
            posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        _ = GNU.addCloseFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([self.executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var pid = pid_t()
        let result = posix_spawn(&pid, self.executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
            throw FixtureError.systemCallFailed("posix_spawn \(self.executable)", errno: result)
        }
        self.pid = pid
        self.standardInput = input == .pipe ? pipeEnds[1] : nil
    }

    deinit {
        kill()
        closeStandardInput()
    }

    /// The program's file name, e.g. "pipewire": the name its log goes under.
    package var name: String {
        // A program run as another user (`SessionUser`) goes by its own name, not setpriv's.
        if (executable as NSString).lastPathComponent == "setpriv", let separator = arguments.firstIndex(of: "--"),
            separator + 1 < arguments.count
        {
            return (arguments[separator + 1] as NSString).lastPathComponent
        }
        return (executable as NSString).lastPathComponent
    }

    package var description: String {
        "\(name) (pid \(pid))"
    }

    /// How the child ended, or `nil` while it runs; reaps it if it has ended.
    package var termination: Termination? {
        lock.lock()
        defer { lock.unlock() }
        if reapedTermination == nil {
            reapedTermination = reap(blocking: false)
        }
        return reapedTermination
    }

    /// Whether the child has not yet ended.
    package var isRunning: Bool { termination == nil }

    /// Sends `signal` unless the child has already been reaped (its pid may be reused).
    package func send(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if reapedTermination == nil {
            Glibc.kill(pid, signal)
        }
    }

    /// Waits for the child to end by itself.
    ///
    /// - Throws: `FixtureError.timedOut` if it still runs after `timeout`.
    @discardableResult
    package func waitForExit(timeout: Duration) throws -> Termination {
        var ended: Termination?
        try waitUntil("\(self) exits", timeout: timeout) {
            ended = termination
            return ended != nil
        }
        return ended!
    }

    /// Asks the child to stop with SIGTERM, and kills it if it has not stopped
    /// after `gracePeriod`; returns once it has been reaped.
    @discardableResult
    package func terminate(gracePeriod: Duration = .seconds(3)) -> Termination {
        send(SIGTERM)
        if let ended = try? waitForExit(timeout: gracePeriod) {
            return ended
        }
        return kill()
    }

    /// Kills the child with SIGKILL and returns once it has been reaped.
    @discardableResult
    package func kill() -> Termination {
        lock.lock()
        defer { lock.unlock() }
        if reapedTermination == nil {
            Glibc.kill(pid, SIGKILL)
            reapedTermination = reap(blocking: true)
        }
        return reapedTermination!
    }

    /// Closes the write end of the stdin pipe, so the child reads end-of-file.
    ///
    /// Call it only once no thread writes to `standardInput` any more.
    package func closeStandardInput() {
        if let descriptor = standardInput {
            close(descriptor)
            standardInput = nil
        }
    }

    /// Collects the child's exit status; the caller holds `lock`.
    private func reap(blocking: Bool) -> Termination? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if result == pid {
                return Termination(waitStatus: status)
            }
            if result == 0 {
                return nil
            }
            if errno != EINTR {
                return .unknown
            }
        }
    }
}

/// The two GNU extensions `ChildProcess` relies on, which Swift's Glibc module
/// hides behind `_GNU_SOURCE`: `pipe2`, so the parent's pipe ends never leak
/// into another child, and `posix_spawn_file_actions_addclosefrom_np`, so a
/// child inherits no descriptor but 0, 1 and 2 (glibc 2.34 or later).
private enum GNU {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    static let pipe2: Pipe2 = symbol("pipe2")
    static let addCloseFrom: AddCloseFrom = symbol("posix_spawn_file_actions_addclosefrom_np")

    private static func symbol<Function>(_ name: String) -> Function {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("glibc lacks \(name); the integration fixture needs glibc 2.34 or later")
        }
        return unsafeBitCast(address, to: Function.self)
    }
}
