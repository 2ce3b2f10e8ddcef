public import VoiceMemoCore

/// A playback stream to the default output through `pa_simple`: blocking writes of
/// interleaved float frames, so it belongs to one thread (the playback thread).
public final class PlaybackStream: AudioPlayback {
    private let stream: OpaquePointer

    /// Connects at `sampleRate` × `channels`, buffering about 100 ms.
    public init(sampleRate: UInt32, channels: UInt32, streamName: String = "Voice memo") throws(PulseError) {
        let bufferBytes = UInt32(Int(sampleRate) / 10 * Int(channels) * MemoryLayout<Float>.size)
        stream = try Pulse.openPlayback(
            applicationName: "voicememo", streamName: streamName, sampleRate: sampleRate, channels: channels,
            bufferBytes: bufferBytes)
    }

    deinit {
        Pulse.free(stream)
    }

    public func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError) {
        do {
            try Pulse.write(stream, UnsafeRawBufferPointer(frames))
        } catch {
            throw .audioServer(error.description)
        }
    }

    public func drain() throws(RecorderError) {
        do {
            try Pulse.drain(stream)
        } catch {
            throw .audioServer(error.description)
        }
    }

    public func flush() {
        Pulse.flush(stream)
    }
}
