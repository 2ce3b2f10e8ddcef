import Bus
import Dispatch
import VoiceMemoCore
import VoiceMemoRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// logind's names on the system bus.
enum Login {
    static let busName = BusName("org.freedesktop.login1")
    static let path = ObjectPath("/org/freedesktop/login1")
    static let manager = InterfaceName("org.freedesktop.login1.Manager")
    static let session = InterfaceName("org.freedesktop.login1.Session")
    static let sessionPaths = ObjectPath("/org/freedesktop/login1/session")
    static let properties = InterfaceName("org.freedesktop.DBus.Properties")
    static let peer = InterfaceName("org.freedesktop.DBus.Peer")
}

/// Interrupts the recording for system sleep and for session switches, as logind reports
/// them on the system bus (issue 6), and holds a sleep *delay* inhibitor lock while a memo
/// is open so the file can be flushed before the machine sleeps.
///
/// Lives on the daemon's queue, like the recorder and the system bus connection; every
/// method must be called there, and the entry points check it (`@unchecked Sendable` only
/// so the recorder's `@Sendable` flush completion, delivered on that queue, may capture it).
package final class SessionMonitor: @unchecked Sendable {
    private let connection: BusConnection
    private let recorder: Recorder
    private let queue: DispatchQueue
    /// Set once logind answered; nothing happens before.
    private var isEnabled = false
    /// Set when the system bus or logind turned out to be missing.
    private var isOff = false
    /// The inhibitor lock, while held: closing it releases it.
    private var lock: UnixFileDescriptor?
    private var isRequestingLock = false
    /// Between `PrepareForSleep(true)` and `PrepareForSleep(false)`.
    private var isPreparingForSleep = false
    /// Between `PrepareForSleep(true)` and the open memo's file being on disk: the lock is kept.
    private var isFlushingBeforeSleep = false
    /// Our logind session, once found.
    private var sessionPath: ObjectPath?
    private var isSessionActive = true

    /// Connects to the system bus and starts watching logind, or returns `nil` (saying so in
    /// one log line) when there is no system bus; a missing logind is reported the same way
    /// once it fails to answer. Call from outside `queue`.
    package static func start(recorder: Recorder, queue: DispatchQueue) -> SessionMonitor? {
        let connection: BusConnection
        do {
            connection = try BusConnection.system()
            // Subscribed before attaching, while blocking on the bus is still harmless.
            try connection.addMatch(
                .signals(
                    sender: Login.busName, path: Login.path, interface: Login.manager,
                    member: MemberName("PrepareForSleep")))
            try connection.addMatch(
                .signals(
                    sender: Login.busName, pathNamespace: Login.sessionPaths, interface: Login.properties,
                    member: MemberName("PropertiesChanged"), arguments: [0: Login.session.rawValue]))
        } catch {
            Log.warning("no system bus (\(error.message)); sleep and session handling is off")
            return nil
        }
        let monitor = SessionMonitor(connection: connection, recorder: recorder, queue: queue)
        connection.attach(to: queue) { [weak monitor] in monitor?.turnOff("the system bus went away") }
        queue.async { monitor.begin() }
        return monitor
    }

    private init(connection: BusConnection, recorder: Recorder, queue: DispatchQueue) {
        self.connection = connection
        self.recorder = recorder
        self.queue = queue
    }

    /// The recorder's state changed: the lock follows whether a memo is open.
    private func recorderStateChanged() {
        dispatchPrecondition(condition: .onQueue(queue))
        updateLock()
        // A recording started while another session has the seat waits for ours (the recorder
        // acts on it once every listener has heard of this change).
        if !isSessionActive, recorder.state == .recording {
            recorder.beginInterruption(.sessionInactive, pausesCapture: true)
        }
    }

    // MARK: Start-up

    private func begin() {
        dispatchPrecondition(condition: .onQueue(queue))
        recorder.notifications.observe { [weak self] notification in
            guard case .changed(let properties) = notification, properties.contains(.state) else { return }
            self?.recorderStateChanged()
        }
        connection.addSignalHandler { [weak self] signal in self?.handle(signal) }
        connection.call(
            destination: Login.busName, path: Login.path, interface: Login.peer, member: MemberName("Ping"),
            timeout: .seconds(5)
        ) { [self] result in
            if case .failure(let error) = result { return turnOff("logind does not answer (\(error.message))") }
            guard !isOff else { return }
            isEnabled = true
            updateLock()
            findSession()
        }
    }

    /// Finds our session (`XDG_SESSION_ID`, else the caller's, "auto") and reads `Active`.
    private func findSession() {
        let id = getenv("XDG_SESSION_ID").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "auto"
        connection.call(
            destination: Login.busName, path: Login.path, interface: Login.manager,
            member: MemberName("GetSession"), arguments: [.string(id)]
        ) { [self] result in
            guard case .success(let reply) = result, let path = reply.first?.objectPath else {
                return Log.warning("no logind session for voicememod; session switches are not noticed")
            }
            sessionPath = path
            readSessionActive()
        }
    }

    private func readSessionActive() {
        guard let sessionPath else { return }
        connection.call(
            destination: Login.busName, path: sessionPath, interface: Login.properties,
            member: MemberName("Get"), arguments: [.string(Login.session.rawValue), .string("Active")]
        ) {
            [self] result in
            guard case .success(let reply) = result, let active = reply.first?.variant?.boolean else {
                self.sessionPath = nil
                return Log.warning(
                    "logind session \(sessionPath.rawValue) has no Active state; session switches are not noticed")
            }
            sessionActiveChanged(active)
        }
    }

    private func turnOff(_ reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isOff else { return }
        isOff = true
        isEnabled = false
        lock?.close()
        lock = nil
        Log.warning("\(reason); sleep and session handling is off")
    }

    // MARK: Events

    private func handle(_ signal: BusSignal) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard isEnabled else { return }
        switch (signal.interface, signal.member.rawValue) {
        case (Login.manager, "PrepareForSleep"):
            guard let sleeping = signal.arguments.first?.boolean else { return }
            prepareForSleep(sleeping)
        case (Login.properties, "PropertiesChanged"):
            guard signal.path == sessionPath, signal.arguments.count == 3 else { return }
            if let active = signal.arguments[1].stringDictionary?["Active"]?.boolean {
                sessionActiveChanged(active)
            } else if case .array(_, let invalidated) = signal.arguments[2], invalidated.contains(.string("Active")) {
                readSessionActive()
            }
        default:
            break
        }
    }

    /// Before sleep: pause, get the file onto disk, then let the machine go. After: take
    /// the lock again and go on recording (or stay paused, per `resumeAfterSleep`).
    private func prepareForSleep(_ sleeping: Bool) {
        guard sleeping != isPreparingForSleep else { return }
        isPreparingForSleep = sleeping
        guard sleeping else {
            isFlushingBeforeSleep = false
            updateLock()
            recorder.endInterruption(.systemSleep, resume: recorder.defaults.resumeAfterSleep)
            return
        }
        isFlushingBeforeSleep = recorder.currentMemo != nil
        recorder.beginInterruption(.systemSleep, pausesCapture: true, shouldResume: recorder.defaults.resumeAfterSleep)
        recorder.synchronizeOpenMemo { [self] in finishFlushing() }
        // A capture thread stuck in a read must not hold up the sleep (logind waits 5 s at most).
        queue.asyncAfter(deadline: .now() + 2) { [self] in finishFlushing() }
    }

    private func finishFlushing() {
        guard isFlushingBeforeSleep else { return }
        isFlushingBeforeSleep = false
        updateLock()
    }

    private func sessionActiveChanged(_ active: Bool) {
        isSessionActive = active
        if active {
            recorder.endInterruption(.sessionInactive)
        } else {
            recorder.beginInterruption(.sessionInactive, pausesCapture: true)
        }
    }

    // MARK: The inhibitor lock

    /// Whether the lock should be held now: a memo is open and sleep is not under way
    /// (or its flush is not done yet).
    private var wantsLock: Bool {
        return isEnabled && recorder.state.hasOpenMemo && (!isPreparingForSleep || isFlushingBeforeSleep)
    }

    /// Takes or releases the lock to match `wantsLock`.
    private func updateLock() {
        if !wantsLock {
            lock?.close()
            lock = nil
        } else if lock == nil, !isRequestingLock {
            requestLock()
        }
    }

    private func requestLock() {
        isRequestingLock = true
        let arguments: [BusValue] = [
            .string("sleep"), .string("voicememo"), .string("Finishing the open voice memo before sleep"),
            .string("delay"),
        ]
        connection.call(
            destination: Login.busName, path: Login.path, interface: Login.manager,
            member: MemberName("Inhibit"), arguments: arguments, timeout: .seconds(5)
        ) { [self] result in
            isRequestingLock = false
            switch result {
            case .success(let reply):
                guard let file = reply.first?.unixFileDescriptor else {
                    return Log.warning("logind's Inhibit returned no file descriptor; sleep will not wait for the memo")
                }
                if wantsLock, lock == nil { lock = file } else { file.close() }
            case .failure(let error):
                guard !isOff else { return }
                return Log.warning("cannot delay sleep for the open memo: \(error.message)")
            }
            updateLock()  // the recording may have ended while the call was out
        }
    }
}
