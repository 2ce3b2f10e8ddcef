/// How the microphone's voice is cleaned before it is written and metered, so the file and
/// the meter hold the same audio: room noise suppressed, the level brought up to speech's.
/// The daemon does it with speexdsp's preprocessor; off unless asked for.
public struct VoiceProcessing: Equatable, Sendable {
    /// Takes out steady background noise (fans, hum, hiss) between and under the words.
    public var suppressesNoise: Bool
    /// Lifts a quiet voice (and lowers a loud one) towards one speech level.
    public var controlsGain: Bool

    public init(suppressesNoise: Bool = false, controlsGain: Bool = false) {
        self.suppressesNoise = suppressesNoise
        self.controlsGain = controlsGain
    }

    /// Whether anything is done at all.
    public var isEnabled: Bool { suppressesNoise || controlsGain }
}

/// Cleans one channel of voice, a fragment at a time, in place: 16-bit samples, the same
/// count at every call (the capture's frames per read). It learns the noise as it goes, so
/// one processor follows one channel of one stream from its start.
public protocol VoiceChannelProcessor: AnyObject {
    func process(_ samples: UnsafeMutableBufferPointer<Int16>)
}
