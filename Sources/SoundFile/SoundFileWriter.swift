internal import AudioContainers
internal import CSndfile
public import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// A memo file being recorded: created with the memo's tags (readable by its owner alone),
/// appended to frame by frame, kept decodable on disk (a WAV header is brought up to date at
/// each `synchronize()`), finalized by `close()`.
///
/// Used from the capture thread only after `init`.
public final class SoundFileWriter: AudioFileSink {
    private var handle: OpaquePointer?
    /// The file's descriptor, synced through directly; closed after libsndfile lets go.
    private var descriptor: Int32 = -1
    private let path: String
    /// WAV's header carries the length, rewritten at each synchronize().
    private let isWave: Bool
    private let sampleType: WrittenSampleType

    /// The bytes of the `JUNK` chunk a WAV memo gets after its `LIST` chunk, so that a title
    /// of up to about a thousand bytes is rewritten in place.
    public static let waveTagRoom = 1024

    /// Creates `path` for `request`'s format, rate, channels and quality, with `tags` stored.
    public init(path: String, request: RecordingRequest, tags: MemoTags) throws(SoundFileError) {
        self.path = path
        isWave = request.format == .wav
        let captured = request.format.sampleType(for: request.quality)
        switch captured {
        case .int16: sampleType = .int16
        case .int32: sampleType = .int32
        case .float32: sampleType = .float32
        }
        let fileFormat: FileFormat
        switch request.format {
        case .wav:
            fileFormat = .wav(captured == .int16 ? Sndfile.pcm16 : captured == .int32 ? Sndfile.pcm24 : Sndfile.float)
        case .flac: fileFormat = .flac
        case .opus: fileFormat = .opus
        case .vorbis: fileFormat = .vorbis
        case .mp3: fileFormat = .mp3
        }
        var info = SF_INFO()
        info.samplerate = Int32(request.sampleRate)
        info.channels = Int32(request.channels)
        info.format = Sndfile.formatCode(fileFormat)
        // libsndfile (through LAME) keeps an MP3's short tags at its end, written on close,
        // with no room to edit them: the file starts with an ID3v2 tag of its own instead.
        let leadingTag =
            request.format == .mp3
            ? TagEditor.mp3LeadingTag(title: tags.title, date: tags.date, software: tags.software) : nil
        let (handle, descriptor) = try Sndfile.create(path, info: &info, leadingBytes: leadingTag ?? [])
        self.handle = handle
        self.descriptor = descriptor
        // Tags go in before the first frame: Ogg and MP3 write them in their headers.
        if leadingTag == nil {
            if let title = tags.title, !title.isEmpty {
                try Sndfile.setString(handle, Sndfile.titleTag, title, path: path)
            }
            try Sndfile.setString(handle, Sndfile.dateTag, tags.date, path: path)
            try Sndfile.setString(handle, Sndfile.softwareTag, tags.software, path: path)
        }
        try Self.configureEncoder(handle, format: request.format, quality: request.quality, path: path)
    }

    deinit {
        if let handle { try? Sndfile.close(handle, path: path) }
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Maps the contract's quality onto each encoder's own knob.
    private static func configureEncoder(
        _ handle: OpaquePointer, format: AudioFormat, quality: Quality, path: String
    ) throws(SoundFileError) {
        switch format {
        case .wav:
            // A plain WAV's sizes are 32 bits: past 4 GiB (6.2 hours of 48 kHz stereo) they
            // would wrap. RF64 carries 64-bit sizes, and libsndfile writes it as a plain WAV
            // (with a JUNK chunk where RF64's sizes go) until the file grows past 4 GiB.
            try Sndfile.enableAutoDowngrade(handle, path: path)
            // Room after the LIST chunk, as broadcast tools leave: a rename rewrites the list
            // there, in place, instead of copying the audio (see TagEditor).
            try Sndfile.addChunk(handle, id: "JUNK", body: [UInt8](repeating: 0, count: waveTagRoom), path: path)
            // The header is rewritten at every synchronize() (each second, and on pause), not
            // after every 20 ms write: that cost a quarter of the client's CPU. The file is
            // valid throughout (a header that lags only hides the newest second, and crash
            // repair takes the sizes from the file's real length).
            break
        case .flac:
            // Lossless: quality buys compression effort (level 0…8).
            try Sndfile.command(handle, Sndfile.setCompressionLevel, double: quality.scale, path: path)
        case .opus, .vorbis:
            try Sndfile.command(
                handle, Sndfile.setCompressionLevel, double: format.compressionLevel(at: quality), path: path)
            // Finish an Ogg page at least every 250 ms, so a crash loses no more than that.
            Sndfile.command(handle, Sndfile.setOggPageLatency, double: 250)
        case .mp3:
            Sndfile.command(handle, Sndfile.setBitrateMode, int: Sndfile.variableBitrate)
            try Sndfile.command(
                handle, Sndfile.setCompressionLevel, double: format.compressionLevel(at: quality), path: path)
        }
    }

    public func write(_ frames: UnsafeRawBufferPointer, frameCount: Int) throws(RecorderError) {
        do {
            try Sndfile.write(openHandle, frames, frames: frameCount, sampleType: sampleType, path: path)
        } catch {
            throw .storage(error.description)
        }
    }

    public func synchronize() throws(RecorderError) {
        // Only WAV keeps a header with the length to rewrite; the other encoders write
        // their headers once, at the start.
        if isWave { Sndfile.command(openHandle, Sndfile.updateHeaderNow, int: 0) }
        do {
            try Sndfile.sync(descriptor, path: path)
        } catch {
            throw .storage(error.description)
        }
    }

    public func close() throws(RecorderError) {
        let handle = openHandle
        let descriptor = self.descriptor
        (self.handle, self.descriptor) = (nil, -1)
        do {
            defer { Glibc.close(descriptor) }
            try Sndfile.close(handle, path: path)
        } catch {
            throw .storage(error.description)
        }
    }

    private var openHandle: OpaquePointer {
        guard let handle else { preconditionFailure("\(path) used after close()") }
        return handle
    }
}
