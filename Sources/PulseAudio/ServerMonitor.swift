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
        public var isMonitor: Bool { monitoredSink != nil }
        /// The sink it monitors, for a monitor.
        public var monitoredSink: String?
    }

    public var defaultSource: String
    /// The default output (sink); empty when the server has none.
    public var defaultSink = ""
    /// The server's own name (`pulseaudio`, or pipewire-pulse's `PulseAudio (on PipeWire …)`).
    public var serverName = ""
    public var sources: [Source]
    /// The source this process's newest record stream is on; nil when it has none. A call's
    /// stream of system audio is not counted: it is `systemAudioSource`.
    public var capturingSource: String?
    /// The source this process's newest stream of system audio is on; nil when it has none.
    public var systemAudioSource: String?

    public init(defaultSource: String, sources: [Source], capturingSource: String? = nil) {
        self.defaultSource = defaultSource
        self.sources = sources
        self.capturingSource = capturingSource
    }

    /// The default output and its monitor; nil when the server has no output.
    public var defaultOutput: OutputDevice? {
        guard !defaultSink.isEmpty else { return nil }
        return OutputDevice(
            sink: defaultSink, monitorSource: monitor(of: defaultSink))
    }

    /// The source that monitors `sink`; nil when none does.
    public func monitor(of sink: String) -> String? {
        sources.first { $0.monitoredSink == sink }?.name
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
    private var context: Pulse.AsyncContext?
    private let queue: DispatchQueue
    private var onSnapshot: @Sendable (ServerSnapshot?) -> Void = { _ in }
    private var isClosed = false
    private let knownDefaultSource = Mutex<String?>(nil)
    private let knownDefaultOutput = Mutex<OutputDevice?>(nil)
    private let knownServerName = Mutex<String?>(nil)

    /// The server's default input as of the last snapshot; nil while the server is gone or
    /// not heard from yet. Any thread may ask: a recording's start learns where it will
    /// record without a connection (several milliseconds on pipewire-pulse) of its own.
    public var defaultSource: String? { knownDefaultSource.withLock { $0 } }

    /// The server's default output as of the last snapshot, like `defaultSource`.
    public var defaultOutput: OutputDevice? { knownDefaultOutput.withLock { $0 } }

    /// How capture streams on the server are best timed, as of the last snapshot; nil while
    /// the server is gone or not heard from yet.
    public var captureTiming: CaptureTiming? { knownServerName.withLock { $0 }.map(CaptureTiming.init(serverName:)) }

    /// A monitor delivering on `queue`; it connects once `start(onSnapshot:)` is called.
    public init(queue: DispatchQueue) {
        self.queue = queue
        mainloop = Pulse.startThreadedMainloop()
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
        Pulse.stopAndFreeThreadedMainloop(mainloop)
    }

    private func withLock<T>(_ body: () -> T) -> T {
        Pulse.lock(mainloop)
        defer { Pulse.unlock(mainloop) }
        return body()
    }

    private func assertOnLoopThread() {
        precondition(Pulse.isOnLoopThread(mainloop), "not on the monitor's mainloop thread")
    }

    /// Creates a context and connects it; called with the lock held or on the loop thread.
    private func connect() {
        guard !isClosed else { return }
        // Unretained, as the monitor outlives its contexts and timers: its deinit drops the
        // last under the lock, and a callback that got the lock first still finds it whole.
        let observer = ContextObserver(
            stateChanged: { [unowned(unsafe) self] state in stateChanged(state) },
            serverChanged: { [unowned(unsafe) self] in refresh() })
        guard
            let context = Pulse.makeContext(onThreadedMainloop: mainloop, name: "voicememo monitor", observer: observer)
        else { return }
        self.context = context
        // Wait for a server that is not there yet instead of failing.
        _ = Pulse.connect(context, waitForServer: true)
    }

    private func dropContext() {
        guard let context else { return }
        Pulse.free(context)
        self.context = nil
    }

    /// On the loop thread, or (for the first state change) inside `Pulse.connect` under the lock.
    private func stateChanged(_ state: Pulse.ContextState) {
        switch state {
        case .ready:
            guard let context else { return }
            Pulse.subscribeToSourceChanges(context)
            refresh()
        case .gone:
            // The server went away: say so, and start over with a new context shortly.
            deliver(nil)
            dropContext()
            Pulse.schedule(on: mainloop, afterMicroseconds: 500_000) { [unowned(unsafe) self] in connect() }
        case .connecting:
            break
        }
    }

    /// Asks for the default source, every source and every record stream; the last reply
    /// delivers the snapshot. Each refresh has its own builder, so overlapping refreshes
    /// never mix.
    private func refresh() {
        assertOnLoopThread()
        guard let context else { return }
        // Each request's callbacks hold the builder until libpulse is done with the request.
        let builder = SnapshotBuilder(monitor: self)
        Pulse.requestDefaults(context) { source, sink, serverName in
            builder.snapshot.defaultSource = source
            builder.snapshot.defaultSink = sink
            builder.snapshot.serverName = serverName
        }
        Pulse.requestSources(context) { source in
            builder.sourceNames[source.index] = source.name
            builder.snapshot.sources.append(
                ServerSnapshot.Source(
                    name: source.name, isMuted: source.isMuted, activePort: source.activePort,
                    monitoredSink: source.monitoredSink))
        }
        // Replies come in order: the stream list ends the refresh.
        Pulse.requestRecordStreams(
            context,
            each: { stream in
                guard stream.processID == ServerMonitor.processID else { return }
                if stream.name.hasSuffix(CaptureStream.systemAudioSuffix) {
                    if builder.newestSystemStream.map({ stream.index > $0.stream }) ?? true {
                        builder.newestSystemStream = (stream.index, stream.source)
                    }
                } else if builder.newestStream.map({ stream.index > $0.stream }) ?? true {
                    builder.newestStream = (stream.index, stream.source)
                }
            },
            end: { isComplete in
                if isComplete { builder.finish() }
            })
    }

    /// This process's id as libpulse writes it into every stream's properties.
    private static let processID = String(getpid())

    fileprivate func deliver(_ snapshot: ServerSnapshot?) {
        knownDefaultSource.withLock { $0 = snapshot.map(\.defaultSource).flatMap { $0.isEmpty ? nil : $0 } }
        knownDefaultOutput.withLock { $0 = snapshot?.defaultOutput }
        knownServerName.withLock { $0 = snapshot.map(\.serverName).flatMap { $0.isEmpty ? nil : $0 } }
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
    /// This process's newest stream of system audio, and its source's index.
    var newestSystemStream: (stream: UInt32, source: UInt32)?

    init(monitor: ServerMonitor) {
        self.monitor = monitor
    }

    func finish() {
        snapshot.capturingSource = newestStream.flatMap { sourceNames[$0.source] }
        snapshot.systemAudioSource = newestSystemStream.flatMap { sourceNames[$0.source] }
        monitor.deliver(snapshot)
    }
}
