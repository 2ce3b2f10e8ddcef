extension AudioFormat {
    /// libsndfile's compression level for this lossy format at `quality` (0 best … 1 smallest).
    ///
    /// libsndfile gives LAME ten times the level as its VBR quality, which LAME takes only
    /// up to 9.999: it clamps a 10 but answers an error, so libsndfile refuses level 1 (the
    /// `min` quality, and any MP3 trim that finds a memo's bitrate nearest to it). The MP3
    /// level stops at LAME's own worst.
    public func compressionLevel(at quality: Quality) -> Double {
        self == .mp3 ? min(quality.compressionLevel, Self.worstLAMELevel) : quality.compressionLevel
    }

    /// LAME's worst VBR quality, 9.999, on libsndfile's scale.
    private static let worstLAMELevel = 0.9999
}
