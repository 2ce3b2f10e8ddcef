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

/// Plays audio faster or slower with its pitch kept (the daemon supplies libsonic, made for
/// speech): frames go in at the memo's pace and come out fewer (faster) or more (slower),
/// a few pitch periods later. Belongs to the playback thread.
public protocol SpeedChanger: AnyObject {
    /// How many times faster than recorded, for the frames written next: 2 halves the time.
    var speed: Double { get set }
    /// Takes interleaved frames in; running out of memory throws.
    func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError)
    /// Takes up to `frameCount` changed frames out into `buffer`; 0 when none is ready.
    func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount: Int) -> Int
    /// Makes everything written so far readable: at the end of a memo, or before the
    /// playback goes back to speed 1 and bypasses it.
    func flush() throws(RecorderError)
    /// Forgets everything written and not yet read, for a seek.
    func clear() throws(RecorderError)
}

/// Opens the ends of a playback; the daemon supplies libsndfile, PulseAudio and libsonic.
public protocol PlaybackBackend: Sendable {
    /// Opens a memo for decoding (on the recorder's queue, so failures answer the call).
    func openSource(path: String) throws(RecorderError) -> AudioFileSource
    /// Connects a playback stream to the default output (on the playback thread).
    func openPlayback(sampleRate: UInt32, channels: UInt32) throws(RecorderError) -> AudioPlayback
    /// Makes a speed changer for the memo's frames (on the playback thread).
    func openSpeedChanger(sampleRate: UInt32, channels: UInt32) throws(RecorderError) -> SpeedChanger
}
