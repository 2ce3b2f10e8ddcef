import Testing
import VoiceMemoCore

@Suite("RecordWithOptions validation")
struct RecordingRequestTests {
    let now: Int64 = 1_800_000_000

    func request(_ options: [String: OptionValue]) throws(RecorderError) -> RecordingRequest {
        try RecordingRequest(defaults: RecorderDefaults(), options: options, now: now)
    }

    @Test func defaultsAreOpus48kMono() throws {
        let request = try request([:])
        #expect(request.format == .opus)
        #expect(request.sampleRate == 48000)
        #expect(request.channels == 1)
        #expect(request.quality == .medium)
        #expect(request.source == nil && request.duration == nil && request.startTime == nil)
    }

    @Test(arguments: AudioFormat.allCases)
    func everyFormatIsAccepted(format: AudioFormat) throws {
        #expect(try request(["format": .string(format.rawValue)]).format == format)
    }

    @Test func everyKeyIsApplied() throws {
        let request = try request([
            "format": .string("flac"), "sample-rate": .uint32(44100), "channels": .uint32(2),
            "quality": .string("max"), "title": .string("Standup"), "source": .string("alsa_input.usb"),
            "duration": .double(30), "start-at": .int64(now + 60),
        ])
        #expect(request.format == .flac)
        #expect(request.sampleRate == 44100)
        #expect(request.channels == 2)
        #expect(request.quality == .max)
        #expect(request.title == "Standup")
        #expect(request.source == "alsa_input.usb")
        #expect(request.duration == 30)
        #expect(request.startTime == now + 60)
        #expect(request.frameLimit == 30 * 44100)
    }

    @Test func transcribeFollowsTheSettingUnlessTheOptionSays() throws {
        #expect(try request([:]).transcribes == false)
        #expect(try request(["transcribe": .boolean(true)]).transcribes == true)
        var defaults = RecorderDefaults()
        defaults.transcribeNewMemos = true
        #expect(RecordingRequest(defaults: defaults).transcribes == true)
        let refused = try RecordingRequest(defaults: defaults, options: ["transcribe": .boolean(false)], now: now)
        #expect(refused.transcribes == false)
    }

    @Test func emptySourceFollowsTheDefault() throws {
        #expect(try request(["source": .string("")]).source == nil)
    }

    @Test(arguments: [
        ("colour", OptionValue.string("red"), "unknown option 'colour'"),
        ("sample-rate", .uint32(7), "'sample-rate' must be between 8000 and 192000 Hz; got 7"),
        ("sample-rate", .uint32(192001), "got 192001"),
        ("channels", .uint32(9), "'channels' must be 1 (mono) or 2 (stereo); got 9"),
        ("channels", .uint32(0), "got 0"),
        ("format", .string("aac"), "'format' must be one of opus, flac, wav, vorbis, mp3; got 'aac'"),
        ("quality", .string("ultra"), "'quality' must be one of min, low, medium, high, max"),
        ("duration", .double(0), "'duration' must be a number of seconds greater than 0"),
        ("duration", .double(.nan), "'duration' must be a number"),
        ("title", .string("two\nlines"), "'title' must not contain control characters"),
        ("stop-after-silence", .double(-1), "'stop-after-silence' must be a number of seconds greater than 0"),
        ("silence-threshold", .double(5), "'silence-threshold' must be a level in dBFS between -160 and 0; got 5.0"),
        ("channel-layout", .string("stereo"), "'channel-layout' must be one of mix, split; got 'stereo'"),
        ("channel-layout", .string(""), "'channel-layout' must be one of mix, split; got ''"),
        ("channel-layout", .string("Split"), "got 'Split'"),
    ])
    func badInputIsRefusedNamingTheKey(key: String, value: OptionValue, message: String) {
        #expect {
            _ = try request([key: value])
        } throws: { error in
            guard case .invalidArgument(let text) = error as? RecorderError else { return false }
            return text.contains(message) && text.contains(key)
        }
    }

    @Test(arguments: [
        ("sample-rate", OptionValue.string("48000"), OptionKind.unsigned32),
        ("duration", .uint32(5), .number),
        ("start-at", .double(5), .signed64),
        ("title", .other(type: "as"), .text),
        ("silence-threshold", .uint32(5), .number),
        ("system-audio", .string("true"), .flag),
        ("system-audio", .uint32(1), .flag),
        ("channel-layout", .uint32(2), .text),
        ("channel-layout", .boolean(true), .text),
        ("channel-layout", .other(type: "as"), .text),
    ])
    func wrongTypesAreRefusedNamingTheKeyAndBothTypes(key: String, value: OptionValue, expected: OptionKind) {
        #expect(throws: RecorderError.wrongOptionType(key: key, expected: expected, got: value)) {
            try request([key: value])
        }
    }

    @Test func wrongTypesAreWordedWithoutAnyProtocolsTypeNames() {
        let unsigned = RecorderError.wrongOptionType(key: "duration", expected: .number, got: .uint32(5))
        #expect(unsigned.message == "option 'duration' must be a number; got an unsigned 32-bit integer")
        let other = RecorderError.wrongOptionType(key: "title", expected: .text, got: .other(type: "as"))
        #expect(other.message == "option 'title' must be text; got another type")
    }

    @Test func startTimeMoreThanAYearAwayIsRefused() {
        #expect(throws: RecorderError.self) { try request(["start-at": .int64(now + 400 * 24 * 3600)]) }
    }

    @Test(arguments: [(AudioFormat.opus, UInt32(44100)), (.mp3, 96000), (.opus, 22050)])
    func impossibleCombinationsAreUnsupported(format: AudioFormat, rate: UInt32) {
        #expect {
            _ = try request(["format": .string(format.rawValue), "sample-rate": .uint32(rate)])
        } throws: { error in
            guard case .unsupported(let text) = error as? RecorderError else { return false }
            return text.contains("\(rate) Hz")
        }
    }

    @Test(arguments: [
        (AudioFormat.opus, UInt32(16000)), (.flac, 192000), (.wav, 8000), (.vorbis, 44100), (.mp3, 44100),
    ])
    func possibleCombinationsAreAccepted(format: AudioFormat, rate: UInt32) throws {
        #expect(try request(["format": .string(format.rawValue), "sample-rate": .uint32(rate)]).sampleRate == rate)
    }

    @Test func hostileKeysAreEscapedInMessages() {
        #expect {
            _ = try request(["\u{1b}[31mkey": .string("x")])
        } throws: { error in
            (error as? RecorderError)?.message.contains("\\u{1B}") == true
        }
    }

    // MARK: A call: the microphone and the system audio

    func defaults(systemAudio: Bool) -> RecorderDefaults {
        var defaults = RecorderDefaults()
        defaults.systemAudio = systemAudio
        return defaults
    }

    @Test func systemAudioIsOffAndMixedUnlessAsked() throws {
        let request = try request([:])
        #expect(!request.systemAudio)
        #expect(request.channelLayout == .mix)
        #expect(!RecorderDefaults().systemAudio)
    }

    /// `Record` and `Toggle` build their request from the defaults alone.
    @Test(arguments: [false, true])
    func systemAudioDefaultsToTheSetting(isOn: Bool) throws {
        #expect(RecordingRequest(defaults: defaults(systemAudio: isOn)).systemAudio == isOn)
        #expect(try RecordingRequest(defaults: defaults(systemAudio: isOn), options: [:], now: now).systemAudio == isOn)
    }

    @Test(arguments: [false, true])
    func theSystemAudioOptionOverridesTheSetting(isOn: Bool) throws {
        let request = try RecordingRequest(
            defaults: defaults(systemAudio: !isOn), options: ["system-audio": .boolean(isOn)], now: now)
        #expect(request.systemAudio == isOn)
        #expect(request.channelLayout == .mix && request.channels == 1)
    }

    @Test(arguments: [UInt32(1), 2])
    func mixKeepsTheChannelsAsked(channels: UInt32) throws {
        let request = try request([
            "system-audio": .boolean(true), "channel-layout": .string("mix"), "channels": .uint32(channels),
        ])
        #expect(request.channelLayout == .mix && request.channels == channels && request.systemAudio)
    }

    @Test func mixWithoutSystemAudioIsJustTheMicrophone() throws {
        let request = try request(["channel-layout": .string("mix")])
        #expect(request.channelLayout == .mix && !request.systemAudio && request.channels == 1)
    }

    @Test func splitWithoutAChannelsOptionRecordsTwo() throws {
        let request = try request(["system-audio": .boolean(true), "channel-layout": .string("split")])
        #expect(request.channelLayout == .split && request.channels == 2 && request.systemAudio)
    }

    @Test func splitTakesChannelsTwo() throws {
        let request = try request([
            "system-audio": .boolean(true), "channel-layout": .string("split"), "channels": .uint32(2),
        ])
        #expect(request.channelLayout == .split && request.channels == 2)
    }

    @Test func splitTakesSystemAudioFromTheSetting() throws {
        let request = try RecordingRequest(
            defaults: defaults(systemAudio: true), options: ["channel-layout": .string("split")], now: now)
        #expect(request.systemAudio && request.channelLayout == .split && request.channels == 2)
    }

    /// The refusal for `options`, which must be an `invalidArgument`.
    func refusal(_ options: [String: OptionValue], defaults: RecorderDefaults = RecorderDefaults()) -> String? {
        do {
            _ = try RecordingRequest(defaults: defaults, options: options, now: now)
            return nil
        } catch {
            guard case .invalidArgument(let text) = error else { return "not an invalid argument: \(error)" }
            return text
        }
    }

    @Test func splitWithoutSystemAudioIsRefused() {
        let needs =
            "'channel-layout' split puts the microphone left and the system audio right: it needs 'system-audio'"
        #expect(refusal(["channel-layout": .string("split")]) == needs)
        #expect(refusal(["channel-layout": .string("split"), "system-audio": .boolean(false)]) == needs)
        #expect(
            refusal(
                ["channel-layout": .string("split"), "system-audio": .boolean(false)],
                defaults: defaults(systemAudio: true)) == needs,
            "the option turns the setting off")
    }

    @Test func splitWithOneChannelIsRefused() {
        let options: [String: OptionValue] = [
            "system-audio": .boolean(true), "channel-layout": .string("split"), "channels": .uint32(1),
        ]
        #expect(
            refusal(options)
                == "'channel-layout' split records two channels, the microphone left and the system audio right; 'channels' 1 contradicts it: leave 'channels' out or make it 2"
        )
    }

    @Test func splitOverridesTheChannelsSetting() throws {
        var defaults = defaults(systemAudio: true)
        defaults.channels = 1
        let request = try RecordingRequest(
            defaults: defaults, options: ["channel-layout": .string("split")], now: now)
        #expect(request.channels == 2, "only a 'channels' option contradicts split, not the Channels default")
    }

    @Test(arguments: ["\u{1b}[2Jsplit", "mix\n", "\u{7}", String(repeating: "split", count: 100)])
    func hostileLayoutsAreRefusedPrintably(name: String) throws {
        let text = try #require(refusal(["system-audio": .boolean(true), "channel-layout": .string(name)]))
        #expect(text.hasPrefix("'channel-layout' must be one of mix, split; got '"))
        #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(text)")
        #expect(text.count < 200, "a long value is not copied whole")
    }
}
