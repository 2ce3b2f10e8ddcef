/// Seconds as a clock shows them: one spelling for the CLI, the tray and notifications.
public enum ClockText {
    /// `M:SS`, or `H:MM:SS` from an hour on (`HH:MM:SS` always with `showsHours`). A running
    /// clock counts whole seconds passed (`.down`); a length reads best rounded to the
    /// nearest. A value no clock shows (NaN, negative) reads as 0; huge ones are capped.
    public static func text(
        _ seconds: Double, rounding: FloatingPointRoundingRule = .down, showsHours: Bool = false
    ) -> String {
        let whole = seconds.isFinite ? Int(min(max(seconds, 0), 1e12).rounded(rounding)) : 0
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if showsHours { return "\(two(hours)):\(two(minutes)):\(two(rest))" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }
}
