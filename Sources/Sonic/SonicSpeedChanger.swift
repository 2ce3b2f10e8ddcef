internal import CSonic
public import VoiceMemoCore

/// libsonic's speed change, which keeps the pitch (it was made to speed up speech): one
/// `sonicStream`, every call into libsonic in this file. Owned by the playback thread that
/// writes and reads it; libsonic's only failure is running out of memory.
public final class SonicSpeedChanger: SpeedChanger {
    private var stream: OpaquePointer
    private let sampleRate: Int32
    private let channels: Int32

    /// A stream for interleaved float frames of `channels` at `sampleRate`, at speed 1.
    public init(sampleRate: UInt32, channels: UInt32) throws(RecorderError) {
        precondition(sampleRate > 0 && channels > 0, "a stream needs a sample rate and channels")
        self.sampleRate = Int32(clamping: sampleRate)
        self.channels = Int32(clamping: channels)
        stream = try Self.makeStream(sampleRate: self.sampleRate, channels: self.channels)
    }

    deinit {
        sonicDestroyStream(stream)
    }

    public var speed: Double = 1 {
        didSet { sonicSetSpeed(stream, Float(speed)) }
    }

    public func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError) {
        precondition(frames.count % Int(channels) == 0, "whole frames only")
        guard let samples = frames.baseAddress, !frames.isEmpty else { return }
        // libsonic copies the samples in and never writes to them; its parameter is not const.
        let frameCount = Int32(frames.count / Int(channels))
        guard sonicWriteFloatToStream(stream, UnsafeMutablePointer(mutating: samples), frameCount) != 0 else {
            throw Self.outOfMemory
        }
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount: Int) -> Int {
        precondition(frameCount * Int(channels) <= buffer.count, "the buffer holds the frames asked for")
        guard let samples = buffer.baseAddress, frameCount > 0 else { return 0 }
        return Int(sonicReadFloatFromStream(stream, samples, Int32(clamping: frameCount)))
    }

    public func flush() throws(RecorderError) {
        guard sonicFlushStream(stream) != 0 else { throw Self.outOfMemory }
    }

    /// libsonic has no call that empties a stream, so a fresh one at the same speed replaces it.
    public func clear() throws(RecorderError) {
        let fresh = try Self.makeStream(sampleRate: sampleRate, channels: channels)
        sonicDestroyStream(stream)
        stream = fresh
        sonicSetSpeed(stream, Float(speed))
    }

    private static func makeStream(sampleRate: Int32, channels: Int32) throws(RecorderError) -> OpaquePointer {
        guard let stream = sonicCreateStream(sampleRate, channels) else { throw outOfMemory }
        return stream
    }

    private static var outOfMemory: RecorderError {
        .unsupported("cannot change the playback speed: libsonic could not allocate memory")
    }
}
