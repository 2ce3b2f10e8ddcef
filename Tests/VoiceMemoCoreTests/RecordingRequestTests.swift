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

    @Test func everyOptionKeyTakesOneKind() {
        #expect(Set(RecordingRequest.optionKinds.keys) == Set(RecordingRequest.optionKeys))
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
}
