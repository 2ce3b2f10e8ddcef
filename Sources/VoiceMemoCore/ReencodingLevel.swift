#if canImport(Glibc)
    import Glibc  // log
#elseif canImport(Darwin)
    import Darwin
#endif

/// The encoder setting a lossy memo is encoded again with (a trim), so the new file keeps
/// the memo's quality though the file does not say which it was recorded at.
///
/// libsndfile's compression level (0 best … 1 smallest) is what `Quality` maps to when
/// recording (`AudioFormat.compressionLevel(at:)`); here it is recovered from the memo's average bitrate.
public enum ReencodingLevel {
    /// The compression level for a memo of `format` that holds `bitsPerSecond` on average
    /// over `channels` channels; nil for a lossless format (those are copied sample-exact).
    ///
    /// Opus's level is a bitrate target, about 7.4 kbit/s plus 251.6 kbit/s per unit below
    /// 1, per channel, whatever the audio (measured with Debian's libsndfile 1.2), so it is
    /// inverted exactly. Vorbis and MP3 encode at a variable bitrate that depends on the
    /// sound: the nearest (on a log scale) of the five qualities' bitrates for speech at
    /// 48 kHz is taken.
    public static func compressionLevel(format: AudioFormat, bitsPerSecond: Double, channels: Int) -> Double? {
        let perChannel = bitsPerSecond / 1000 / Double(max(channels, 1))
        let typical: [Double]
        switch format {
        case .wav, .flac:
            return nil
        case .opus:
            return min(1, max(0, 1 - (perChannel - 7.4) / 251.6))
        case .vorbis:
            typical = channels == 1 ? [52.6, 71.5, 83.2, 104.5, 167.4] : [29.7, 40.8, 49.2, 75.9, 127.0]
        case .mp3:
            typical = channels == 1 ? [33.7, 50.0, 63.7, 88.5, 114.5] : [19.1, 27.8, 34.6, 49.6, 68.6]
        }
        guard perChannel > 0, perChannel.isFinite else { return format.compressionLevel(at: .medium) }
        let nearest = typical.indices.min { abs(log(typical[$0] / perChannel)) < abs(log(typical[$1] / perChannel)) }!
        return format.compressionLevel(at: Quality.allCases[nearest])
    }
}
