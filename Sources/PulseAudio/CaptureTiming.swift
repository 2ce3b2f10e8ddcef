/// How a capture stream tells when its audio was captured, for aligning a call's two
/// streams (`StreamTiming`).
public enum CaptureTiming: Sendable {
    /// From the server's latency report (`pa_simple_get_latency`): PulseAudio's counts what
    /// the source, the server and the client's buffer hold, and a click fed to both of a
    /// call's streams lands within a millisecond.
    case reportedLatency
    /// From when its reads arrive (`DeliveryTiming`): pipewire-pulse reports a monitor
    /// stream's latency as 0 one read and 20 ms the next, while its deliveries, a graph cycle
    /// at a time, time a click within 1.3 ms.
    case deliveries

    /// The timing that suits the server named `serverName` (`pa_server_info.server_name`:
    /// "pulseaudio", or "PulseAudio (on PipeWire 0.3.65)").
    public init(serverName: String) {
        self = serverName.contains("PipeWire") ? .deliveries : .reportedLatency
    }
}
