import Dispatch
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// Tells when files in one directory are finished, moved in or out, or deleted, through
/// inotify, so memos copied in by hand appear without any polling.
///
/// The inotify descriptor is read by a DispatchSource on `queue`; bursts of events (a
/// copy, a rename) are folded into one `onChange` call shortly after the last of them.
/// `@unchecked Sendable`: its state is touched only on `queue` (checked in `start` and
/// `drain`), where `onChange` is called.
package final class DirectoryWatcher: @unchecked Sendable {
    private let descriptor: Int32
    private let source: DispatchSourceRead
    private let queue: DispatchQueue
    private var pending: DispatchWorkItem?
    private var watch: Int32 = -1
    private let path: String
    package var onChange: (() -> Void)?

    /// Watches `path` (which may not exist yet: `start` retries when asked again).
    package init(path: String, queue: DispatchQueue) throws(RecorderError) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw .storage("cannot watch \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.queue = queue
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [weak self] in self?.drain() }
        source.setCancelHandler { [descriptor] in close(descriptor) }
        source.activate()
    }

    deinit {
        source.cancel()
    }

    /// Starts watching if the directory exists now; harmless to call again.
    package func start() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard watch < 0 else { return }
        let mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
        watch = inotify_add_watch(descriptor, path, UInt32(mask))
    }

    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var sawSelfGone = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.mask, Int(event.len))
                }
                if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { sawSelfGone = true }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
        if sawSelfGone { watch = -1 }
        // Fold a burst into one rescan, 50 ms after its last event.
        pending?.cancel()
        let work = DispatchWorkItem { [weak self] in self?.onChange?() }
        pending = work
        queue.asyncAfter(deadline: .now() + .milliseconds(50), execute: work)
    }
}
