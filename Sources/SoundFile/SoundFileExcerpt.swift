internal import CSndfile

#if canImport(Glibc)
    import Glibc
#endif

/// A stretch of an audio file written to a new file of the same kind, for a trim.
///
/// Integer samples (WAV, FLAC) are copied exactly, as read, in the file's own encoding; a
/// lossy file is decoded and encoded again at the compression level given. Every text tag
/// libsndfile reads (title, date, software, artist, comment…) is carried over.
public enum SoundFileExcerpt {
    /// Frames copied per read: 64 Ki, a few hundred KiB whatever the format.
    private static let framesPerRead = 65536

    /// Writes `frames` of `source` to a new file at `path` (created user-only, replaced if
    /// there) and syncs it to disk. `compressionLevel` is applied to lossy encoders only.
    public static func write(
        _ frames: Range<Int>, of source: SoundFileReader, to path: String, compressionLevel: Double?
    ) throws(SoundFileError) {
        var info = SF_INFO()
        info.samplerate = Int32(source.sampleRate)
        info.channels = Int32(source.channelCount)
        info.format = Sndfile.copyFormat(source.formatCode)
        let (handle, descriptor) = try Sndfile.create(path, info: &info)
        var isClosed = false
        defer {
            if !isClosed { try? Sndfile.close(handle, path: path) }
            close(descriptor)
        }
        // Tags go in before the first frame: Ogg and MP3 write them in their headers. The
        // title must survive; another tag a container cannot hold is let go.
        for tag in Sndfile.textTags {
            guard let text = Sndfile.string(source.openHandle, tag), !text.isEmpty else { continue }
            do {
                try Sndfile.setString(handle, tag, text, path: path)
            } catch {
                if tag == Sndfile.titleTag { throw error }
            }
        }
        if Sndfile.isWave(info.format) { try Sndfile.enableAutoDowngrade(handle, path: path) }
        if let compressionLevel, !Sndfile.holdsIntegers(source.formatCode) {
            if Int(info.format & Int32(SF_FORMAT_TYPEMASK)) == SF_FORMAT_MPEG {
                Sndfile.command(handle, Sndfile.setBitrateMode, int: Sndfile.variableBitrate)
            }
            try Sndfile.command(handle, Sndfile.setCompressionLevel, double: compressionLevel, path: path)
        }
        let sampleType: WrittenSampleType = Sndfile.holdsIntegers(source.formatCode) ? .int32 : .float32
        try source.seek(toFrame: frames.lowerBound)
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: framesPerRead * source.channelCount * 4, alignment: 4)
        defer { buffer.deallocate() }
        var remaining = frames.count
        while remaining > 0 {
            let read = try Sndfile.read(
                source.openHandle, into: buffer, frames: min(remaining, framesPerRead), sampleType: sampleType,
                path: source.path)
            guard read > 0 else { break }  // a stream shorter than its header said
            try Sndfile.write(
                handle, UnsafeRawBufferPointer(rebasing: buffer[0..<(read * source.channelCount * 4)]), frames: read,
                sampleType: sampleType, path: path)
            remaining -= read
        }
        isClosed = true
        try Sndfile.close(handle, path: path)
        try Sndfile.sync(descriptor, path: path)
    }
}
