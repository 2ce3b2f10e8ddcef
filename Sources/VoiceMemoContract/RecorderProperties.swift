import Bus
import VoiceMemoCore

extension RecorderProperty {
    /// The recorder object's property that shows this value, as the contract declares it.
    public var declaration: BusPropertyDeclaration {
        switch self {
        case .state: RecorderMember.state
        case .currentMemo: RecorderMember.currentMemo
        case .activeSource: RecorderMember.activeSource
        case .activeOutput: RecorderMember.activeOutput
        case .format: RecorderMember.format
        case .sampleRate: RecorderMember.sampleRate
        case .channels: RecorderMember.channels
        case .quality: RecorderMember.quality
        case .source: RecorderMember.source
        case .meteringEnabled: RecorderMember.meteringEnabled
        case .notificationsEnabled: RecorderMember.notificationsEnabled
        case .trayEnabled: RecorderMember.trayEnabled
        case .skipSilence: RecorderMember.skipSilence
        case .playbackRate: RecorderMember.playbackRate
        case .systemAudio: RecorderMember.systemAudio
        case .noiseSuppression: RecorderMember.noiseSuppression
        case .autoGain: RecorderMember.autoGain
        case .transcribeNewMemos: RecorderMember.transcribeNewMemos
        case .transcriptionModel: RecorderMember.transcriptionModel
        }
    }

    /// The property's name on the bus.
    public var name: String { declaration.name }
}
