import Dispatch
import Foundation
import Testing
import VoiceMemoService

/// How the daemon starts and holds its speech worker: at idle priority, so that Python's
/// start-up and the model's work never take a core from a recording, and stopped while one starts.
@Suite("Transcription worker start")
struct TranscriptionWorkerTests {
    /// A child that does not lower itself (`sleep`, not the Python worker) runs at idle CPU
    /// priority as soon as the daemon has started it. (glibc's posix_spawn cannot do it: its
    /// attributes refuse SCHED_IDLE, and a worker spawned so ran Python's start at normal.)
    @Test func theWorkerRunsAtIdlePriorityFromItsStart() throws {
        let started = try Self.start(["/bin/sleep", "30"])
        defer { Self.end(started) }
        #expect(try Self.schedulingPolicy(of: started.worker.pid) == Self.idlePolicy)
    }

    /// Suspended (while a recording starts), the worker is stopped until it is resumed. It
    /// leads a process group of its own, which the kernel wakes with SIGHUP and SIGCONT if
    /// the daemon dies while the worker is stopped.
    @Test func aSuspendedWorkerIsStoppedUntilResumed() throws {
        let started = try Self.start(["/bin/sleep", "30"])
        defer { Self.end(started) }
        let pid = started.worker.pid
        #expect(getpgid(pid) == pid, "a process group of its own")
        started.worker.suspend()
        #expect(try Self.waitForState("T", of: pid), "stopped")
        started.worker.resume()
        #expect(try Self.waitForState("S", of: pid), "sleeping again, as sleep does")
    }

    /// Whether the process reaches `state` (the third field of `/proc/<pid>/stat`) within a
    /// second: a signal is delivered asynchronously, within microseconds.
    static func waitForState(_ state: Character, of pid: pid_t) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < deadline {
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            if let end = stat.lastIndex(of: ")"), stat[stat.index(end, offsetBy: 2)] == state { return true }
            sched_yield()
        }
        return false
    }

    /// SCHED_IDLE's number on Linux.
    static let idlePolicy = 5

    static func start(_ arguments: [String]) throws -> (worker: TranscriptionWorker, exited: DispatchSemaphore) {
        let exited = DispatchSemaphore(value: 0)
        let worker = try TranscriptionWorker(
            arguments: arguments, queue: DispatchQueue(label: "TranscriptionWorkerTests"), received: { _ in },
            exited: { _ in exited.signal() })
        return (worker, exited)
    }

    /// Kills the child and waits until it has been reaped.
    static func end(_ started: (worker: TranscriptionWorker, exited: DispatchSemaphore)) {
        started.worker.kill()
        #expect(started.exited.wait(timeout: .now() + 10) == .success, "the worker was reaped")
    }

    /// The `policy` field (the 41st) of `/proc/<pid>/stat`; the fields are counted after the
    /// command name, which may hold spaces and parentheses.
    static func schedulingPolicy(of pid: pid_t) throws -> Int? {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 38 ? Int(fields[38]) : nil
    }
}
