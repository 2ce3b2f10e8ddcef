import Dispatch
import Foundation
import Testing
import VoiceMemoService

/// How the daemon starts its speech worker: at idle priority, so that Python's start-up and
/// the model's work never take a core from a recording.
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
