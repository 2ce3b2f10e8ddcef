internal import CPulse

/// Every call into libpulse's async API goes through here (as `Pulse.swift` does for the
/// simple API), so `ServerMonitor` and `ServerInfo` read as logic over Swift values.
///
/// C callbacks reach Swift through a small final class passed with `Unmanaged`: a context's
/// `ContextObserver` is retained by `makeContext` and released by `free(_:)`, an operation's
/// reply box when libpulse says the operation is done or cancelled, a timer's when the
/// mainloop destroys the timer; each exactly once.
extension Pulse {
    /// Where a context is in its life, as far as its users care.
    enum ContextState {
        /// Still connecting (or waiting for a server, with `waitForServer`).
        case connecting
        /// Connected: requests may be made.
        case ready
        /// Failed or terminated; the context is of no further use.
        case gone
    }

    /// One input, from the server's source list.
    struct SourceDescription {
        /// The server's index, which record streams refer to.
        var index: UInt32
        /// The source's name, as streams and the server's defaults give it.
        var name: String
        /// Whether the source is muted.
        var isMuted: Bool
        /// The active port's name, empty for devices without ports.
        var activePort: String
        /// Whether it is a sink's monitor rather than a real input.
        var isMonitor: Bool { monitoredSink != nil }
        /// The sink it monitors, for a monitor.
        var monitoredSink: String?
    }

    /// One record stream, from the server's source output list.
    struct RecordStreamDescription {
        /// The server's index; newer streams have higher ones.
        var index: UInt32
        /// The index of the source it records from.
        var source: UInt32
        /// The process id its client wrote into its properties, if any.
        var processID: String?
        /// The stream's name (its media name).
        var name: String
    }

    /// A libpulse async context with the observer its callbacks reach; `free(_:)` ends both.
    struct AsyncContext {
        fileprivate let handle: OpaquePointer
        fileprivate let observer: Unmanaged<ContextObserver>
    }

    // MARK: Mainloops

    /// A started `pa_threaded_mainloop`: its own thread runs every callback.
    static func startThreadedMainloop() -> OpaquePointer {
        guard let mainloop = pa_threaded_mainloop_new() else { fatalError("libpulse: out of memory") }
        pa_threaded_mainloop_start(mainloop)
        return mainloop
    }

    /// Stops the loop's thread and frees it; call without holding its lock.
    static func stopAndFreeThreadedMainloop(_ mainloop: OpaquePointer) {
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    /// Takes the loop's lock, which every call from outside its thread must hold.
    static func lock(_ mainloop: OpaquePointer) {
        pa_threaded_mainloop_lock(mainloop)
    }

    /// Releases the lock taken by `lock(_:)`.
    static func unlock(_ mainloop: OpaquePointer) {
        pa_threaded_mainloop_unlock(mainloop)
    }

    /// Whether the caller is the loop's own thread.
    static func isOnLoopThread(_ mainloop: OpaquePointer) -> Bool {
        pa_threaded_mainloop_in_thread(mainloop) != 0
    }

    /// Runs `body` once on the loop's thread after `microseconds`; call on that thread or
    /// under its lock.
    static func schedule(
        on mainloop: OpaquePointer, afterMicroseconds microseconds: UInt64, _ body: @escaping () -> Void
    ) {
        let api = pa_threaded_mainloop_get_api(mainloop)!
        var deadline = timeval()
        pa_gettimeofday(&deadline)
        pa_timeval_add(&deadline, microseconds)
        let timer = Callback(body)
        guard
            let event = api.pointee.time_new(
                api, &deadline,
                { api, event, _, userdata in
                    let timer = Unmanaged<Callback>.fromOpaque(userdata!).takeUnretainedValue()
                    api!.pointee.time_free(event)
                    timer.body()
                }, Unmanaged.passRetained(timer).toOpaque())
        else { fatalError("libpulse: out of memory") }
        // Called once, when the event is freed: after firing, or with the mainloop.
        api.pointee.time_set_destroy(event) { _, _, userdata in
            Unmanaged<Callback>.fromOpaque(userdata!).release()
        }
    }

    /// A private `pa_mainloop`, run by `iterate(_:)` on the caller's thread.
    static func makeMainloop() -> OpaquePointer {
        guard let mainloop = pa_mainloop_new() else { fatalError("libpulse: out of memory") }
        return mainloop
    }

    /// Frees a mainloop from `makeMainloop()`.
    static func freeMainloop(_ mainloop: OpaquePointer) {
        pa_mainloop_free(mainloop)
    }

    /// Waits for and dispatches one round of events; `false` if the loop failed or quit.
    static func iterate(_ mainloop: OpaquePointer) -> Bool {
        pa_mainloop_iterate(mainloop, 1, nil) >= 0
    }

    // MARK: Contexts

    /// A context on a threaded mainloop whose state changes go to `observer`; nil if out of memory.
    static func makeContext(
        onThreadedMainloop mainloop: OpaquePointer, name: String, observer: ContextObserver
    ) -> AsyncContext? {
        makeContext(api: pa_threaded_mainloop_get_api(mainloop), name: name, observer: observer)
    }

    /// A context on a private mainloop whose state changes go to `observer`.
    static func makeContext(onMainloop mainloop: OpaquePointer, name: String, observer: ContextObserver) -> AsyncContext
    {
        guard let context = makeContext(api: pa_mainloop_get_api(mainloop), name: name, observer: observer) else {
            fatalError("libpulse: out of memory")
        }
        return context
    }

    private static func makeContext(
        api: UnsafeMutablePointer<pa_mainloop_api>?, name: String, observer: ContextObserver
    ) -> AsyncContext? {
        guard let handle = pa_context_new(api, name) else { return nil }
        let context = AsyncContext(handle: handle, observer: Unmanaged.passRetained(observer))
        pa_context_set_state_callback(
            handle,
            { context, userdata in
                let observer = Unmanaged<ContextObserver>.fromOpaque(userdata!).takeUnretainedValue()
                observer.stateChanged(Pulse.state(context!))
            }, context.observer.toOpaque())
        return context
    }

    /// Starts connecting to the default server (never spawning one). With `waitForServer`, a
    /// missing server is waited for instead of failing. `false` if the attempt failed at once.
    static func connect(_ context: AsyncContext, waitForServer: Bool) -> Bool {
        var flags = PA_CONTEXT_NOAUTOSPAWN.rawValue
        if waitForServer { flags |= PA_CONTEXT_NOFAIL.rawValue }
        return pa_context_connect(context.handle, nil, pa_context_flags_t(flags), nil) >= 0
    }

    /// The context's state, as `ContextState`.
    static func state(_ context: AsyncContext) -> ContextState {
        state(context.handle)
    }

    private static func state(_ handle: OpaquePointer) -> ContextState {
        switch pa_context_get_state(handle) {
        case PA_CONTEXT_READY: .ready
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: .gone
        default: .connecting
        }
    }

    /// What libpulse says about the context's last failure (`pa_strerror`).
    static func lastError(_ context: AsyncContext) -> String {
        message(pa_context_errno(context.handle))
    }

    /// Tells the observer's `serverChanged` about every change to the sources, the record
    /// streams (a stream moved by the server shows only there) and the server's defaults.
    static func subscribeToSourceChanges(_ context: AsyncContext) {
        // The reference `makeContext` took covers this callback too; `free` clears both.
        pa_context_set_subscribe_callback(
            context.handle,
            { _, _, _, userdata in
                Unmanaged<ContextObserver>.fromOpaque(userdata!).takeUnretainedValue().serverChanged()
            }, context.observer.toOpaque())
        let mask =
            PA_SUBSCRIPTION_MASK_SOURCE.rawValue | PA_SUBSCRIPTION_MASK_SOURCE_OUTPUT.rawValue
            | PA_SUBSCRIPTION_MASK_SERVER.rawValue
        if let operation = pa_context_subscribe(context.handle, pa_subscription_mask_t(mask), nil, nil) {
            pa_operation_unref(operation)
        }
    }

    /// Silences the context's callbacks, disconnects and frees it, and releases its observer.
    static func free(_ context: AsyncContext) {
        pa_context_set_state_callback(context.handle, nil, nil)
        pa_context_set_subscribe_callback(context.handle, nil, nil)
        pa_context_disconnect(context.handle)
        pa_context_unref(context.handle)
        context.observer.release()
    }

    // MARK: Introspection

    /// Asks for the server's default source; `reply` gets its name (empty if the server
    /// has none or the request failed). Not called if the context goes away first.
    static func requestDefaultSource(_ context: AsyncContext, reply: @escaping (String) -> Void) {
        requestDefaults(context) { source, _, _ in reply(source) }
    }

    /// Asks for the server's default source and sink (empty when it has none), and its name.
    static func requestDefaults(
        _ context: AsyncContext, reply: @escaping (_ source: String, _ sink: String, _ serverName: String) -> Void
    ) {
        let box = Reply { raw in
            let info = raw?.assumingMemoryBound(to: pa_server_info.self).pointee
            reply(
                info?.default_source_name.map(String.init(cString:)) ?? "",
                info?.default_sink_name.map(String.init(cString:)) ?? "",
                info?.server_name.map(String.init(cString:)) ?? "")
        }
        track(
            pa_context_get_server_info(
                context.handle,
                { _, info, userdata in
                    Unmanaged<Reply>.fromOpaque(userdata!).takeUnretainedValue().item(UnsafeRawPointer(info))
                }, Unmanaged.passRetained(box).toOpaque()), box)
    }

    /// Asks for every source; `each` gets them one by one, then `end` runs, told whether the
    /// list is complete.
    static func requestSources(
        _ context: AsyncContext, each: @escaping (SourceDescription) -> Void,
        end: @escaping (_ isComplete: Bool) -> Void = { _ in }
    ) {
        let box = Reply(
            item: { raw in
                guard let info = raw?.assumingMemoryBound(to: pa_source_info.self).pointee else { return }
                each(
                    SourceDescription(
                        index: info.index, name: String(cString: info.name), isMuted: info.mute != 0,
                        activePort: info.active_port.map { String(cString: $0.pointee.name) } ?? "",
                        monitoredSink: info.monitor_of_sink == UInt32.max
                            ? nil : info.monitor_of_sink_name.map { String(cString: $0) } ?? ""))
            }, end: end)
        track(
            pa_context_get_source_info_list(
                context.handle,
                { _, info, isLast, userdata in
                    Unmanaged<Reply>.fromOpaque(userdata!).takeUnretainedValue().list(UnsafeRawPointer(info), isLast)
                }, Unmanaged.passRetained(box).toOpaque()), box)
    }

    /// Asks for every record stream: `each` gets them one by one, then `end` runs, told
    /// whether the list is complete (`false` if the server answered with an error).
    static func requestRecordStreams(
        _ context: AsyncContext, each: @escaping (RecordStreamDescription) -> Void,
        end: @escaping (_ isComplete: Bool) -> Void
    ) {
        let box = Reply(
            item: { raw in
                guard let info = raw?.assumingMemoryBound(to: pa_source_output_info.self).pointee else { return }
                each(
                    RecordStreamDescription(
                        index: info.index, source: info.source,
                        processID: pa_proplist_gets(info.proplist, PA_PROP_APPLICATION_PROCESS_ID).map(
                            String.init(cString:)),
                        name: info.name.map { String(cString: $0) } ?? ""))
            }, end: end)
        track(
            pa_context_get_source_output_info_list(
                context.handle,
                { _, info, isLast, userdata in
                    Unmanaged<Reply>.fromOpaque(userdata!).takeUnretainedValue().list(UnsafeRawPointer(info), isLast)
                }, Unmanaged.passRetained(box).toOpaque()), box)
    }

    /// Releases `box` (retained for the operation's callbacks) once the operation is done
    /// or cancelled; libpulse calls no reply callback after either.
    private static func track(_ operation: OpaquePointer?, _ box: Reply) {
        guard let operation else {
            Unmanaged.passUnretained(box).release()  // the request was not sent
            return
        }
        pa_operation_set_state_callback(
            operation,
            { operation, userdata in
                guard pa_operation_get_state(operation) != PA_OPERATION_RUNNING else { return }
                Unmanaged<Reply>.fromOpaque(userdata!).release()
            }, Unmanaged.passUnretained(box).toOpaque())
        pa_operation_unref(operation)
    }
}

/// Receives a context's state changes and subscription events on its mainloop's thread.
final class ContextObserver {
    /// Runs on every state change.
    let stateChanged: (Pulse.ContextState) -> Void
    /// Runs on every subscribed server event (see `Pulse.subscribeToSourceChanges`).
    let serverChanged: () -> Void

    /// An observer calling `stateChanged` and `serverChanged`.
    init(stateChanged: @escaping (Pulse.ContextState) -> Void, serverChanged: @escaping () -> Void = {}) {
        self.stateChanged = stateChanged
        self.serverChanged = serverChanged
    }
}

/// The Swift side of a timer's callback.
private final class Callback {
    let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
    }
}

/// The Swift side of one introspection request: each reply item (a pointer to libpulse's
/// info struct, valid only during the call), then the end of a list.
private final class Reply {
    let item: (UnsafeRawPointer?) -> Void
    let end: (_ isComplete: Bool) -> Void

    /// A request answered by a single callback.
    init(_ item: @escaping (UnsafeRawPointer?) -> Void) {
        self.item = item
        self.end = { _ in }
    }

    /// A request answered by a list.
    init(item: @escaping (UnsafeRawPointer?) -> Void, end: @escaping (_ isComplete: Bool) -> Void) {
        self.item = item
        self.end = end
    }

    /// One list callback: an item, or the end (`isLast` > 0 complete, < 0 failed).
    func list(_ info: UnsafeRawPointer?, _ isLast: Int32) {
        if isLast == 0 { item(info) } else { end(isLast > 0) }
    }
}
