/// One-shot questions to the audio server over libpulse's async API, answered by running
/// a private `pa_mainloop` until the reply arrives. Blocking: call from a worker thread.
public enum ServerInfo {
    /// The name of the server's default input, e.g. `alsa_input.pci-0000_00_1f.3.analog-stereo`.
    public static func defaultSourceName() throws(PulseError) -> String {
        let query = ServerQuery()
        return try query.run()
    }
}

/// A single server-info round trip; owns its mainloop and context.
private final class ServerQuery {
    private let mainloop: OpaquePointer
    private var context: Pulse.AsyncContext!
    private var answer: Result<String, PulseError>?

    init() {
        mainloop = Pulse.makeMainloop()
        // The callbacks run inside `Pulse.iterate` in `run`, on this thread, while `self`
        // is alive, so an unretained reference is enough.
        let observer = ContextObserver(stateChanged: { [unowned(unsafe) self] in contextChanged($0) })
        context = Pulse.makeContext(onMainloop: mainloop, name: "voicememo", observer: observer)
    }

    deinit {
        Pulse.free(context)
        Pulse.freeMainloop(mainloop)
    }

    func run() throws(PulseError) -> String {
        guard Pulse.connect(context, waitForServer: false) else {
            throw failure("connecting to the audio server")
        }
        while answer == nil {
            guard Pulse.iterate(mainloop) else {
                throw failure("talking to the audio server")
            }
        }
        return try answer!.get()
    }

    private func contextChanged(_ state: Pulse.ContextState) {
        switch state {
        case .ready:
            Pulse.requestDefaultSource(context) { [unowned(unsafe) self] in answer = .success($0) }
        case .gone:
            answer = .failure(failure("connecting to the audio server"))
        case .connecting:
            break
        }
    }

    private func failure(_ operation: String) -> PulseError {
        PulseError(operation: operation, message: Pulse.lastError(context))
    }
}
