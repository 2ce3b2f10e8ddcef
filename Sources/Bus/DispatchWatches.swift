internal import CDBus
import Dispatch

/// Drives one libdbus connection from a serial `DispatchQueue`.
///
/// libdbus describes what it needs as watches (file descriptors), timeouts
/// and "dispatch needed" notifications; each becomes a dispatch source or an
/// `async` on `queue`. Nothing polls, so an idle connection never wakes up.
///
/// libdbus holds one retained reference per registered callback set and drops
/// it through the matching free function. `@unchecked Sendable`: all state is
/// touched only on `queue`, checked with `dispatchPrecondition` where it changes.
internal final class DispatchWatches: @unchecked Sendable {
    /// Where every callback runs.
    let queue: DispatchQueue
    /// Not retained: the owning `BusConnection` keeps it alive until it
    /// calls `closeConnection()`.
    let connection: OpaquePointer
    private var isInvalidated = false
    private var isDispatchScheduled = false

    /// Prepares to drive `connection` from `queue`; nothing happens until `install()`.
    init(connection: OpaquePointer, queue: DispatchQueue) {
        self.connection = connection
        self.queue = queue
    }

    /// Registers the callbacks with libdbus. Must run on `queue`, so that the
    /// first watch events cannot race the registration.
    func install() {
        dispatchPrecondition(condition: .onQueue(queue))
        let watchesInstalled = dbus_connection_set_watch_functions(
            connection,
            { watch, context in
                DispatchWatches.from(context).add(watch!)
                return 1
            },
            { watch, _ in WatchSource.from(watch!)?.cancel() },
            { watch, _ in WatchSource.from(watch!)?.update() },
            Unmanaged.passRetained(self).toOpaque(),
            { context in Unmanaged<DispatchWatches>.fromOpaque(context!).release() })
        let timeoutsInstalled = dbus_connection_set_timeout_functions(
            connection,
            { timeout, context in
                DispatchWatches.from(context).add(timeout: timeout!)
                return 1
            },
            { timeout, _ in TimeoutSource.from(timeout!)?.cancel() },
            { timeout, _ in TimeoutSource.from(timeout!)?.update() },
            Unmanaged.passRetained(self).toOpaque(),
            { context in Unmanaged<DispatchWatches>.fromOpaque(context!).release() })
        guard watchesInstalled != 0, timeoutsInstalled != 0 else { fatalError("libdbus: out of memory") }

        dbus_connection_set_dispatch_status_function(
            connection,
            { _, status, context in
                if status == DBUS_DISPATCH_DATA_REMAINS { DispatchWatches.from(context).scheduleDispatch() }
            },
            Unmanaged.passRetained(self).toOpaque(),
            { context in Unmanaged<DispatchWatches>.fromOpaque(context!).release() })

        // libdbus calls this (from whichever thread touched the connection)
        // when the main loop should look again; hop to the queue before
        // touching state. Write readiness itself arrives through the write watch.
        dbus_connection_set_wakeup_main_function(
            connection,
            { context in
                let watches = DispatchWatches.from(context)
                watches.queue.async { watches.didHandleEvent() }
            },
            Unmanaged.passRetained(self).toOpaque(),
            { context in Unmanaged<DispatchWatches>.fromOpaque(context!).release() })

        // Messages may have been queued before attaching (e.g. NameAcquired).
        scheduleDispatch()
    }

    /// Stops all future work, then closes and releases the connection.
    /// Running on `queue` means no watch or timeout callback is mid-flight.
    func closeConnection() {
        dispatchPrecondition(condition: .onQueue(queue))
        isInvalidated = true
        dbus_connection_close(connection)  // removes watches, cancelling their sources
        dbus_connection_unref(connection)  // finalizing calls the free functions
    }

    /// Dispatches one incoming message per queue turn, so a flood of calls
    /// cannot starve other work on the queue.
    func scheduleDispatch() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isDispatchScheduled, !isInvalidated else { return }
        isDispatchScheduled = true
        queue.async { [self] in
            isDispatchScheduled = false
            guard !isInvalidated else { return }
            if dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {
                scheduleDispatch()
            }
        }
    }

    private func add(_ watch: OpaquePointer) {
        let source = WatchSource(watch: watch, owner: self)
        dbus_watch_set_data(watch, Unmanaged.passRetained(source).toOpaque()) { data in
            Unmanaged<WatchSource>.fromOpaque(data!).release()
        }
        source.update()
    }

    private func add(timeout: OpaquePointer) {
        let source = TimeoutSource(timeout: timeout, owner: self)
        dbus_timeout_set_data(timeout, Unmanaged.passRetained(source).toOpaque()) { data in
            Unmanaged<TimeoutSource>.fromOpaque(data!).release()
        }
        source.update()
    }

    /// Called after libdbus handled I/O, a timeout or a wake-up: new messages may be ready.
    fileprivate func didHandleEvent() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isInvalidated else { return }
        if dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
            scheduleDispatch()
        }
    }

    fileprivate static func from(_ context: UnsafeMutableRawPointer?) -> DispatchWatches {
        Unmanaged<DispatchWatches>.fromOpaque(context!).takeUnretainedValue()
    }
}

/// Suspends or resumes a dispatch source while keeping libdispatch's
/// suspend count balanced (it traps on over-resume and on releasing a
/// suspended source).
private struct SourceState {
    private(set) var isResumed = false
    private(set) var isCancelled = false

    /// Resumes or suspends, but only on an actual change.
    mutating func setEnabled(_ enabled: Bool, _ source: DispatchSourceProtocol) {
        guard !isCancelled, enabled != isResumed else { return }
        if enabled { source.resume() } else { source.suspend() }
        isResumed = enabled
    }

    /// Cancels once, leaving the source in a releasable state.
    mutating func cancel(_ source: DispatchSourceProtocol) {
        guard !isCancelled else { return }
        isCancelled = true
        source.cancel()
        // A cancelled source must be resumed once to be released; cancellation
        // guarantees the event handler will not run.
        if !isResumed { source.resume() }
    }
}

/// A libdbus watch as one read and/or write dispatch source.
private final class WatchSource {
    private let watch: OpaquePointer
    private var sources: [(source: DispatchSourceProtocol, state: SourceState)] = []

    /// Creates suspended sources for the watch's fd and directions.
    init(watch: OpaquePointer, owner: DispatchWatches) {
        self.watch = watch
        let fd = dbus_watch_get_unix_fd(watch)
        let flags = dbus_watch_get_flags(watch)
        if flags & DBUS_WATCH_READABLE.rawValue != 0 {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: owner.queue)
            source.setEventHandler { [weak self, weak owner] in
                self?.handle(DBUS_WATCH_READABLE, owner)
            }
            sources.append((source, SourceState()))
        }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: owner.queue)
            source.setEventHandler { [weak self, weak owner] in
                self?.handle(DBUS_WATCH_WRITABLE, owner)
            }
            sources.append((source, SourceState()))
        }
    }

    deinit {
        cancel()
    }

    /// Follows libdbus's enabled flag (e.g. the write watch is only enabled
    /// while output is pending).
    func update() {
        let enabled = dbus_watch_get_enabled(watch) != 0
        for index in sources.indices {
            sources[index].state.setEnabled(enabled, sources[index].source)
        }
    }

    /// libdbus removed the watch.
    func cancel() {
        for index in sources.indices {
            sources[index].state.cancel(sources[index].source)
        }
    }

    private func handle(_ flag: DBusWatchFlags, _ owner: DispatchWatches?) {
        guard let owner, !sources.contains(where: { $0.state.isCancelled }) else { return }
        // Errors and hang-ups surface as readability; libdbus then reads EOF
        // and reports the disconnect through the message stream.
        _ = dbus_watch_handle(watch, flag.rawValue)
        owner.didHandleEvent()
    }

    /// The source attached to `watch` by `DispatchWatches.add(_:)`.
    static func from(_ watch: OpaquePointer) -> WatchSource? {
        dbus_watch_get_data(watch).map { Unmanaged<WatchSource>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// A libdbus timeout as a repeating dispatch timer.
private final class TimeoutSource {
    private let timeout: OpaquePointer
    private let timer: DispatchSourceTimer
    private var state = SourceState()

    /// Creates a suspended timer for the timeout.
    init(timeout: OpaquePointer, owner: DispatchWatches) {
        self.timeout = timeout
        timer = DispatchSource.makeTimerSource(queue: owner.queue)
        timer.setEventHandler { [weak self, weak owner] in
            guard let self, let owner, !self.state.isCancelled else { return }
            _ = dbus_timeout_handle(self.timeout)
            owner.didHandleEvent()
        }
    }

    deinit {
        cancel()
    }

    /// Re-arms from now: libdbus toggles a timeout to restart it or change its interval.
    func update() {
        let enabled = dbus_timeout_get_enabled(timeout) != 0
        if enabled {
            let interval = DispatchTimeInterval.milliseconds(Int(dbus_timeout_get_interval(timeout)))
            timer.schedule(deadline: .now() + interval, repeating: interval)
        }
        state.setEnabled(enabled, timer)
    }

    /// libdbus removed the timeout.
    func cancel() {
        state.cancel(timer)
    }

    /// The source attached to `timeout` by `DispatchWatches.add(timeout:)`.
    static func from(_ timeout: OpaquePointer) -> TimeoutSource? {
        dbus_timeout_get_data(timeout).map { Unmanaged<TimeoutSource>.fromOpaque($0).takeUnretainedValue() }
    }
}
