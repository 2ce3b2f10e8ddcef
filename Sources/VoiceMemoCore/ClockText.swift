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

    /// Seconds from what a person types for a point in a memo: `90`, `2.5`, `M:SS`, `M:SS.s`
    /// or `H:MM:SS`; minutes and seconds after a colon are below 60. Nil for anything else
    /// (negative, not finite, empty parts).
    public static func seconds(from text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let last = Double(parts.last!), last.isFinite, last >= 0,
            parts.last!.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
        else { return nil }
        var whole: [Int] = []
        for part in parts.dropLast() {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part) else {
                return nil
            }
            whole.append(value)
        }
        // After a colon, minutes and seconds stay below 60; the leading part is unbounded.
        guard parts.count == 1 || last < 60, whole.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        return whole.reduce(0) { $0 * 60 + Double($1) } * 60 + last
    }
}
