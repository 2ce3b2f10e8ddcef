internal import CPulse
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc  // getpid
#endif

/// What the audio server says about its inputs, and where this process records from, at one moment.
public struct ServerSnapshot: Equatable, Sendable {
    /// One input the server offers.
    public struct Source: Equatable, Sendable {
        public var name: String
        public var isMuted: Bool
        /// The active port (a jack, a headset), empty for devices without ports.
        public var activePort: String
        /// Whether it is a sink's monitor rather than a real input.
        public var isMonitor: Bool
    }

    public var defaultSource: String
    public var sources: [Source]
    /// The source this process's newest record stream is on; nil when it has none.
    public var capturingSource: String?

    public init(defaultSource: String, sources: [Source], capturingSource: String? = nil) {
        self.defaultSource = defaultSource
        self.sources = sources
        self.capturingSource = capturingSource
    }
}

/// Watches the audio server through libpulse's async API: after every change to its
/// sources or defaults, a fresh `ServerSnapshot` is delivered on `queue` (nil while the
/// server is gone). Reconnects by itself when the server comes back.
///
/// `@unchecked Sendable`: the context and the other mutable state live on a
/// `pa_threaded_mainloop`; everything touching them runs on that loop's thread (in its
/// callbacks, checked in `refresh`) or under its lock.
public final class ServerMonitor: @unchecked Sendable {
    private let mainloop: OpaquePointer
    private var context: OpaquePointer?
    private let queue: DispatchQueue
    private var onSnapshot: @Sendable (ServerSnapshot?) -> Void = { _ in }
    private var isClosed = false
    private let knownDefaultSource = Mutex<String?>(nil)

    /// The server's default input as of the last snapshot; nil while the server is gone or
    /// not heard from yet. Any thread may ask: a recording's start learns where it will
    /// record without a connection (several milliseconds on pipewire-pulse) of its own.
    public var defaultSource: String? { knownDefaultSource.withLock { $0 } }

    /// A monitor delivering on `queue`; it connects once `start(onSnapshot:)` is called.
    public init(queue: DispatchQueue) {
        self.queue = queue
        mainloop = pa_threaded_mainloop_new()
        pa_threaded_mainloop_start(mainloop)
    }

    /// Connects, and from now on delivers every snapshot to `onSnapshot` on the queue.
    public func start(onSnapshot: @escaping @Sendable (ServerSnapshot?) -> Void) {
        withLock {
            self.onSnapshot = onSnapshot
            connect()
        }
    }

    deinit {
        withLock {
            isClosed = true
            dropContext()
        }
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    private func withLock<T>(_ body: () -> T) -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return body()
    }

    private func assertOnLoopThread() {
        precondition(pa_threaded_mainloop_in_thread(mainloop) != 0, "not on the monitor's mainloop thread")
    }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func monitor(_ userdata: UnsafeMutableRawPointer?) -> ServerMonitor {
        Unmanaged<ServerMonitor>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// Creates a context and connects it; called with the lock held or on the loop thread.
    private func connect() {
        guard !isClosed, let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), "voicememo monitor")
        else { return }
        self.context = context
        pa_context_set_state_callback(
            context,
            { context, userdata in
                ServerMonitor.monitor(userdata).stateChanged(context!)
            }, userdata)
        // NOFAIL: wait for a server that is not there yet instead of failing.
        pa_context_connect(
            context, nil, pa_context_flags_t(PA_CONTEXT_NOAUTOSPAWN.rawValue | PA_CONTEXT_NOFAIL.rawValue), nil)
    }

    private func dropContext() {
        guard let context else { return }
        pa_context_set_state_callback(context, nil, nil)
        pa_context_set_subscribe_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        self.context = nil
    }

    /// On the loop thread, or (for the first state change) inside `pa_context_connect` under the lock.
    private func stateChanged(_ context: OpaquePointer) {
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            pa_context_set_subscribe_callback(
                context,
                { _, _, _, userdata in
                    ServerMonitor.monitor(userdata).refresh()
                }, userdata)
            // Source outputs: a record stream moved by the server shows only there.
            let mask =
                PA_SUBSCRIPTION_MASK_SOURCE.rawValue | PA_SUBSCRIPTION_MASK_SOURCE_OUTPUT.rawValue
                | PA_SUBSCRIPTION_MASK_SERVER.rawValue
            if let operation = pa_context_subscribe(context, pa_subscription_mask_t(mask), nil, nil) {
                pa_operation_unref(operation)
            }
            refresh()
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            // The server went away: say so, and start over with a new context shortly.
            deliver(nil)
            dropContext()
            let api = pa_threaded_mainloop_get_api(mainloop)!
            var retry = timeval()
            pa_gettimeofday(&retry)
            pa_timeval_add(&retry, 500_000)
            _ = api.pointee.time_new(
                api, &retry,
                { api, event, _, userdata in
                    api!.pointee.time_free(event)
                    ServerMonitor.monitor(userdata).connect()
                }, userdata)
        default:
            break
        }
    }

    /// Asks for the default source, every source and every record stream; the last reply
    /// delivers the snapshot. Each refresh has its own builder, so overlapping refreshes
    /// never mix.
    private func refresh() {
        assertOnLoopThread()
        guard let context else { return }
        let builder = SnapshotBuilder(monitor: self)
        // One reference for each operation's callback, released by its last call.
        if let operation = pa_context_get_server_info(
            context,
            { _, info, userdata in
                let builder = Unmanaged<SnapshotBuilder>.fromOpaque(userdata!).takeRetainedValue()
                builder.snapshot.defaultSource = info?.pointee.default_source_name.map { String(cString: $0) } ?? ""
            }, Unmanaged.passRetained(builder).toOpaque())
        {
            pa_operation_unref(operation)
        }
        if let operation = pa_context_get_source_info_list(
            context,
            { _, info, isLast, userdata in
                let reference = Unmanaged<SnapshotBuilder>.fromOpaque(userdata!)
                guard isLast == 0 else { return reference.release() }
                guard let info = info?.pointee else { return }
                let builder = reference.takeUnretainedValue()
                builder.sourceNames[info.index] = String(cString: info.name)
                builder.snapshot.sources.append(
                    ServerSnapshot.Source(
                        name: String(cString: info.name), isMuted: info.mute != 0,
                        activePort: info.active_port.map { String(cString: $0.pointee.name) } ?? "",
                        isMonitor: info.monitor_of_sink != UInt32.max))
            }, Unmanaged.passRetained(builder).toOpaque())
        {
            pa_operation_unref(operation)
        }
        // Replies come in order: the stream list ends the refresh.
        if let operation = pa_context_get_source_output_info_list(
            context,
            { _, info, isLast, userdata in
                let reference = Unmanaged<SnapshotBuilder>.fromOpaque(userdata!)
                guard isLast == 0 else {
                    let builder = reference.takeRetainedValue()
                    if isLast > 0 { builder.finish() }
                    return
                }
                guard let info = info?.pointee,
                    let processID = pa_proplist_gets(info.proplist, PA_PROP_APPLICATION_PROCESS_ID),
                    String(cString: processID) == ServerMonitor.processID
                else { return }
                let builder = reference.takeUnretainedValue()
                if builder.newestStream.map({ info.index > $0.stream }) ?? true {
                    builder.newestStream = (info.index, info.source)
                }
            }, Unmanaged.passRetained(builder).toOpaque())
        {
            pa_operation_unref(operation)
        }
    }

    /// This process's id as libpulse writes it into every stream's properties.
    private static let processID = String(getpid())

    fileprivate func deliver(_ snapshot: ServerSnapshot?) {
        knownDefaultSource.withLock { $0 = snapshot.map(\.defaultSource).flatMap { $0.isEmpty ? nil : $0 } }
        queue.async { [onSnapshot] in onSnapshot(snapshot) }
    }
}

/// The snapshot one refresh assembles from its replies (on the mainloop thread).
private final class SnapshotBuilder {
    unowned let monitor: ServerMonitor
    var snapshot = ServerSnapshot(defaultSource: "", sources: [])
    var sourceNames: [UInt32: String] = [:]
    /// This process's newest record stream, and its source's index.
    var newestStream: (stream: UInt32, source: UInt32)?

    init(monitor: ServerMonitor) {
        self.monitor = monitor
    }

    func finish() {
        snapshot.capturingSource = newestStream.flatMap { sourceNames[$0.source] }
        monitor.deliver(snapshot)
    }
}
