import Testing
import VoiceMemoContract
import VoiceMemoCore

@Suite("Recorder property names")
struct RecorderPropertyTests {
    @Test func eachPropertyHasTheContractsName() {
        let names: [RecorderProperty: String] = [
            .state: "State", .currentMemo: "CurrentMemo", .activeSource: "ActiveSource",
            .activeOutput: "ActiveOutput", .format: "Format",
            .sampleRate: "SampleRate", .channels: "Channels", .quality: "Quality", .source: "Source",
            .meteringEnabled: "MeteringEnabled", .notificationsEnabled: "NotificationsEnabled",
            .trayEnabled: "TrayEnabled", .skipSilence: "SkipSilence", .playbackRate: "PlaybackRate",
            .systemAudio: "SystemAudio", .noiseSuppression: "NoiseSuppression", .autoGain: "AutoGain",
            .transcribeNewMemos: "TranscribeNewMemos", .transcriptionModel: "TranscriptionModel",
        ]
        #expect(names.count == RecorderProperty.allCases.count)
        for property in RecorderProperty.allCases { #expect(property.name == names[property]) }
    }

    @Test func eachPropertyIsOneOfTheRecorderInterfaces() {
        for property in RecorderProperty.allCases {
            #expect(RecorderMember.properties.contains(property.declaration), "\(property)")
        }
    }
}
