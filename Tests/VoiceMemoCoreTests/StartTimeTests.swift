import FoundationEssentials
import Testing
import VoiceMemoCore

@Suite("record --at parsing")
struct StartTimeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    @Test(
        arguments: [
            ("+90", 90), ("+90s", 90), ("+5m", 300), ("+1h", 3600), ("+0", 0), ("+0h", 0),
            ("+1000000000h", 3_600_000_000_000), ("+9223372035054775807", 9_223_372_035_054_775_807),
        ] as [(String, Int64)])
    func relativeTimes(text: String, seconds: Int64) {
        #expect(StartTime.parse(text, now: now, calendar: calendar) == 1_800_000_000 + seconds)
    }

    @Test func clockTimesAndUnixTimes() {
        // `now` is 08:00 UTC: 09:30 is later that day, 07:00 the next morning.
        #expect(StartTime.parse("09:30", now: now, calendar: calendar) == 1_800_005_400)
        #expect(StartTime.parse("07:00", now: now, calendar: calendar) == 1_800_082_800)
        #expect(StartTime.parse("1800000600", now: now, calendar: calendar) == 1_800_000_600)
        #expect(StartTime.parse("-5", now: now, calendar: calendar) == -5)
    }

    /// Amounts whose product or sum no `Int64` holds were a SIGILL; now they are refused.
    @Test(arguments: [
        "+9999999999999999h", "+9223372036854775807m", "+9223372036854775807", "+9223372036854775807s",
        "+2562047788015215h", "+99999999999999999999", "+153722867280912931m", "+9223372035054775808",
    ])
    func overflowingRelativeTimesAreRefused(text: String) {
        #expect(StartTime.parse(text, now: now, calendar: calendar) == nil)
    }

    @Test(arguments: [
        "", "+", "+h", "+m", "++5", "+-5", "+ 5", "+5x", "+5 h", "+５", "+1e9", "24:00", "12:60", "-1:30", ":", "1:",
        "99999999999999999999:00", "9223372036854775808", "now", "🎙️", "+\u{0}",
    ])
    func garbageIsRefused(text: String) {
        #expect(StartTime.parse(text, now: now, calendar: calendar) == nil)
    }
}
