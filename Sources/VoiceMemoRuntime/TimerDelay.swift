import Dispatch
import VoiceMemoCore

extension DispatchTimeInterval {
    /// `seconds` as a timer delay in whole milliseconds, kept within 0…a year (NaN counts as
    /// 0), so no setting and no clock jump can trap the conversion to `Int`.
    static func delay(seconds: Double) -> DispatchTimeInterval {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), 366 * 24 * 3600)
        return .milliseconds(Int((clamped * 1000).rounded(.up)))
    }
}
