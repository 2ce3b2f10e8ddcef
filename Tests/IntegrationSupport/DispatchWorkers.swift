import Foundation

extension Daemon {
    /// Waits until none of the daemon's libdispatch worker threads is parked, so that a
    /// window measured from then on sees an idle daemon only.
    ///
    /// libdispatch keeps a worker that ran a work item (a bus call, a timer) parked on a
    /// futex for 5 s, then the worker exits: one wake-up, the pool's housekeeping and not the
    /// daemon's, and a thread gone whose context switches no longer add up. Workers are the
    /// threads libdispatch names after its root queues ("com.apple.root.default-qos…", cut
    /// to 15 characters); the one that waits for events does so in epoll, not on a futex.
    ///
    /// - Throws: `FixtureError.timedOut` if one is still parked after `timeout` (work keeps
    ///   coming).
    package func waitUntilDispatchWorkersEnd(timeout: Duration = .seconds(30)) throws {
        try waitUntil("voicememod's parked libdispatch workers have ended", timeout: timeout) {
            Self.parkedDispatchWorkers(of: process.pid) == 0
        }
    }

    /// How many threads of `pid` are libdispatch workers parked on a futex.
    private static func parkedDispatchWorkers(of pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.count { task in
            let directory = "/proc/\(pid)/task/\(task)/"
            let name = (try? String(contentsOfFile: directory + "comm", encoding: .utf8)) ?? ""
            let waitingIn = (try? String(contentsOfFile: directory + "wchan", encoding: .utf8)) ?? ""
            return name.contains("qos") && waitingIn.contains("futex")
        }
    }
}
