import Testing
import VoiceMemoCore

/// The tray item's rules: status and icon per state, which menu actions apply, and when
/// the tooltip needs a clock.
struct TrayPresentationTests {
    @Test(arguments: RecorderState.allCases)
    func eachStateHasItsOwnIconAndAStatus(state: RecorderState) {
        let look = TrayPresentation.appearance(state: state, time: 83, input: "mic", title: "Standup")
        let call = TrayPresentation.appearance(state: state, time: 83, input: "mic", output: "speaker", title: "")
        #expect(call.tooltipBody.contains("Input: mic\nOutput: speaker (system audio)"), "a call names both inputs")
        #expect(look.iconName == "voicememo-\(state.rawValue)")
        #expect(look.status == (state == .interrupted ? .needsAttention : .active))
        #expect(look.tooltipBody.contains("Input: mic"))
        #expect(look.tooltipBody.contains("Memo: Standup") == (state != .idle))
        #expect(TrayPresentation.tooltipTicks(in: state) == (state == .recording))
    }

    @Test func theTooltipCarriesTheClock() {
        #expect(
            TrayPresentation.appearance(state: .recording, time: 83.9, input: "", title: "").tooltipTitle
                == "Recording 1:23")
        #expect(
            TrayPresentation.appearance(state: .paused, time: 3725, input: "", title: "").tooltipTitle
                == "Paused at 1:02:05")
        #expect(
            TrayPresentation.appearance(state: .idle, time: 0, input: "", title: "").tooltipBody == "Click to record")
    }

    @Test(arguments: [
        (RecorderState.idle, [TrayPresentation.Action.record, .recordCall]),
        (.scheduled, [.stop, .cancel]),
        (.recording, [.pause, .stop, .cancel]),
        (.paused, [.resume, .stop, .cancel]),
        (.interrupted, [.stop, .cancel]),
    ])
    func theMenuOffersWhatTheStateAllows(state: RecorderState, enabled: [TrayPresentation.Action]) {
        #expect(TrayPresentation.Action.allCases.filter { TrayPresentation.isEnabled($0, in: state) } == enabled)
    }
}
