import FoundationEssentials

/// Parses `record --at`: `+90`, `+90s`, `+5m`, `+1h` (from now), `HH:MM` (the next such
/// time of day) or a Unix time in seconds.
enum StartTime {
    static func parse(_ text: String, now: Date = Date(), calendar: Calendar = .current) -> Int64? {
        let nowSeconds = Int64(now.timeIntervalSince1970)
        if text.hasPrefix("+") {
            var digits = text.dropFirst()
            var unit: Int64 = 1
            switch digits.last {
            case "s": digits = digits.dropLast()
            case "m": unit = 60; digits = digits.dropLast()
            case "h": unit = 3600; digits = digits.dropLast()
            default: break
            }
            guard let amount = Int64(digits), amount >= 0 else { return nil }
            return nowSeconds + amount * unit
        }
        if let colon = text.firstIndex(of: ":") {
            guard let hour = Int(text[..<colon]), let minute = Int(text[text.index(after: colon)...]),
                (0..<24).contains(hour), (0..<60).contains(minute),
                let next = calendar.nextDate(
                    after: now, matching: DateComponents(hour: hour, minute: minute, second: 0), matchingPolicy: .nextTime)
            else { return nil }
            return Int64(next.timeIntervalSince1970)
        }
        return Int64(text)
    }
}
