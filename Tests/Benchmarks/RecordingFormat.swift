/// The formats whose recording cost is compared, each as voicememod is asked for it and
/// as `parecord` (or `parecord --raw | opusenc`) writes it from the same source.
enum RecordingFormat: CaseIterable {
    /// WAV, 16-bit, stereo.
    case wavStereo
    /// FLAC, 16-bit, stereo.
    case flacStereo
    /// Ogg Opus, mono: parecord has no Opus, so its baseline pipes raw samples to `opusenc`.
    case opusMono

    /// The row label.
    var label: String {
        switch self {
        case .wavStereo: "wav 16-bit stereo"
        case .flacStereo: "flac stereo"
        case .opusMono: "opus mono"
        }
    }

    /// The `format` option of `RecordWithOptions`.
    var daemonFormat: String {
        switch self {
        case .wavStereo: "wav"
        case .flacStereo: "flac"
        case .opusMono: "opus"
        }
    }

    /// The channel count.
    var channels: UInt32 { self == .opusMono ? 1 : 2 }

    /// The file extension of the baseline's output.
    var fileExtension: String { daemonFormat }
}
