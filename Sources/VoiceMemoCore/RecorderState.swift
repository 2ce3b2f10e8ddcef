/// Where the recorder is, as the contract's `State` property spells it.
public enum RecorderState: String, Sendable, CaseIterable {
    case idle, scheduled, recording, paused, interrupted
}

/// A memo as the recorder knows it: its stable id and its file.
public struct MemoReference: Hashable, Sendable {
    public var id: String
    public var path: String

    public init(id: String, path: String) {
        self.id = id
        self.path = path
    }
}

/// The recorder's observable values, named as the bus properties they back.
public enum RecorderProperty: String, Sendable, CaseIterable {
    case state = "State"
    case currentMemo = "CurrentMemo"
    case activeSource = "ActiveSource"
    case format = "Format"
    case sampleRate = "SampleRate"
    case channels = "Channels"
    case quality = "Quality"
    case source = "Source"
    case meteringEnabled = "MeteringEnabled"
    case notificationsEnabled = "NotificationsEnabled"
}

/// Receives what the recorder does, on the recorder's queue.
public protocol RecorderObserver: AnyObject {
    /// Some observable values changed (each named once).
    func recorder(_ recorder: Recorder, didChange properties: [RecorderProperty])
    /// A memo was finished; `successfully` is false when a failure ended it early.
    func recorder(_ recorder: Recorder, didFinish memo: MemoReference, successfully: Bool)
    /// Writing a memo failed; what was written before stays on disk.
    func recorder(_ recorder: Recorder, didFailToEncode memo: MemoReference, message: String)
    /// A metering window was recorded (only while metering is enabled and recording).
    func recorder(_ recorder: Recorder, didMeasure levels: Levels, currentTime: Double)
}
