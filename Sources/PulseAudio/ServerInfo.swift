internal import CPulse

/// One-shot questions to the audio server over libpulse's async API, answered by running
/// a private `pa_mainloop` until the reply arrives. Blocking: call from a worker thread.
public enum ServerInfo {
    /// The name of the server's default input, e.g. `alsa_input.pci-0000_00_1f.3.analog-stereo`.
    public static func defaultSourceName() throws(PulseError) -> String {
        let query = ServerQuery()
        return try query.run()
    }
}

/// A single `pa_context_get_server_info` round trip; owns its mainloop and context.
private final class ServerQuery {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private var answer: Result<String, PulseError>?

    init() {
        mainloop = pa_mainloop_new()
        context = pa_context_new(pa_mainloop_get_api(mainloop), "voicememo")
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    func run() throws(PulseError) -> String {
        // The callbacks run inside pa_mainloop_iterate below, on this thread, while `self`
        // is alive, so an unretained pointer is enough.
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(
            context,
            { context, userdata in
                let query = Unmanaged<ServerQuery>.fromOpaque(userdata!).takeUnretainedValue()
                query.contextChanged(context!)
            }, userdata)
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw failure("connecting to the audio server")
        }
        while answer == nil {
            guard pa_mainloop_iterate(mainloop, 1, nil) >= 0 else {
                throw failure("talking to the audio server")
            }
        }
        return try answer!.get()
    }

    private func contextChanged(_ context: OpaquePointer) {
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            let userdata = Unmanaged.passUnretained(self).toOpaque()
            let operation = pa_context_get_server_info(
                context,
                { _, info, userdata in
                    let query = Unmanaged<ServerQuery>.fromOpaque(userdata!).takeUnretainedValue()
                    query.answer = .success(info?.pointee.default_source_name.map { String(cString: $0) } ?? "")
                }, userdata)
            if let operation { pa_operation_unref(operation) }
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            answer = .failure(failure("connecting to the audio server"))
        default:
            break
        }
    }

    private func failure(_ operation: String) -> PulseError {
        PulseError(operation: operation, message: String(cString: pa_strerror(pa_context_errno(context))))
    }
}
