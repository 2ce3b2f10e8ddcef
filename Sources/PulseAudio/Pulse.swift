internal import CPulse

/// Every call into libpulse's simple API goes through here, so the error code is turned
/// into a `PulseError` right after the call that set it.
enum Pulse {
    static func message(_ code: Int32) -> String {
        String(cString: pa_strerror(code))
    }

    static func openRecord(
        applicationName: String, streamName: String, source: String?, sampleType: CaptureSampleType,
        sampleRate: UInt32, channels: UInt32, fragmentBytes: UInt32
    ) throws(PulseError) -> OpaquePointer {
        var spec = pa_sample_spec(format: sampleFormat(sampleType), rate: sampleRate, channels: UInt8(channels))
        // Without an explicit fragment size the server delivers ~2 s lumps and the last one
        // is lost on stop; maxlength stays at the server's default.
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max, fragsize: fragmentBytes)
        var error: Int32 = 0
        guard
            let stream = pa_simple_new(
                nil, applicationName, PA_STREAM_RECORD, source, streamName, &spec, nil, &attributes, &error)
        else {
            throw PulseError(operation: "connecting to \(source ?? "the default input")", message: message(error))
        }
        return stream
    }

    static func openPlayback(
        applicationName: String, streamName: String, sampleRate: UInt32, channels: UInt32, bufferBytes: UInt32
    ) throws(PulseError) -> OpaquePointer {
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: sampleRate, channels: UInt8(channels))
        // A short target length keeps a stop prompt; the server's default is about 2 s.
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max, tlength: bufferBytes, prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
        var error: Int32 = 0
        guard
            let stream = pa_simple_new(
                nil, applicationName, PA_STREAM_PLAYBACK, nil, streamName, &spec, nil, &attributes, &error)
        else {
            throw PulseError(operation: "connecting to the default output", message: message(error))
        }
        return stream
    }

    static func write(_ stream: OpaquePointer, _ buffer: UnsafeRawBufferPointer) throws(PulseError) {
        var error: Int32 = 0
        guard pa_simple_write(stream, buffer.baseAddress, buffer.count, &error) == 0 else {
            throw PulseError(operation: "playing audio", message: message(error))
        }
    }

    static func drain(_ stream: OpaquePointer) throws(PulseError) {
        var error: Int32 = 0
        guard pa_simple_drain(stream, &error) == 0 else {
            throw PulseError(operation: "finishing playback", message: message(error))
        }
    }

    static func flush(_ stream: OpaquePointer) {
        pa_simple_flush(stream, nil)
    }

    static func read(_ stream: OpaquePointer, into buffer: UnsafeMutableRawBufferPointer) throws(PulseError) {
        var error: Int32 = 0
        guard pa_simple_read(stream, buffer.baseAddress, buffer.count, &error) == 0 else {
            var failure = PulseError(operation: "reading captured audio", message: message(error))
            failure.isDeviceLost = error == Int32(PA_ERR_KILLED.rawValue) || error == Int32(PA_ERR_NOENTITY.rawValue)
            throw failure
        }
    }

    /// How long what the record stream has captured and not yet delivered lasts, in
    /// microseconds (libpulse interpolates it without asking the server); nil when unknown.
    static func latency(_ stream: OpaquePointer) -> UInt64? {
        var error: Int32 = 0
        let microseconds = pa_simple_get_latency(stream, &error)
        return microseconds == UInt64.max || error != 0 ? nil : microseconds
    }

    static func free(_ stream: OpaquePointer) {
        pa_simple_free(stream)
    }

    private static func sampleFormat(_ type: CaptureSampleType) -> pa_sample_format_t {
        switch type {
        case .int16: PA_SAMPLE_S16LE
        case .int32: PA_SAMPLE_S32LE
        case .float32: PA_SAMPLE_FLOAT32LE
        }
    }
}
