import Foundation

/// What the kernel has accounted to one process at one instant, read from `/proc`, so a
/// benchmark can take the difference of two samples over a window.
///
/// CPU time is the process's user plus system time (all threads, `/proc/<pid>/stat`);
/// context switches are kept per thread (`/proc/<pid>/task/*/status`), since
/// `/proc/<pid>/status` counts only the main thread's and a thread that ends takes its
/// counts with it.
struct ProcessSample {
    /// User plus system CPU time, in seconds.
    var cpuSeconds: Double
    /// Voluntary plus involuntary context switches of each thread, by thread id (a
    /// voluntary switch means the thread blocked, so a wake-up follows each).
    var switchesByThread: [String: Int]
    /// Resident memory (`VmRSS`), in kibibytes.
    var residentKilobytes: Int

    /// Clock ticks per second, the unit of `/proc/<pid>/stat`'s times.
    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Reads the accounting of `pid`.
    ///
    /// - Throws: `BenchmarkError.processGone` if it has exited.
    static func read(_ pid: pid_t) throws -> ProcessSample {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let commandEnd = stat.lastIndex(of: ")")
        else { throw BenchmarkError.processGone(pid) }
        // A zombie keeps its stat but has no memory and no threads left to read.
        guard !status.contains("State:\tZ") else { throw BenchmarkError.processGone(pid) }
        // Fields after "(comm)": state is field 3, so utime (14) and stime (15) are at 11 and 12.
        let fields = stat[stat.index(after: commandEnd)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        var sample = ProcessSample(
            cpuSeconds: ticks / ticksPerSecond, switchesByThread: [:], residentKilobytes: field("VmRSS", in: status))
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for thread in threads {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8) else {
                continue  // the thread ended between listing and reading
            }
            sample.switchesByThread["\(pid)/\(thread)"] =
                field("voluntary_ctxt_switches", in: text) + field("nonvoluntary_ctxt_switches", in: text)
        }
        return sample
    }

    /// The resident kibibytes of `pid` by kind (`/proc/<pid>/status`): anonymous (heap,
    /// stacks), file-backed (code and mapped files) and shared memory.
    static func residentKinds(of pid: pid_t) throws -> (anonymous: Int, file: Int, shared: Int) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            throw BenchmarkError.processGone(pid)
        }
        return (field("RssAnon", in: status), field("RssFile", in: status), field("RssShmem", in: status))
    }

    /// The sum of the samples of every process in `pids`.
    static func read(_ pids: [pid_t]) throws -> ProcessSample {
        try pids.map(read).reduce(ProcessSample(cpuSeconds: 0, switchesByThread: [:], residentKilobytes: 0), +)
    }

    /// The number in a `Name:   value [kB]` line of a `/proc` status file, or 0 if absent.
    static func field(_ name: String, in status: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let value = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return value.flatMap { Int($0) } ?? 0
        }
        return 0
    }

    /// Adds the counters of two processes.
    static func + (left: ProcessSample, right: ProcessSample) -> ProcessSample {
        ProcessSample(
            cpuSeconds: left.cpuSeconds + right.cpuSeconds,
            switchesByThread: left.switchesByThread.merging(right.switchesByThread) { $0 + $1 },
            residentKilobytes: left.residentKilobytes + right.residentKilobytes)
    }

    /// What was accounted between `earlier` and `later`; the resident memory is `later`'s.
    /// A thread that ended in between counts one switch (its last), one that began all of its own.
    static func - (later: ProcessSample, earlier: ProcessSample) -> ProcessSample {
        ProcessSample(
            cpuSeconds: later.cpuSeconds - earlier.cpuSeconds,
            switchesByThread: switchDifference(later.switchesByThread, earlier.switchesByThread),
            residentKilobytes: later.residentKilobytes)
    }

    /// Per thread: the switches since `earlier`; all of a new thread's; 1 for an ended thread.
    private static func switchDifference(_ later: [String: Int], _ earlier: [String: Int]) -> [String: Int] {
        var difference: [String: Int] = [:]
        for (thread, count) in later {
            difference[thread] = count - (earlier[thread] ?? 0)
        }
        for thread in earlier.keys where later[thread] == nil {
            difference[thread] = 1
        }
        return difference
    }

    /// Voluntary plus involuntary context switches of all threads.
    var contextSwitches: Int { switchesByThread.values.reduce(0, +) }
}
