/// A container and codec a memo can be recorded in, named as the contract names them.
public enum AudioFormat: String, CaseIterable, Sendable, Codable {
    case opus, flac, wav, vorbis, mp3

    /// The file-name extension memos of this format get.
    public var fileExtension: String {
        switch self {
        case .opus: "opus"
        case .flac: "flac"
        case .wav: "wav"
        case .vorbis: "ogg"
        case .mp3: "mp3"
        }
    }

    /// The format a file extension stands for, if it is one voicememo writes.
    public init?(fileExtension: String) {
        guard let format = Self.allCases.first(where: { $0.fileExtension == fileExtension.lowercased() }) else {
            return nil
        }
        self = format
    }

    /// Rates the encoder accepts, or nil when any rate of the contract's range works.
    ///
    /// libsndfile's Opus encoder takes only Opus's native rates, and LAME only MPEG's.
    public var supportedSampleRates: Set<UInt32>? {
        switch self {
        case .opus: [8000, 12000, 16000, 24000, 48000]
        case .mp3: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
        case .flac, .wav, .vorbis: nil
        }
    }

    /// The sample type captured for this format at `quality`: integer where the file stores
    /// integers, so 16-bit WAV is bit-exact to what the server delivered.
    public func sampleType(for quality: Quality) -> SampleType {
        guard self == .wav else { return .int16 }
        switch quality {
        case .min, .low, .medium: return .int16
        case .high: return .int32
        case .max: return .float32
        }
    }
}

/// How hard an encoder works for fidelity: each format maps it to its own knob.
public enum Quality: String, CaseIterable, Sendable, Codable, Comparable {
    case min, low, medium, high, max

    public static func < (lhs: Quality, rhs: Quality) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The position of this quality on a 0…1 scale (min = 0, max = 1).
    public var scale: Double {
        Double(Self.allCases.firstIndex(of: self)!) / Double(Self.allCases.count - 1)
    }

    /// libsndfile's compression level for the lossy encoders (0 best … 1 smallest): the
    /// inverse of the scale, never quite 0, whose Opus bitrate is far past what voice needs.
    public var compressionLevel: Double { 1 - scale * 0.9 }
}

/// The in-memory sample representation between the audio server and the file.
public enum SampleType: Sendable {
    /// Signed 16-bit integers.
    case int16
    /// Signed 32-bit integers (24-bit files keep the top 24 bits).
    case int32
    /// 32-bit floats, full scale ±1.
    case float32

    /// Bytes one sample of one channel takes.
    public var byteCount: Int {
        switch self {
        case .int16: 2
        case .int32, .float32: 4
        }
    }
}
