import Bus
import Testing
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoService

/// The tray menu's rows for a state: the recorder's actions, greyed out where the state
/// does not allow them, the newest memos, the folder and the input.
@Suite("Tray menu: the recorder and the library as dbusmenu rows")
struct TrayMenuTests {
    private typealias Menu = TrayMenuService

    private func items(
        _ state: RecorderState, input: String = "Built-in microphone", memos: [(id: String, label: String)] = []
    ) -> [Menu.Item] {
        Menu.items(for: Menu.Content(state: state, input: input, recentMemos: memos))
    }

    private func item(_ id: Int32, in items: [Menu.Item]) -> Menu.Item? { items.first { $0.id == id } }

    private func label(_ item: Menu.Item?) -> String? { item?.properties["label"]?.string }

    private func isEnabled(_ item: Menu.Item?) -> Bool? { item?.properties["enabled"]?.boolean }

    /// Each action's row keeps its id whatever the state, so an open menu stays right.
    @Test(arguments: RecorderState.allCases)
    func everyActionHasItsRowEnabledAsThePresentationSays(_ state: RecorderState) {
        let rows = items(state)
        // Labels are the recorder methods' names, but for a call's.
        let actions: [(TrayPresentation.Action, Int32, String)] = [
            (.record, 1, RecorderMember.record.name.rawValue), (.recordCall, 12, "Record call"),
            (.pause, 2, RecorderMember.pause.name.rawValue), (.resume, 3, RecorderMember.resume.name.rawValue),
            (.stop, 4, RecorderMember.stop.name.rawValue), (.cancel, 5, RecorderMember.cancel.name.rawValue),
        ]
        for (action, id, text) in actions {
            let row = item(id, in: rows)
            #expect(label(row) == text)
            #expect(isEnabled(row) == TrayPresentation.isEnabled(action, in: state))
            #expect(row?.command == .recorder(action))
        }
    }

    @Test func whileRecordingOnlyPauseStopAndCancelAreEnabled() {
        let rows = items(.recording)
        let enabled = rows.filter { $0.command != nil && isEnabled($0) == true }.compactMap(label)
        let expected = [RecorderMember.pause, RecorderMember.stop, RecorderMember.cancel].map(\.name.rawValue)
        #expect(enabled == expected + ["Open memo folder"])
    }

    @Test func anEmptyLibrarySaysSoInAGreyedRow() {
        let rows = items(.idle)
        #expect(label(item(7, in: rows)) == "No memos yet")
        #expect(isEnabled(item(7, in: rows)) == false)
        #expect(item(7, in: rows)?.command == nil)
    }

    @Test func theNewestFiveMemosArePlayableInOrder() {
        let memos = (1...7).map { (id: "m\($0)", label: "Memo \($0)") }
        let rows = items(.idle, memos: memos)
        #expect(item(7, in: rows) == nil)
        let played = rows.compactMap { row -> String? in
            guard case .play(let id)? = row.command else { return nil }
            return id
        }
        #expect(played == ["m1", "m2", "m3", "m4", "m5"])
        #expect(label(item(100, in: rows)) == "Play Memo 1")
        #expect(label(item(104, in: rows)) == "Play Memo 5")
        #expect(item(105, in: rows) == nil)
    }

    @Test func theInputIsAGreyedLabelAndNoInputSaysSo() {
        #expect(label(item(11, in: items(.idle))) == "Input: Built-in microphone")
        #expect(isEnabled(item(11, in: items(.idle))) == false)
        #expect(label(item(11, in: items(.idle, input: ""))) == "Input: no input")
    }

    @Test func theRowsComeInTheirFixedOrder() {
        let ids = items(.idle, memos: [(id: "a", label: "A")]).map(\.id)
        #expect(ids == [1, 12, 2, 3, 4, 5, 6, 100, 8, 9, 10, 11])
    }

    @Test func theFolderRowOpensTheFolder() {
        let row = item(9, in: items(.paused))
        #expect(label(row) == "Open memo folder")
        #expect(row?.command == .openFolder)
    }
}
