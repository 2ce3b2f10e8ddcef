internal import CSndfile
public import VoiceMemoCore

/// An audio file opened for reading: its properties, tags and samples.
public final class SoundFileReader {
    private let handle: OpaquePointer
    public let path: String
    public let sampleRate: Int
    public let channelCount: Int
    /// Frames in the file as its header or stream says.
    public let frameCount: Int
    /// The memo format the file is in, when it is one voicememo writes.
    public let format: AudioFormat?

    public init(path: String) throws(SoundFileError) {
        var info = SF_INFO()
        handle = try Sndfile.open(path, info: &info)
        self.path = path
        sampleRate = Int(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = Int(info.frames)
        format = Self.memoFormat(info.format)
    }

    deinit {
        try? Sndfile.close(handle, path: path)
    }

    /// Duration in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }

    /// The title tag, if the file has one.
    public var title: String? { Sndfile.string(handle, Sndfile.titleTag) }

    /// The date tag, if the file has one.
    public var date: String? { Sndfile.string(handle, Sndfile.dateTag) }

    /// Reads up to `frameCount` frames into `buffer`; 0 at the end. A decoder error (a
    /// corrupt frame, a truncated stream) throws with libsndfile's explanation.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount: Int) throws(SoundFileError) -> Int {
        precondition(buffer.count >= frameCount * channelCount, "buffer too small for \(frameCount) frames")
        let frames = sf_readf_float(handle, buffer.baseAddress, sf_count_t(frameCount))
        if frames < frameCount, sf_error(handle) != SF_ERR_NO_ERROR {
            throw SoundFileError(path: path, message: Sndfile.lastError(handle))
        }
        return Int(frames)
    }

    /// Moves the read position to `frame` frames from the start.
    public func seek(toFrame frame: Int) throws(SoundFileError) {
        guard sf_seek(handle, sf_count_t(frame), SEEK_SET) >= 0 else {
            throw SoundFileError(path: path, message: "cannot seek to frame \(frame): \(Sndfile.lastError(handle))")
        }
    }

    /// Every remaining frame, interleaved, full scale ±1.
    public func readFloats() -> [Float] {
        readAll { sf_readf_float(handle, $0, $1) }
    }

    /// Every remaining frame, interleaved, as 16-bit integers.
    public func readInt16() -> [Int16] {
        readAll { sf_readf_short(handle, $0, $1) }
    }

    /// Reads in chunks until the end: some decoders report no length up front.
    private func readAll<Sample: Numeric>(_ read: (UnsafeMutablePointer<Sample>, sf_count_t) -> sf_count_t) -> [Sample]
    {
        let chunkFrames = 65536
        var samples: [Sample] = []
        var chunk = [Sample](repeating: 0, count: chunkFrames * max(channelCount, 1))
        while true {
            let frames = chunk.withUnsafeMutableBufferPointer { read($0.baseAddress!, sf_count_t(chunkFrames)) }
            guard frames > 0 else { break }
            samples.append(contentsOf: chunk[0..<(Int(frames) * channelCount)])
        }
        return samples
    }

    private static func memoFormat(_ code: Int32) -> AudioFormat? {
        let major = code & Sndfile.majorMask
        let sub = code & Sndfile.subMask
        switch Int(major) {
        case SF_FORMAT_WAV: return .wav
        case SF_FORMAT_FLAC: return .flac
        case SF_FORMAT_MPEG: return .mp3
        case SF_FORMAT_OGG: return Int(sub) == SF_FORMAT_OPUS ? .opus : Int(sub) == SF_FORMAT_VORBIS ? .vorbis : nil
        default: return nil
        }
    }
}
