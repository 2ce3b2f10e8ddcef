import FoundationEssentials

/// Parses `record --at`: `+90`, `+90s`, `+5m`, `+1h` (from now), `HH:MM` (the next such
/// time of day) or a Unix time in seconds. Anything else, and any time no `Int64` holds,
/// is nil rather than a trap.
public enum StartTime {
    public static func parse(_ text: String, now: Date = Date(), calendar: Calendar = .current) -> Int64? {
        let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
        if text.hasPrefix("+") {
            var digits = text.dropFirst()
            var unit: Int64 = 1
            switch digits.last {
            case "s": digits = digits.dropLast()
            case "m":
                unit = 60
                digits = digits.dropLast()
            case "h":
                unit = 3600
                digits = digits.dropLast()
            default: break
            }
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let amount = Int64(digits)
            else { return nil }
            let (seconds, isTooLong) = amount.multipliedReportingOverflow(by: unit)
            let (time, isTooLate) = nowSeconds.addingReportingOverflow(seconds)
            return isTooLong || isTooLate ? nil : time
        }
        if let colon = text.firstIndex(of: ":") {
            guard let hour = Int(text[..<colon]), let minute = Int(text[text.index(after: colon)...]),
                (0..<24).contains(hour), (0..<60).contains(minute),
                let next = calendar.nextDate(
                    after: now, matching: DateComponents(hour: hour, minute: minute, second: 0),
                    matchingPolicy: .nextTime)
            else { return nil }
            return Int64(next.timeIntervalSince1970)
        }
        return Int64(text)
    }
}
