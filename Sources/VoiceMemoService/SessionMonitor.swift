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
/// is open so the file can be flushed before the machine sleeps. `SessionTracker` decides;
/// this adapter turns logind's signals and replies into its events and does its effects.
///
/// Lives on the daemon's queue, like the recorder and the system bus connection; every
/// method must be called there, and the entry points check it (`@unchecked Sendable` only
/// so the recorder's `@Sendable` flush completion, delivered on that queue, may capture it).
package final class SessionMonitor: @unchecked Sendable {
    private let connection: BusConnection
    private let recorder: Recorder
    private let queue: DispatchQueue
    private var tracker = SessionTracker()
    /// The inhibitor lock, while held: closing it releases it.
    private var lock: UnixFileDescriptor?
    /// Our logind session, once found.
    private var sessionPath: ObjectPath?

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

    /// Hands `event` to the tracker and does what it says.
    private func send(_ event: SessionEvent) {
        dispatchPrecondition(condition: .onQueue(queue))
        for effect in tracker.handle(event) {
            switch effect {
            case .takeLock:
                requestLock()
            case .releaseLock:
                lock?.close()
                lock = nil
            case .pauseForSleep:
                recorder.beginInterruption(
                    .systemSleep, pausesCapture: true, shouldResume: recorder.defaults.resumeAfterSleep)
            case .flushOpenMemo:
                recorder.synchronizeOpenMemo { [self] in send(.fileSynced) }
                // A capture thread stuck in a read must not hold up the sleep (logind waits 5 s at most).
                queue.asyncAfter(deadline: .now() + 2) { [self] in send(.flushTimedOut) }
            case .resumeAfterSleep:
                recorder.endInterruption(.systemSleep, resume: recorder.defaults.resumeAfterSleep)
            case .pauseForInactiveSession:
                // The recorder acts on it once every listener has heard of the change that led here.
                recorder.beginInterruption(.sessionInactive, pausesCapture: true)
            case .resumeForActiveSession:
                recorder.endInterruption(.sessionInactive)
            }
        }
    }

    // MARK: Start-up

    private func begin() {
        dispatchPrecondition(condition: .onQueue(queue))
        send(.recorderStateChanged(recorder.state))
        recorder.notifications.observe { [weak self] notification in
            guard case .changed(let properties) = notification, properties.contains(.state), let self else { return }
            send(.recorderStateChanged(recorder.state))
        }
        connection.addSignalHandler { [weak self] signal in self?.handle(signal) }
        connection.call(
            destination: Login.busName, path: Login.path, interface: Login.peer, member: MemberName("Ping"),
            timeout: .seconds(5)
        ) { [self] result in
            if case .failure(let error) = result { return turnOff("logind does not answer (\(error.message))") }
            guard tracker.logind == .waiting else { return }
            send(.logindAnswered)
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
            send(.sessionActiveChanged(active))
        }
    }

    private func turnOff(_ reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard tracker.logind != .off else { return }
        send(.logindMissing)
        Log.warning("\(reason); sleep and session handling is off")
    }

    // MARK: Events

    private func handle(_ signal: BusSignal) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard tracker.isFollowingLogind else { return }
        switch (signal.interface, signal.member.rawValue) {
        case (Login.manager, "PrepareForSleep"):
            // Before sleep: pause, get the file onto disk, then let the machine go. After: take
            // the lock again and go on recording (or stay paused, per `resumeAfterSleep`).
            guard let sleeping = signal.arguments.first?.boolean else { return }
            send(sleeping ? .sleepAnnounced(isMemoOpen: recorder.currentMemo != nil) : .wokeUp)
        case (Login.properties, "PropertiesChanged"):
            guard signal.path == sessionPath, signal.arguments.count == 3 else { return }
            if let active = signal.arguments[1].stringDictionary?["Active"]?.boolean {
                send(.sessionActiveChanged(active))
            } else if case .array(_, let invalidated) = signal.arguments[2], invalidated.contains(.string("Active")) {
                readSessionActive()
            }
        default:
            break
        }
    }

    // MARK: The inhibitor lock

    private func requestLock() {
        let arguments: [BusValue] = [
            .string("sleep"), .string("voicememo"), .string("Finishing the open voice memo before sleep"),
            .string("delay"),
        ]
        connection.call(
            destination: Login.busName, path: Login.path, interface: Login.manager,
            member: MemberName("Inhibit"), arguments: arguments, timeout: .seconds(5)
        ) { [self] result in
            switch result {
            case .success(let reply):
                guard let file = reply.first?.unixFileDescriptor else {
                    send(.lockRefused)
                    return Log.warning("logind's Inhibit returned no file descriptor; sleep will not wait for the memo")
                }
                lock = file  // held, unless the tracker says to release it at once
                send(.lockGranted)
            case .failure(let error):
                send(.lockRefused)
                guard tracker.logind != .off else { return }
                Log.warning("cannot delay sleep for the open memo: \(error.message)")
            }
        }
    }
}
