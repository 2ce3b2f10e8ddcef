import Testing
import VoiceMemoCore

/// The library's file work, fed by hand: jobs are names, and a test plays the service,
/// running what the schedule hands back and saying when file work starts and ends.
@Suite("Library work schedule: one file job per memo, refreshes after, the load gate")
struct LibraryWorkScheduleTests {
    private typealias Schedule = LibraryWorkSchedule<String>

    /// Runs what waited for memo `id` after its file work ended, as the service does;
    /// `startingWork` names the jobs that start file work of their own.
    private func finish(_ id: String, in schedule: inout Schedule, startingWork: Set<String> = []) -> [String] {
        schedule.finishWork(on: id)
        var ran: [String] = []
        while let job = schedule.nextJob(on: id) {
            ran.append(job)
            if startingWork.contains(job) { schedule.startWork(on: id) }
        }
        return ran
    }

    @Test(
        "When may a memo's file be trimmed while it is being loaded? At once, once it is listed: the load holds refreshes only"
    )
    func aMemoIsTrimmedAtOnceDuringTheLoadWhileRefreshesWaitForItsEnd() {
        var schedule = Schedule()
        schedule.loadStarted()
        #expect(schedule.submit("trim", on: "a") == "trim")
        schedule.startWork(on: "a")
        #expect(schedule.mayRefresh() == false)
        _ = finish("a", in: &schedule)
        // The refresh asked for during the load is the load's end's, not the file work's.
        #expect(schedule.takeWaitingRefresh() == false)
        #expect(schedule.mayRefresh() == false)
        schedule.loadFinished()
        #expect(schedule.load == .finished)
        #expect(schedule.mayRefresh() == true)
    }

    @Test func aJobOnAMemoWithoutFileWorkRunsAtOnce() {
        var schedule = Schedule()
        #expect(schedule.submit("rename", on: "a") == "rename")
    }

    @Test func jobsOnOneMemoWaitForItsFileWorkAndRunInOrder() {
        var schedule = Schedule()
        _ = schedule.submit("rename", on: "a")
        schedule.startWork(on: "a")
        #expect(schedule.submit("trim", on: "a") == nil)
        #expect(schedule.submit("delete", on: "a") == nil)
        #expect(finish("a", in: &schedule) == ["trim", "delete"])
        #expect(schedule.submit("play", on: "a") == "play")
    }

    @Test func anotherMemosJobDoesNotWait() {
        var schedule = Schedule()
        _ = schedule.submit("rename", on: "a")
        schedule.startWork(on: "a")
        #expect(schedule.submit("trim", on: "b") == "trim")
    }

    @Test func aWaitingJobThatStartsFileWorkHoldsTheRestAgain() {
        var schedule = Schedule()
        _ = schedule.submit("rename", on: "a")
        schedule.startWork(on: "a")
        _ = schedule.submit("trim", on: "a")
        _ = schedule.submit("delete", on: "a")
        #expect(finish("a", in: &schedule, startingWork: ["trim"]) == ["trim"])
        #expect(schedule.submit("rename again", on: "a") == nil)
        #expect(finish("a", in: &schedule) == ["delete", "rename again"])
    }

    @Test func aRefreshWaitsForTheLastFileWorkToEnd() {
        var schedule = Schedule()
        schedule.startWork(on: "a")
        schedule.startWork(on: "b")
        #expect(schedule.mayRefresh() == false)
        _ = finish("a", in: &schedule)
        #expect(schedule.takeWaitingRefresh() == false)
        _ = finish("b", in: &schedule)
        #expect(schedule.takeWaitingRefresh() == true)
        // Once.
        #expect(schedule.takeWaitingRefresh() == false)
    }

    @Test func withNoFileWorkNoRefreshWaits() {
        var schedule = Schedule()
        #expect(schedule.mayRefresh() == true)
        schedule.startWork(on: "a")
        _ = finish("a", in: &schedule)
        #expect(schedule.takeWaitingRefresh() == false)
    }

    @Test func beforeTheLoadStartsARefreshRunsAtOnce() {
        var schedule = Schedule()
        #expect(schedule.load == .notStarted)
        #expect(schedule.mayRefresh() == true)
    }

    @Test func anEndOfFileWorkNeverStartedChangesNothing() {
        var schedule = Schedule()
        #expect(finish("a", in: &schedule) == [])
        #expect(schedule.submit("trim", on: "a") == "trim")
    }
}
