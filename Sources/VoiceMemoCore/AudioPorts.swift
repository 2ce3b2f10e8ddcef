/// What the recorder needs from an audio server: a stream of interleaved frames.
///
/// Implementations own their server connection; `read` blocks until `buffer` is full, so a
/// capture stream is used from one thread only.
public protocol AudioCapture: AnyObject {
    /// The source actually feeding the stream, as the server names it.
    var sourceName: String { get }
    /// Fills `buffer` completely with captured frames.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RecorderError)
    /// The stream's timing: enough to tell when its frame 0 was captured (see `StreamTiming`);
    /// nil before its first read or when the back end cannot tell. A call's two inputs are
    /// aligned by it.
    func timing() -> StreamTiming?
    /// Whether `timing()` costs nothing (it is kept from the reads' deliveries rather than asked
    /// of the server): a call's alignment then checks every fragment, not once a second.
    var isTimingFree: Bool { get }
}

extension AudioCapture {
    public var isTimingFree: Bool { false }
}

/// What the recorder needs from a file: somewhere to append frames that stays decodable.
public protocol AudioFileSink: AnyObject {
    /// Appends `frameCount` interleaved frames of the sink's sample type.
    func write(_ frames: UnsafeRawBufferPointer, frameCount: Int) throws(RecorderError)
    /// Pushes everything written so far to the disk, headers included, so a crash keeps it.
    func synchronize() throws(RecorderError)
    /// Finalizes the file; no writes after this.
    func close() throws(RecorderError)
}

/// Creates the two ends of a recording; the daemon supplies one over PulseAudio and libsndfile,
/// unit tests supply fakes.
public protocol RecordingBackend: Sendable {
    /// Creates the memo's file (called on the recorder's queue, so a storage error answers the call).
    func makeFileSink(path: String, request: RecordingRequest, tags: MemoTags) throws(RecorderError) -> AudioFileSink
    /// Connects a capture stream (called on the capture thread: it may block on the server).
    func openCapture(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture
    /// Connects a capture stream of what the computer plays: the monitor of the default output,
    /// named by the output (sink) it monitors. Called on the capture thread, like `openCapture`.
    func openSystemAudio(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture
    /// A cleaner for one channel of the microphone's audio as `processing` asks (called on the
    /// capture thread, once per channel each time the microphone's stream is opened).
    func makeVoiceProcessor(_ processing: VoiceProcessing, sampleRate: UInt32, framesPerRead: Int)
        throws(RecorderError) -> VoiceChannelProcessor
}

extension RecordingBackend {
    public func makeVoiceProcessor(_ processing: VoiceProcessing, sampleRate: UInt32, framesPerRead: Int)
        throws(RecorderError) -> VoiceChannelProcessor
    {
        throw .unsupported("this recorder cannot clean the voice (no noise suppression or automatic gain)")
    }
}

/// Metadata written into a memo's own tags.
public struct MemoTags: Equatable, Sendable {
    public var title: String?
    /// ISO 8601 date of the recording's start.
    public var date: String
    public var software: String

    public init(title: String?, date: String, software: String = "voicememo") {
        self.title = title
        self.date = date
        self.software = software
    }
}
