import VoiceMemoCore

extension RecorderProperty {
    /// The recorder object's property that shows this value, as the contract names it.
    public var name: String {
        switch self {
        case .state: "State"
        case .currentMemo: "CurrentMemo"
        case .activeSource: "ActiveSource"
        case .format: "Format"
        case .sampleRate: "SampleRate"
        case .channels: "Channels"
        case .quality: "Quality"
        case .source: "Source"
        case .meteringEnabled: "MeteringEnabled"
        case .notificationsEnabled: "NotificationsEnabled"
        case .trayEnabled: "TrayEnabled"
        case .skipSilence: "SkipSilence"
        }
    }
}
