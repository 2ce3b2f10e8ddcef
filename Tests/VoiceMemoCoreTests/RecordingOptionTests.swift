import FoundationEssentials
import Testing
import VoiceMemoCore

@Suite("The table of RecordWithOptions keys")
struct RecordingOptionTests {
    /// A value of each kind, to send every option one of another kind.
    static let sample: [OptionKind: OptionValue] = [
        .text: .string("x"), .unsigned32: .uint32(1), .signed64: .int64(1), .number: .double(1), .flag: .boolean(true),
    ]

    @Test func keysAndFlagsAreEachSpelledOnce() {
        let keys = RecordingOption.all.map(\.key)
        #expect(Set(keys).count == keys.count)
        let flags = RecordingOption.all.compactMap(\.flag?.name)
        #expect(Set(flags).count == flags.count)
        for required in RecordingOption.all.compactMap(\.flag?.requires) {
            #expect(flags.contains(required), "--\(required) is required by a flag but is none")
        }
    }

    @Test(arguments: RecordingOption.all)
    func aValueOfAnotherKindIsRefusedNamingTheOptionsKind(option: RecordingOption) {
        for (kind, value) in Self.sample where kind != option.kind {
            #expect(throws: RecorderError.wrongOptionType(key: option.key, expected: option.kind, got: value)) {
                try RecordingRequest(defaults: RecorderDefaults(), options: [option.key: value], now: 0)
            }
        }
    }

    @Test func unknownKeysListTheTableInItsOrder() {
        #expect {
            try RecordingRequest(defaults: RecorderDefaults(), options: ["colour": .string("red")], now: 0)
        } throws: { error in
            (error as? RecorderError)?.message
                == "unknown option 'colour'; known options: \(RecordingOption.all.map(\.key).joined(separator: ", "))"
        }
    }

    @Test func theCommandLinesPresenceFlagsSendTheirValue() {
        #expect(RecordingOption.startOnSound.flag?.value(for: "") == .boolean(true))
        #expect(RecordingOption.channelLayout.flag?.value(for: "") == .string("split"))
        #expect(RecordingOption.channelLayout.flag?.requires == "system-audio")
        #expect(RecordingOption.soundThreshold.flag?.requires == "on-sound")
    }

    @Test(arguments: [
        ("rate", "44100", OptionValue.uint32(44100)), ("rate", "44.1", nil), ("rate", "-1", nil),
        ("duration", "2.5", .double(2.5)), ("duration", "0", nil), ("duration", "inf", nil),
        ("threshold", "-35", .double(-35)), ("threshold", "nan", nil), ("title", "Standup", .string("Standup")),
        ("at", "+90", .int64(1_800_000_090)), ("at", "soon", nil),
    ])
    func theCommandLinesWordsAreCheckedForTheirForm(flag name: String, word: String, value: OptionValue?) {
        let flag = RecordingOption.all.compactMap(\.flag).first { $0.name == name }
        #expect(flag?.value(for: word, now: Date(timeIntervalSince1970: 1_800_000_000)) == value)
    }
}
