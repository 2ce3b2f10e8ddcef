/// When the library's work may run: file work on a memo (a rename's copy, a trim) one job
/// at a time per memo, in the order asked, and a refresh of the whole directory only once
/// no file work is under way (a file half renamed is no change) and the start-up load is
/// over (before the load knows its files, a refresh would read them all on the bus's queue).
///
/// The load holds refreshes only, never file work: a memo is listed once the load has
/// settled its file, and from then on it may be renamed, trimmed or deleted.
///
/// Pure: the library service submits jobs and says when file work starts and ends; this
/// says what runs next. `Job` is whatever the service runs, a closure in the daemon.
public struct LibraryWorkSchedule<Job> {
    /// Where one memo's file work is.
    private enum MemoWork {
        /// File work runs away from the queue; the jobs wait for it, in order.
        case working(waiting: [Job])
        /// It ended; the jobs that waited run one by one until one starts file work again.
        case ending(waiting: [Job])
    }

    /// The start-up load, which holds every refresh until it ends.
    public enum Load: Equatable, Sendable {
        case notStarted, running, finished
    }

    private var memos: [String: MemoWork] = [:]
    /// Whether a refresh waits for the file work under way to end.
    private var isRefreshWaiting = false
    /// Where the start-up load is.
    public private(set) var load = Load.notStarted

    public init() {}

    /// The start-up load began: refreshes wait for its end.
    public mutating func loadStarted() {
        load = .running
    }

    /// The start-up load ended; the service refreshes then, for what changed meanwhile.
    public mutating func loadFinished() {
        load = .finished
    }

    /// Whether a refresh asked for now may run now. If not, it runs when the load ends
    /// (which always refreshes) or, if file work is under way, once the last of it ends
    /// (`takeWaitingRefresh()`).
    public mutating func mayRefresh() -> Bool {
        guard load != .running else { return false }
        guard memos.isEmpty else {
            isRefreshWaiting = true
            return false
        }
        return true
    }

    /// Asks to run `job` on memo `id`: returns it if it may run now, or keeps it until the
    /// file work under way on that memo ends.
    public mutating func submit(_ job: Job, on id: String) -> Job? {
        guard case .working(let waiting) = memos[id] else { return job }
        memos[id] = .working(waiting: waiting + [job])
        return nil
    }

    /// The job running now starts file work on memo `id`: later jobs on it wait for
    /// `finishWork(on:)`.
    public mutating func startWork(on id: String) {
        switch memos[id] {
        case .working?:
            preconditionFailure("file work on memo \(id) is already under way")
        case .ending(let waiting)?:
            memos[id] = .working(waiting: waiting)
        case nil:
            memos[id] = .working(waiting: [])
        }
    }

    /// The file work on memo `id` ended: the jobs that waited come from `nextJob(on:)`.
    public mutating func finishWork(on id: String) {
        guard case .working(let waiting) = memos[id] else { return }
        memos[id] = .ending(waiting: waiting)
    }

    /// The next job that waited for memo `id`'s file work, or nil: none is left, or the
    /// one before started file work again and the rest wait for that.
    public mutating func nextJob(on id: String) -> Job? {
        guard case .ending(var waiting) = memos[id] else { return nil }
        guard !waiting.isEmpty else {
            memos[id] = nil
            return nil
        }
        let job = waiting.removeFirst()
        memos[id] = .ending(waiting: waiting)
        return job
    }

    /// Whether the refresh that waited for file work runs now: once none is left.
    public mutating func takeWaitingRefresh() -> Bool {
        guard memos.isEmpty, isRefreshWaiting else { return false }
        isRefreshWaiting = false
        return true
    }
}
