/// A decoded memo, read as interleaved 32-bit float frames.
public protocol AudioFileSource: AnyObject {
    var sampleRate: UInt32 { get }
    var channels: UInt32 { get }
    /// Reads up to `frameCount` frames into `buffer`; 0 at the end of the file. A decoder
    /// failure throws.
    func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount: Int) throws(RecorderError) -> Int
    /// Moves the read position to `frame` (0 is the start) for seeking; a decoder that
    /// cannot seek throws.
    func seek(toFrame frame: Int) throws(RecorderError)
}

/// A playback stream on the audio server; blocking writes, so it belongs to one thread.
public protocol AudioPlayback: AnyObject {
    func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError)
    /// Waits until everything written has been heard.
    func drain() throws(RecorderError)
    /// Drops what is buffered but not yet heard (for an immediate stop).
    func flush()
}

/// Opens the two ends of a playback; the daemon supplies libsndfile and PulseAudio.
public protocol PlaybackBackend: Sendable {
    /// Opens a memo for decoding (on the recorder's queue, so failures answer the call).
    func openSource(path: String) throws(RecorderError) -> AudioFileSource
    /// Connects a playback stream to the default output (on the playback thread).
    func openPlayback(sampleRate: UInt32, channels: UInt32) throws(RecorderError) -> AudioPlayback
}
