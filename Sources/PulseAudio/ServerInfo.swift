/// An output of the audio server, and the source that hears what is played to it.
public struct OutputDevice: Equatable, Sendable {
    /// The sink's name, e.g. `alsa_output.pci-0000_00_1f.3.analog-stereo`.
    public var sink: String
    /// The source monitoring it; nil when the server gives it none.
    public var monitorSource: String?

    public init(sink: String, monitorSource: String?) {
        self.sink = sink
        self.monitorSource = monitorSource
    }
}

/// One-shot questions to the audio server over libpulse's async API, answered by running
/// a private `pa_mainloop` until the reply arrives. Blocking: call from a worker thread.
public enum ServerInfo {
    /// The name of the server's default input, e.g. `alsa_input.pci-0000_00_1f.3.analog-stereo`.
    public static func defaultSourceName() throws(PulseError) -> String {
        try ServerQuery { context, answer in Pulse.requestDefaultSource(context, reply: answer) }.run()
    }

    /// The server's default output and its monitor; nil when the server has no output.
    public static func defaultOutput() throws(PulseError) -> OutputDevice? {
        try ServerQuery { context, answer in
            Pulse.requestDefaults(context) { _, sink, _ in
                guard !sink.isEmpty else { return answer(nil) }
                var monitor: String?
                Pulse.requestSources(
                    context, each: { if $0.monitoredSink == sink { monitor = $0.name } },
                    end: { _ in answer(OutputDevice(sink: sink, monitorSource: monitor)) })
            }
        }.run()
    }
}

/// A single round trip (or a short chain of them) on a connection of its own; owns its
/// mainloop and context.
private final class ServerQuery<Answer> {
    private let mainloop: OpaquePointer
    private var context: Pulse.AsyncContext!
    private let request: (Pulse.AsyncContext, @escaping (Answer) -> Void) -> Void
    private var answer: Result<Answer, PulseError>?

    /// A query that, once connected, makes `request`, which passes its answer on.
    init(_ request: @escaping (Pulse.AsyncContext, @escaping (Answer) -> Void) -> Void) {
        self.request = request
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

    func run() throws(PulseError) -> Answer {
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
            request(context) { [unowned(unsafe) self] in answer = .success($0) }
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
