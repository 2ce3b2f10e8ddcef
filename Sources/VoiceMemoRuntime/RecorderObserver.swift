import VoiceMemoCore

/// Receives what the recorder does, on the recorder's queue.
public protocol RecorderObserver: AnyObject {
    /// Some observable values changed (each named once).
    func recorder(_ recorder: Recorder, didChange properties: [RecorderProperty])
    /// A memo was finished; `successfully` is false when a failure ended it early.
    func recorder(_ recorder: Recorder, didFinish memo: MemoReference, successfully: Bool)
    /// Writing a memo failed; what was written before stays on disk.
    func recorder(_ recorder: Recorder, didFailToEncode memo: MemoReference, message: String)
    /// An interruption began (`began` true) or ended; `shouldResume` tells whether the
    /// recording goes on by itself when it ends.
    func recorder(_ recorder: Recorder, interruption reason: InterruptionReason, began: Bool, shouldResume: Bool)
    /// The source feeding the recording changed.
    func recorder(
        _ recorder: Recorder, didChangeRoute reason: RouteChangeReason, from previous: String, to current: String)
    /// A metering window was recorded (only while metering is enabled and recording).
    func recorder(_ recorder: Recorder, didMeasure levels: Levels, currentTime: Double)
}
