import Foundation

/// Where a process's resident memory is, from `/proc/<pid>/smaps`: resident kibibytes
/// per mapped file (anonymous memory as "[anonymous]"), and the proportional share
/// (`Pss`, shared pages divided among the processes mapping them) from `smaps_rollup`.
enum MemoryMap {
    /// The `count` largest resident mappings of `pid`, grouped by file name, largest first.
    static func largestMappings(of pid: pid_t, count: Int) -> [(name: String, kilobytes: Int)] {
        // Read to the end: /proc files report size 0, and smaps is longer than one read.
        guard let data = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps")?.readDataToEndOfFile(),
            let smaps = String(data: data, encoding: .utf8)
        else { return [] }
        var byName: [String: Int] = [:]
        var current = "[anonymous]"
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5 {
                // A mapping's header: address range, perms, offset, device, inode[, path].
                current = fields.count >= 6 ? String(fields[5].split(separator: "/").last ?? "") : "[anonymous]"
            } else if line.hasPrefix("Rss:") {
                byName[current, default: 0] += ProcessSample.field("Rss", in: String(line))
            }
        }
        return byName.sorted { $0.value > $1.value }.prefix(count).map { ($0.key, $0.value) }
    }

    /// The proportional set size of `pid`, in kibibytes (0 if it cannot be read).
    static func proportionalKilobytes(of pid: pid_t) -> Int {
        let rollup = (try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8)) ?? ""
        return ProcessSample.field("Pss", in: rollup)
    }
}
