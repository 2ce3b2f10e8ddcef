import FoundationEssentials

/// `date` as year-month-day and hour, minute, second in `timeZone`, zero-padded:
/// `2026-12-01` + `dateTimeSeparator` + `14` + `timeSeparator` + `03` + `timeSeparator` + `07`.
/// Memo file names and the Trash's `DeletionDate` are both written this way.
package func localTimeStamp(_ date: Date, timeZone: TimeZone, dateTimeSeparator: String, timeSeparator: String)
    -> String
{
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
    return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))" + dateTimeSeparator
        + [parts.hour, parts.minute, parts.second].map(two).joined(separator: timeSeparator)
}
