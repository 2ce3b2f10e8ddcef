internal import CSndfile
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// Every call into libsndfile, the reader's and the writer's, goes through here, so each
/// error is read right after the call that caused it and turned into a `SoundFileError`.
enum Sndfile {
    /// The major/sub-format code libsndfile uses for `format` at `quality`.
    static func formatCode(_ format: FileFormat) -> Int32 {
        switch format {
        // RF64, so a memo may pass 4 GiB; `enableAutoDowngrade` keeps it a plain WAV until then.
        case .wav(let sampleType): Int32(SF_FORMAT_RF64) | sampleType
        case .flac: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        case .opus: Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        case .vorbis: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case .mp3: Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        }
    }

    /// The codes for the WAV sample formats.
    static let pcm16 = Int32(SF_FORMAT_PCM_16)
    static let pcm24 = Int32(SF_FORMAT_PCM_24)
    static let float = Int32(SF_FORMAT_FLOAT)

    /// libsndfile's text for the error of `handle` (or of the last failed open, when nil).
    static func lastError(_ handle: OpaquePointer?) -> String {
        String(cString: sf_strerror(handle))
    }

    /// A file opened for reading and what its header or stream says.
    struct OpenedFile {
        var handle: OpaquePointer
        var sampleRate: Int
        var channelCount: Int
        var frameCount: Int
        /// The memo format the file is in, when it is one voicememo writes.
        var format: AudioFormat?
        /// libsndfile's code for the file's container and encoding, as read.
        var formatCode: Int32
    }

    /// Opens `path` for reading (files are written through `create`).
    static func open(_ path: String) throws(SoundFileError) -> OpenedFile {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw SoundFileError(path: path, message: lastError(nil))
        }
        return OpenedFile(
            handle: handle, sampleRate: Int(info.samplerate), channelCount: Int(info.channels),
            frameCount: Int(info.frames), format: memoFormat(info.format), formatCode: info.format)
    }

    private static func memoFormat(_ code: Int32) -> AudioFormat? {
        let sub = Int(code & Int32(SF_FORMAT_SUBMASK))
        switch Int(code & Int32(SF_FORMAT_TYPEMASK)) {
        // libsndfile names a WAV by its header: WAVE_FORMAT_EXTENSIBLE (our memos under 4 GiB)
        // reads as WAVEX, a memo past 4 GiB as RF64; all are what the library calls wav.
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64: return .wav
        case SF_FORMAT_FLAC: return .flac
        case SF_FORMAT_MPEG: return .mp3
        case SF_FORMAT_OGG: return sub == SF_FORMAT_OPUS ? .opus : sub == SF_FORMAT_VORBIS ? .vorbis : nil
        default: return nil
        }
    }

    /// Reads up to `frames` frames into `buffer`; fewer at the end of the file. A decoder
    /// error (a corrupt frame, a truncated stream) throws with libsndfile's explanation.
    static func read(
        _ handle: OpaquePointer, into buffer: UnsafeMutablePointer<Float>?, frames: Int, path: String
    ) throws(SoundFileError) -> Int {
        let read = Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
        if read < frames, sf_error(handle) != SF_ERR_NO_ERROR {
            throw SoundFileError(path: path, message: lastError(handle))
        }
        return read
    }

    /// Reads up to `frames` frames as 16-bit integers, stopping quietly at an error.
    static func read(_ handle: OpaquePointer, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
        Int(sf_readf_short(handle, buffer, sf_count_t(frames)))
    }

    /// Reads up to `frames` frames as floats, stopping quietly at an error.
    static func read(_ handle: OpaquePointer, into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
    }

    /// Reads up to `frames` frames of `sampleType` into `buffer`; fewer at the end. A
    /// decoder error throws with libsndfile's explanation.
    static func read(
        _ handle: OpaquePointer, into buffer: UnsafeMutableRawBufferPointer, frames: Int,
        sampleType: WrittenSampleType, path: String
    ) throws(SoundFileError) -> Int {
        let count = sf_count_t(frames)
        let read: sf_count_t
        switch sampleType {
        case .int16: read = sf_readf_short(handle, buffer.assumingMemoryBound(to: Int16.self).baseAddress, count)
        case .int32: read = sf_readf_int(handle, buffer.assumingMemoryBound(to: Int32.self).baseAddress, count)
        case .float32: read = sf_readf_float(handle, buffer.assumingMemoryBound(to: Float.self).baseAddress, count)
        }
        if read < count, sf_error(handle) != SF_ERR_NO_ERROR {
            throw SoundFileError(path: path, message: lastError(handle))
        }
        return Int(read)
    }

    /// Whether a file of libsndfile format `code` holds integer samples, which are copied
    /// exactly as 32-bit integers (8, 16, 24 and 32 bits alike); the rest are read as floats.
    static func holdsIntegers(_ code: Int32) -> Bool {
        switch Int(code & Int32(SF_FORMAT_SUBMASK)) {
        case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8, SF_FORMAT_PCM_16, SF_FORMAT_PCM_24, SF_FORMAT_PCM_32: true
        default: false
        }
    }

    /// The format a copy of a file of `code` is written in: a WAV becomes RF64 with the same
    /// samples (kept a plain WAV under 4 GiB by `enableAutoDowngrade`), like a recorded memo.
    static func copyFormat(_ code: Int32) -> Int32 {
        switch Int(code & Int32(SF_FORMAT_TYPEMASK)) {
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64: Int32(SF_FORMAT_RF64) | (code & Int32(SF_FORMAT_SUBMASK))
        default: code
        }
    }

    /// Whether `code` is a WAV (of any header), whose copy needs `enableAutoDowngrade`.
    static func isWave(_ code: Int32) -> Bool {
        [SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64].contains(Int(code & Int32(SF_FORMAT_TYPEMASK)))
    }

    /// Every text tag libsndfile reads and writes, title first.
    static let textTags: [Int32] = [
        SF_STR_TITLE, SF_STR_COPYRIGHT, SF_STR_SOFTWARE, SF_STR_ARTIST, SF_STR_COMMENT, SF_STR_DATE, SF_STR_ALBUM,
        SF_STR_LICENSE, SF_STR_TRACKNUMBER, SF_STR_GENRE,
    ].map { Int32($0) }

    /// Moves the read position to `frame` frames from the start.
    static func seek(_ handle: OpaquePointer, toFrame frame: Int, path: String) throws(SoundFileError) {
        guard sf_seek(handle, sf_count_t(frame), SEEK_SET) >= 0 else {
            throw SoundFileError(path: path, message: "cannot seek to frame \(frame): \(lastError(handle))")
        }
    }

    /// Creates `path` for writing, readable by its owner alone whatever the umask, and opens
    /// it in libsndfile. The descriptor stays the caller's: it syncs through it (libsndfile's
    /// own sync reports no error) and closes it after `close(_:path:)`.
    ///
    /// `leadingBytes` are written first; libsndfile then writes its stream after them, as an
    /// embedded file (it accepts that for WAV, AIFF, AU, FLAC and MPEG).
    static func create(_ path: String, info: inout SF_INFO, leadingBytes: [UInt8] = []) throws(SoundFileError)
        -> (OpaquePointer, descriptor: Int32)
    {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SoundFileError(path: path, message: "cannot create the file: \(systemError())")
        }
        let written = leadingBytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == leadingBytes.count else {
            let message = written < 0 ? systemError() : "short write"
            Glibc.close(descriptor)
            throw SoundFileError(path: path, message: "cannot write the file's first bytes: \(message)")
        }
        guard let handle = sf_open_fd(descriptor, Int32(SFM_WRITE), &info, 0) else {
            let message = lastError(nil)
            Glibc.close(descriptor)
            throw SoundFileError(path: path, message: message)
        }
        return (handle, descriptor)
    }

    /// Flushes what the kernel holds of the file to the disk; throws what `fsync` reports
    /// (an I/O error, a full disk on file systems that allocate late).
    static func sync(_ descriptor: Int32, path: String) throws(SoundFileError) {
        guard fsync(descriptor) == 0 else {
            throw SoundFileError(path: path, message: "cannot sync the file to disk: \(systemError())")
        }
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }

    /// Sends a double-valued command (compression level).
    static func command(_ handle: OpaquePointer, _ command: Int32, double value: Double, path: String)
        throws(SoundFileError)
    {
        var value = value
        guard sf_command(handle, command, &value, Int32(MemoryLayout<Double>.size)) == SF_TRUE else {
            throw SoundFileError(
                path: path, message: "libsndfile refused setting 0x\(String(command, radix: 16)): \(lastError(handle))")
        }
    }

    /// Sends a double-valued command whose answer libsndfile does not define consistently
    /// (the Ogg page latency answers 0 on success).
    @discardableResult
    static func command(_ handle: OpaquePointer, _ command: Int32, double value: Double) -> Int32 {
        var value = value
        return sf_command(handle, command, &value, Int32(MemoryLayout<Double>.size))
    }

    /// Sends an int-valued command (flags, bit-rate mode) and returns libsndfile's answer.
    @discardableResult
    static func command(_ handle: OpaquePointer, _ command: Int32, int value: Int32) -> Int32 {
        var value = value
        return sf_command(handle, command, &value, Int32(MemoryLayout<Int32>.size))
    }

    /// Adds a chunk `id` holding `body` to a WAVE file being written, after its `LIST` chunk
    /// and before `data` (libsndfile copies the bytes and keeps the chunk when the file
    /// becomes RF64); only before the first frame.
    static func addChunk(_ handle: OpaquePointer, id: String, body: [UInt8], path: String) throws(SoundFileError) {
        var chunk = SF_CHUNK_INFO()
        withUnsafeMutableBytes(of: &chunk.id) { $0.copyBytes(from: id.utf8.prefix($0.count - 1)) }
        chunk.id_size = UInt32(id.utf8.count)
        chunk.datalen = UInt32(body.count)
        var body = body
        let status = body.withUnsafeMutableBytes { bytes in
            chunk.data = bytes.baseAddress
            return sf_set_chunk(handle, &chunk)
        }
        guard status == Int32(SF_ERR_NO_ERROR) else {
            throw SoundFileError(path: path, message: "cannot add a \(id) chunk: \(lastError(handle))")
        }
    }

    /// Makes an RF64 file being written a plain RIFF WAVE while it is under 4 GiB (every
    /// WAV reader takes that), turning it into RF64 at the first header update past 4 GiB.
    /// libsndfile takes the flag only before the first frame, and in the size argument.
    static func enableAutoDowngrade(_ handle: OpaquePointer, path: String) throws(SoundFileError) {
        guard sf_command(handle, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE)) == SF_TRUE else {
            throw SoundFileError(path: path, message: "libsndfile refused the RF64 downgrade: \(lastError(handle))")
        }
    }

    static func setString(_ handle: OpaquePointer, _ kind: Int32, _ text: String, path: String) throws(SoundFileError) {
        guard sf_set_string(handle, kind, text) == 0 else {
            throw SoundFileError(path: path, message: "cannot store a tag: \(lastError(handle))")
        }
    }

    static func string(_ handle: OpaquePointer, _ kind: Int32) -> String? {
        sf_get_string(handle, kind).map { String(cString: $0) }
    }

    /// Writes `frames` frames of `sampleType` from `buffer`; a short write is an error
    /// (disk full, I/O error) with libsndfile's reason.
    static func write(
        _ handle: OpaquePointer, _ buffer: UnsafeRawBufferPointer, frames: Int, sampleType: WrittenSampleType,
        path: String
    ) throws(SoundFileError) {
        let written: sf_count_t
        switch sampleType {
        case .int16:
            written = sf_writef_short(
                handle, buffer.assumingMemoryBound(to: Int16.self).baseAddress, sf_count_t(frames))
        case .int32:
            written = sf_writef_int(handle, buffer.assumingMemoryBound(to: Int32.self).baseAddress, sf_count_t(frames))
        case .float32:
            written = sf_writef_float(
                handle, buffer.assumingMemoryBound(to: Float.self).baseAddress, sf_count_t(frames))
        }
        guard written == frames else {
            throw SoundFileError(path: path, message: "wrote \(written) of \(frames) frames: \(lastError(handle))")
        }
    }

    static func close(_ handle: OpaquePointer, path: String) throws(SoundFileError) {
        let status = sf_close(handle)
        guard status == 0 else {
            throw SoundFileError(path: path, message: String(cString: sf_error_number(status)))
        }
    }

    static let titleTag = Int32(SF_STR_TITLE)
    static let dateTag = Int32(SF_STR_DATE)
    static let softwareTag = Int32(SF_STR_SOFTWARE)
    static let setCompressionLevel = Int32(SFC_SET_COMPRESSION_LEVEL)
    static let setOggPageLatency = Int32(SFC_SET_OGG_PAGE_LATENCY_MS)
    static let setBitrateMode = Int32(SFC_SET_BITRATE_MODE)
    static let variableBitrate = Int32(SF_BITRATE_MODE_VARIABLE)
    static let updateHeaderNow = Int32(SFC_UPDATE_HEADER_NOW)
}

/// The file formats libsndfile is asked for (WAV carries its sample format code).
enum FileFormat {
    case wav(Int32)
    case flac, opus, vorbis, mp3
}

/// The in-memory sample type handed to `sf_writef_*`.
enum WrittenSampleType {
    case int16, int32, float32
}
