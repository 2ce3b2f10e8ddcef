#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own for work that blocks for as long as a stream lasts (a capture read
/// loop, a playback write loop), ending when the work returns. A Dispatch work item would
/// hold a pooled worker thread for a whole recording; this one is named in `top -H` and
/// gone once its stream is.
public enum DedicatedThread {
    /// Starts `body` on a new detached thread called `name` (at most 15 bytes are kept).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, run, work)
        pthread_attr_destroy(&attributes)
        // Only a process out of threads or memory gets here; it cannot record either way.
        precondition(status == 0, "cannot start the \(name) thread: \(String(cString: strerror(status)))")
    }

    /// The new thread's entry point: takes its work back, names itself, runs the work.
    private static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
        let work = Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue()
        nameCurrentThread(work.name)
        work.body()
        return nil
    }

    /// Names the calling thread through /proc (what `pthread_setname_np` does on Linux; it is
    /// a GNU extension Swift's Glibc module leaves out).
    private static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    private final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
