import VoiceMemoCore

/// The start-up read of the memo library, run away from the bus queue: the cache's
/// entries whose files did not change, then each new or changed file inspected, handed
/// over in steps so the bus can announce memos as they become known.
struct LibraryLoading: Sendable {
    let files: MemoFiles
    let cache: LibraryCache

    /// What the load has found so far.
    enum Step: Sendable {
        /// The files the load will deliver or give up on.
        case planned(Set<String>)
        /// Memos now known, and the files settled by this step (delivered or unreadable).
        case known([MemoInfo], settled: [String])
        /// Done: what was found, and whether the cache no longer matches the directory.
        case finished(Summary)
    }

    /// What a load found, for the log and for saving the cache.
    struct Summary: Sendable, CustomStringConvertible {
        var fromCache = 0
        var read = 0
        var unreadable = 0
        var duration = Duration.zero
        var cacheIsStale = false

        var description: String {
            "\(fromCache + read) memos (\(fromCache) from the cache, \(read) read"
                + (unreadable > 0 ? ", \(unreadable) files not audio" : "") + ") in \(seconds) s"
        }

        private var seconds: Double {
            let (whole, fraction) = duration.components
            return ((Double(whole) + Double(fraction) / 1e18) * 100).rounded() / 100
        }
    }

    /// Memos per step: small enough that the bus queue is never held for long, large
    /// enough that ten thousand cached memos are not ten thousand hops.
    static let stepSize = 256

    /// Reads the library, passing each step to `report` in order.
    func run(report: (Step) -> Void) {
        let clock = ContinuousClock()
        let start = clock.now
        var summary = Summary()
        var cached = MemoCatalog(cache.load())
        let changes = cached.changes(for: files.listing())
        for id in changes.removed { cached.remove(id: id) }
        let rereadIDs = Set(changes.toRead.map { MemoNaming.memoID(forFileName: $0.fileName) })
        let valid = cached.newestFirst.filter { !rereadIDs.contains($0.id) }
        report(.planned(Set(valid.map(\.fileName) + changes.toRead.map(\.fileName))))
        summary.fromCache = valid.count
        for start in stride(from: 0, to: valid.count, by: Self.stepSize) {
            let memos = Array(valid[start..<min(start + Self.stepSize, valid.count)])
            report(.known(memos, settled: memos.map(\.fileName)))
        }
        // Newest first, as a listing shows them: the memos a user looks for come first.
        var memos: [MemoInfo] = []
        var settled: [String] = []
        for status in changes.toRead.reversed() {
            if let memo = files.inspect(status) {
                memos.append(memo)
                summary.read += 1
            } else {
                summary.unreadable += 1
            }
            settled.append(status.fileName)
            if settled.count == Self.stepSize {
                report(.known(memos, settled: settled))
                (memos, settled) = ([], [])
            }
        }
        if !settled.isEmpty { report(.known(memos, settled: settled)) }
        summary.cacheIsStale = !changes.removed.isEmpty || !changes.toRead.isEmpty
        summary.duration = clock.now - start
        report(.finished(summary))
    }
}
