import Dispatch
import VoiceMemoCore

/// Writes the library cache a moment after the last change, not on every one: a burst of
/// renames or a directory refresh costs one write.
///
/// Lives on the daemon's queue, like the library whose memos it saves.
final class LibraryCacheSaving {
    private let cache: LibraryCache
    private let queue: DispatchQueue
    /// The memos to save by id, read when the write is due.
    private let memos: () -> [String: MemoInfo]
    private var pendingSave: DispatchWorkItem?

    /// How long after the last change the cache is written.
    static let delay = DispatchTimeInterval.seconds(1)

    init(cache: LibraryCache, queue: DispatchQueue, memos: @escaping () -> [String: MemoInfo]) {
        self.cache = cache
        self.queue = queue
        self.memos = memos
    }

    /// Saves a moment from now, unless another change comes first.
    func schedule() {
        pendingSave?.cancel()
        let work = DispatchWorkItem { [weak self] in
            guard let self else { return }
            cache.save(memos().values)
            // The last step of a burst of library work.
            returnFreedMemory()
        }
        pendingSave = work
        queue.asyncAfter(deadline: .now() + Self.delay, execute: work)
    }

    /// Saves now (at exit), instead of a save still pending.
    func saveNow() {
        pendingSave?.cancel()
        cache.save(memos().values)
    }
}
