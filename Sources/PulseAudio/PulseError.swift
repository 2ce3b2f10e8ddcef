/// A PulseAudio failure, carrying the server's own explanation (`pa_strerror`).
public struct PulseError: Error, Equatable, CustomStringConvertible {
    /// What was being done ("connecting a capture stream to voicememo_mic").
    public let operation: String
    /// What libpulse said.
    public let message: String
    /// Whether the device went away while the server stayed (a stream's source removed),
    /// as opposed to the server itself failing or being gone.
    public var isDeviceLost: Bool = false

    public var description: String { "\(operation): \(message)" }
}
