import Foundation

/// Why a benchmark could not measure what it set out to.
enum BenchmarkError: Error, CustomStringConvertible {
    /// The process had exited when its accounting was read.
    case processGone(pid_t)
    /// A call or a file did not give what the measurement needs.
    case unexpected(String)

    var description: String {
        switch self {
        case .processGone(let pid): return "process \(pid) is gone; /proc/\(pid) cannot be read"
        case .unexpected(let what): return what
        }
    }
}
