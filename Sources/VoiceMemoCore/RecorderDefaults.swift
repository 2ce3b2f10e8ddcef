/// The settings the next plain `Record` uses; the bus exposes each as a read/write property
/// and they persist across restarts.
public struct RecorderDefaults: Codable, Equatable, Sendable {
    public var format: AudioFormat = .opus
    public var sampleRate: UInt32 = 48000
    public var channels: UInt32 = 1
    public var quality: Quality = .medium
    /// A pinned source name, or empty to follow the default input.
    public var source: String = ""
    public var isMeteringEnabled: Bool = false
    /// Whether finished recordings are announced with a desktop notification.
    public var areNotificationsEnabled: Bool = false
    /// How long a recording waits for a lost audio server (or device) to come back before it
    /// is finished unsuccessfully; a setting only (`settings.json`), not a bus property.
    public var reconnectTimeout: Double = 60
    /// Whether a recording that system sleep interrupted goes on by itself after wake-up
    /// (otherwise it stays paused); a setting only (`settings.json`).
    public var resumeAfterSleep: Bool = true

    /// Opus, 48 kHz, mono, medium: right for voice.
    public init() {}

    // Decoding tolerates missing keys so settings files from older versions still load.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let fallback = RecorderDefaults()
        format = try container.decodeIfPresent(AudioFormat.self, forKey: .format) ?? fallback.format
        sampleRate = try container.decodeIfPresent(UInt32.self, forKey: .sampleRate) ?? fallback.sampleRate
        channels = try container.decodeIfPresent(UInt32.self, forKey: .channels) ?? fallback.channels
        quality = try container.decodeIfPresent(Quality.self, forKey: .quality) ?? fallback.quality
        source = try container.decodeIfPresent(String.self, forKey: .source) ?? fallback.source
        isMeteringEnabled =
            try container.decodeIfPresent(Bool.self, forKey: .isMeteringEnabled) ?? fallback.isMeteringEnabled
        areNotificationsEnabled =
            try container.decodeIfPresent(Bool.self, forKey: .areNotificationsEnabled) ?? fallback.areNotificationsEnabled
        reconnectTimeout = try container.decodeIfPresent(Double.self, forKey: .reconnectTimeout) ?? fallback.reconnectTimeout
        resumeAfterSleep = try container.decodeIfPresent(Bool.self, forKey: .resumeAfterSleep) ?? fallback.resumeAfterSleep
    }
}
