import Dispatch
public import VoiceMemoCore

/// The sample types a capture stream can deliver, native little-endian.
public typealias CaptureSampleType = SampleType

/// A recording stream from the audio server through `pa_simple`: blocking reads of
/// interleaved frames, so it belongs to one thread (the capture thread).
public final class CaptureStream: AudioCapture {
    /// What ends the name of a call's stream of system audio, so the server monitor tells
    /// it from the stream of the recording's input.
    public static let systemAudioSuffix = " (system audio)"

    private let stream: OpaquePointer
    public let sourceName: String
    private let bytesPerFrame: Int
    private var framesRead = 0
    /// Kept when the stream is timed by its deliveries.
    private var delivery: DeliveryTiming?

    /// Connects to `source` (nil: the default input, named by `knownDefault` if known) at
    /// `sampleRate` × `channels`, asking the server for fragments of `framesPerRead` frames.
    /// `reportedName` names it instead of its source (a monitor, by the output it monitors);
    /// `timing` says how `timing()` tells when its audio was captured.
    public init(
        source: String?, sampleRate: UInt32, channels: UInt32, sampleType: CaptureSampleType, framesPerRead: Int,
        streamName: String = "Voice memo", knownDefault: String? = nil, reportedName: String? = nil,
        timing: CaptureTiming = .deliveries
    ) throws(PulseError) {
        // pa_simple does not say which device it got; when following the default, ask.
        if let name = reportedName ?? source ?? knownDefault {
            sourceName = name
        } else {
            sourceName = try ServerInfo.defaultSourceName()
        }
        bytesPerFrame = Int(channels) * sampleType.byteCount
        delivery = timing == .deliveries ? DeliveryTiming(sampleRate: sampleRate) : nil
        let fragmentBytes = UInt32(framesPerRead * bytesPerFrame)
        stream = try Pulse.openRecord(
            applicationName: "voicememo", streamName: streamName, source: source, sampleType: sampleType,
            sampleRate: sampleRate, channels: channels, fragmentBytes: fragmentBytes)
    }

    deinit {
        Pulse.free(stream)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(RecorderError) {
        do {
            try Pulse.read(stream, into: buffer)
        } catch {
            throw error.isDeviceLost ? .deviceLost(error.description) : .audioServer(error.description)
        }
        framesRead += buffer.count / bytesPerFrame
        delivery?.record(framesRead: framesRead, clock: DispatchTime.now().uptimeNanoseconds)
    }

    /// Kept from the deliveries on PipeWire; asked of the server (a round trip) on PulseAudio.
    public var isTimingFree: Bool { delivery != nil }

    /// The stream's timing now, as its `CaptureTiming` tells it.
    public func timing() -> StreamTiming? {
        if let delivery { return delivery.timing }
        guard let latency = Pulse.latency(stream) else { return nil }
        return StreamTiming(
            framesRead: framesRead, latency: Double(latency) / 1_000_000, clock: DispatchTime.now().uptimeNanoseconds)
    }
}
