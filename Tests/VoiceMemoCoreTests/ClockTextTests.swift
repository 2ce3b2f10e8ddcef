import Testing
import VoiceMemoCore

@Suite("Clock text")
struct ClockTextTests {
    @Test func aRunningClockCountsWholeSecondsPassed() {
        #expect(ClockText.text(0) == "0:00")
        #expect(ClockText.text(59.9) == "0:59")
        #expect(ClockText.text(61) == "1:01")
        #expect(ClockText.text(3600) == "1:00:00")
        #expect(ClockText.text(36_061.5) == "10:01:01")
    }

    @Test func aLengthRoundsToTheNearestSecond() {
        #expect(ClockText.text(59.5, rounding: .toNearestOrAwayFromZero) == "1:00")
        #expect(ClockText.text(0.4, rounding: .toNearestOrAwayFromZero) == "0:00")
    }

    @Test func hoursCanAlwaysBeShown() {
        #expect(ClockText.text(5, showsHours: true) == "00:00:05")
        #expect(ClockText.text(3_661, showsHours: true) == "01:01:01")
    }

    @Test func valuesNoClockShowsReadAsZeroOrAreCapped() {
        #expect(ClockText.text(.nan) == "0:00")
        #expect(ClockText.text(-3) == "0:00")
        #expect(ClockText.text(.infinity, showsHours: true) == "00:00:00")
        #expect(ClockText.text(1e300, showsHours: true) == "277777777:46:40")
    }
}
