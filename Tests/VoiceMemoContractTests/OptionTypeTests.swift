import Bus
import Testing
import VoiceMemoContract
import VoiceMemoCore

@Suite("RecordWithOptions type errors in the contract's words")
struct OptionTypeTests {
    /// The options as `RecordWithOptions` decodes them, through the recorder's validation.
    func busError(_ key: String, _ value: BusValue) -> BusError? {
        do {
            _ = try RecordingRequest(defaults: RecorderDefaults(), options: [key: OptionValue(value)], now: 0)
            return nil
        } catch {
            return BusError(error)
        }
    }

    @Test(arguments: [
        (
            "sample-rate", BusValue.string("48000"),
            "option 'sample-rate' must be of type 'u'; got 's' (busctl: sample-rate u …)"
        ),
        ("duration", .uint32(5), "option 'duration' must be of type 'd'; got 'u' (busctl: duration d …)"),
        ("start-at", .double(5), "option 'start-at' must be of type 'x'; got 'd' (busctl: start-at x …)"),
        (
            "title", .array(elementSignature: "s", [.string("a")]),
            "option 'title' must be of type 's'; got 'as' (busctl: title s …)"
        ),
        (
            "silence-threshold", .uint32(5),
            "option 'silence-threshold' must be of type 'd'; got 'u' (busctl: silence-threshold d …)"
        ),
        (
            "start-on-sound", .string("yes"),
            "option 'start-on-sound' must be of type 'b'; got 's' (busctl: start-on-sound b …)"
        ),
        (
            "start-on-sound", .uint32(1),
            "option 'start-on-sound' must be of type 'b'; got 'u' (busctl: start-on-sound b …)"
        ),
    ])
    func wrongTypesNameBothSignaturesAndTheBusctlSpelling(key: String, value: BusValue, message: String) {
        #expect(busError(key, value) == BusError(ContractError.invalidArgument.name, message))
    }

    @Test(arguments: OptionKind.allCases)
    func eachKindHasItsOwnSignature(kind: OptionKind) {
        #expect(OptionKind.allCases.filter { $0.signature == kind.signature } == [kind])
    }

    @Test func everyOtherFailureKeepsTheRecordersMessage() {
        #expect(BusError(.busy("a memo is open")) == BusError(ContractError.busy.name, "a memo is open"))
        #expect(busError("colour", .string("red"))?.name == ContractError.invalidArgument.name)
        #expect(busError("colour", .string("red"))?.message.hasPrefix("unknown option 'colour'") == true)
        #expect(BusError(.deviceLost("gone")) == BusError(ContractError.audioServer.name, "gone"))
    }
}
