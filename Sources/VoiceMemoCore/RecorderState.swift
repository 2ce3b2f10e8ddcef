/// Where the recorder is, as the contract's `State` property spells it.
public enum RecorderState: String, Sendable, CaseIterable {
    case idle, scheduled, recording, paused, interrupted

    /// Whether a memo is open: recording, paused or interrupted. A scheduled memo has no
    /// audio yet (it waits for its time or for sound).
    public var hasOpenMemo: Bool { [.recording, .paused, .interrupted].contains(self) }
}

/// A memo as the recorder knows it: its stable id and its file.
public struct MemoReference: Hashable, Sendable {
    public var id: String
    public var path: String

    public init(id: String, path: String) {
        self.id = id
        self.path = path
    }

    /// The file's name inside the memo directory.
    public var fileName: String { String(path.split(separator: "/").last ?? "") }
}

/// Why a recording was interrupted, as the contract's `Interruption` signal spells it.
public enum InterruptionReason: String, Sendable, CaseIterable {
    case systemSleep = "system-sleep"
    case serverLost = "server-lost"
    case sessionInactive = "session-inactive"
    case deviceLost = "device-lost"
    case inputMuted = "input-muted"
    /// A call's system side lost its output: the microphone goes on, the system side is
    /// silence until an output is back. It does not make the recorder interrupted.
    case outputLost = "output-lost"
}

/// Why the audio route changed, as the contract's `RouteChanged` signal spells it.
public enum RouteChangeReason: String, Sendable, CaseIterable {
    case newDeviceAvailable = "new-device-available"
    case oldDeviceUnavailable = "old-device-unavailable"
    case defaultChanged = "default-changed"
    case portChanged = "port-changed"
    case serverRestarted = "server-restarted"
}

/// The recorder's observable values, each of which a change is announced for. The contract
/// names them as properties (VoiceMemoContract's `RecorderProperty.name`).
public enum RecorderProperty: Sendable, CaseIterable {
    case state
    case currentMemo
    case activeSource
    case activeOutput
    case format
    case sampleRate
    case channels
    case quality
    case source
    case meteringEnabled
    case notificationsEnabled
    case trayEnabled
    case skipSilence
    case playbackRate
    case systemAudio
    case noiseSuppression
    case autoGain
    case transcribeNewMemos
    case transcriptionModel
}
