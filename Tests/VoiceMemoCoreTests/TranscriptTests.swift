import FoundationEssentials
import Testing
import VoiceMemoCore

/// A memo's transcript: its stored WebVTT form, the forms it is offered in, cutting it with
/// the memo, and finding text in it.
@Suite("Transcript: WebVTT, SubRip, JSON, cuts and excerpts")
struct TranscriptTests {
    typealias Segment = Transcript.Segment

    private let sample = Transcript(segments: [
        Segment(start: 0.5, end: 2.25, text: "Remember to call the plumber"),
        Segment(start: 2.25, end: 3725.004, text: "about the leak in the kitchen."),
    ])

    @Test func theStoredFormIsWebVTTWithHoursAndMilliseconds() {
        #expect(
            sample.webVTT == """
                WEBVTT

                00:00:00.500 --> 00:00:02.250
                Remember to call the plumber

                00:00:02.250 --> 01:02:05.004
                about the leak in the kitchen.

                """)
    }

    /// Texts that would end a cue, start a timing line or open markup if written as they are.
    static let awkwardTexts = [
        "a --> b", "Tom & Jerry <3 > 2", "&amp; stays literal", "line one\n\nline two", "crlf\r\nnext", "",
        "Réunion à Zürich ☕🎙️", "WEBVTT", "NOTE this is said, not a note", "00:00:01.000 --> 00:00:02.000",
        "   spaced   ",
    ]

    @Test(arguments: awkwardTexts)
    func anyTextSurvivesTheStoredForm(text: String) throws {
        let transcript = Transcript(segments: [
            Segment(start: 0, end: 1, text: "before"), Segment(start: 1, end: 2.5, text: text),
            Segment(start: 2.5, end: 4, text: "after"),
        ])
        let stored = transcript.webVTT
        let read = try #require(Transcript(webVTT: stored))
        #expect(read == transcript)
        #expect(read.segments.count == 3)
        #expect(read.webVTT == stored)
        // The text's own lines cannot end or begin a cue: each cue is a timing line and one line of text.
        #expect(stored.split(separator: "\n", omittingEmptySubsequences: false).count == 1 + 3 * 3 + 1)
    }

    @Test func lineBreaksInASegmentBecomeOneSpace() {
        #expect(Segment(start: 0, end: 1, text: "one\n\ntwo\r\nthree\rfour").text == "one two three four")
    }

    @Test func readingAcceptsCRLFCueIdsMissingHoursSettingsNotesAndMarkup() throws {
        let text =
            "\u{FEFF}WEBVTT - made elsewhere\r\nKind: captions\r\n\r\nNOTE a comment\r\nover two lines\r\n\r\n"
            + "STYLE\r\n::cue { color: red }\r\n\r\n"
            + "intro\r\n00:01.250 --> 00:03.500 align:start position:10%\r\n<v Anna>Hello</v> <i>there</i>\r\nfriends\r\n\r\n"
            + "2\r\n01:00:00.000 --> 01:00:01.000\r\nfish &amp; chips &lt;3 --&gt; &nbsp;&bogus; a&b\r\n"
        let transcript = try #require(Transcript(webVTT: text))
        #expect(
            transcript.segments == [
                Segment(start: 1.25, end: 3.5, text: "Hello there friends"),
                Segment(start: 3600, end: 3601, text: "fish & chips <3 --> \u{A0}&bogus; a&b"),
            ])
    }

    @Test func cuesWhoseTimingDoesNotParseAreSkipped() throws {
        let text = """
            WEBVTT

            00:00:01.000 --> 00:00:02.000
            kept

            00:00:61.000 --> 00:01:02.000
            seconds out of range

            00:00:03,000 --> 00:00:04,000
            SubRip's comma

            1:2.5 --> 00:00:05.000
            too few digits

            00:00:05.000 --> 00:00:06.000
            kept too
            """
        let transcript = try #require(Transcript(webVTT: text))
        #expect(transcript.segments.map(\.text) == ["kept", "kept too"])
        #expect(transcript.segments.map(\.start) == [1, 5])
    }

    @Test(arguments: [
        "", "Hello", "WEBVTTX\n\n00:00:01.000 --> 00:00:02.000\nhi", "webvtt\n",
        "1\n00:00:01,000 --> 00:00:02,000\nhi\n", " WEBVTT\n",
    ])
    func textThatIsNotWebVTTIsRefused(text: String) {
        #expect(Transcript(webVTT: text) == nil)
    }

    @Test func aHeaderWithoutCuesIsAnEmptyTranscript() {
        #expect(Transcript(webVTT: "WEBVTT\n") == Transcript(segments: []))
        #expect(Transcript(webVTT: "WEBVTT\tx\r\n\r\n") == Transcript(segments: []))
        #expect(Transcript(segments: []).webVTT == "WEBVTT\n")
    }

    @Test func plainTextJoinsTheSegmentsWithSingleSpaces() {
        let transcript = Transcript(segments: [
            Segment(start: 0, end: 1, text: " Hello "), Segment(start: 1, end: 2, text: ""),
            Segment(start: 2, end: 3, text: "world."),
        ])
        #expect(transcript.plainText == "Hello world.")
        #expect(sample.plainText == "Remember to call the plumber about the leak in the kitchen.")
    }

    @Test func subRipNumbersCuesFromOneWithCommaMilliseconds() {
        #expect(
            sample.srt == """
                1
                00:00:00,500 --> 00:00:02,250
                Remember to call the plumber

                2
                00:00:02,250 --> 01:02:05,004
                about the leak in the kitchen.


                """)
    }

    @Test func timesAreRoundedToTheMillisecondAndNegativeOnesReadAsZero() {
        let transcript = Transcript(segments: [Segment(start: -1, end: 0.0014999, text: "a")])
        #expect(transcript.webVTT.contains("00:00:00.000 --> 00:00:00.001\n"))
        #expect(
            Transcript(segments: [Segment(start: 59.9996, end: 86400, text: "b")]).srt.contains(
                "00:01:00,000 --> 24:00:00,000"))
    }

    @Test func jsonIsAnArrayOfStartEndAndTextEscapedAsJSONRequires() throws {
        let texts = ["say \"hi\"", "back\\slash", "tab\there", "bell\u{7}", "é/☕", "</script>"]
        let transcript = Transcript(
            segments: texts.enumerated().map { Segment(start: Double($0), end: Double($0) + 0.5, text: $1) })
        let json = transcript.json
        // No raw control character may appear inside a JSON string.
        #expect(!json.unicodeScalars.contains { $0.value < 0x20 })
        #expect(json.contains(#""say \"hi\"""#))
        #expect(json.contains(#""back\\slash""#))
        #expect(json.hasPrefix(#"[{"end":0.5,"start":0,"text":"say"#))
        let decoded = try JSONDecoder().decode([Segment].self, from: Data(json.utf8))
        #expect(decoded == transcript.segments)
        #expect(Transcript(segments: []).json == "[]")
    }

    @Test func cuttingKeepsTheOverlappingSegmentsClippedAndMovedToTheCutsStart() {
        let transcript = Transcript(segments: [
            Segment(start: 0, end: 2, text: "before"), Segment(start: 2, end: 5, text: "touching the start"),
            Segment(start: 4, end: 7, text: "across the start"), Segment(start: 6, end: 8, text: "inside"),
            Segment(start: 9, end: 9, text: "instant"), Segment(start: 9.5, end: 12, text: "across the end"),
            Segment(start: 10, end: 11, text: "touching the end"), Segment(start: 3, end: 12, text: "around"),
        ])
        let cut = transcript.cut(keeping: 5..<10)
        #expect(
            cut.segments == [
                Segment(start: 0, end: 2, text: "across the start"), Segment(start: 1, end: 3, text: "inside"),
                Segment(start: 4, end: 4, text: "instant"), Segment(start: 4.5, end: 5, text: "across the end"),
                Segment(start: 0, end: 5, text: "around"),
            ])
        #expect(transcript.cut(keeping: 20..<30).segments.isEmpty)
        #expect(transcript.cut(keeping: 0..<12) == transcript)
    }

    private let meeting = Transcript(segments: [
        Segment(start: 0, end: 3, text: "Good morning everyone."),
        Segment(start: 3, end: 9, text: "Remember to call the plumber about the leak tomorrow morning, please."),
        Segment(start: 9, end: 12, text: "The Plumber's number is on the fridge."),
    ])

    @Test func anExcerptShowsTheMatchedWordsWithContextAndEllipses() {
        #expect(
            meeting.excerpt(matching: SearchText("plumber"), contextWords: 2)
                == Transcript.Excerpt(start: 3, text: "…call the plumber about the…"))
        #expect(
            meeting.excerpt(matching: SearchText("plumber"))
                == Transcript.Excerpt(start: 3, text: "Remember to call the plumber about the leak tomorrow…"))
        #expect(
            meeting.excerpt(matching: SearchText("plumber"), contextWords: 0)
                == Transcript.Excerpt(start: 3, text: "…plumber…"))
    }

    @Test func anExcerptMatchesIgnoringCaseAndAccentsAndAcrossWords() {
        let transcript = Transcript(segments: [
            Segment(start: 7.5, end: 9, text: "Nous avons vu   Mme MÜLLER à la Réunion hier soir tard")
        ])
        #expect(
            transcript.excerpt(matching: SearchText("muller a la reunion"), contextWords: 1)
                == Transcript.Excerpt(start: 7.5, text: "…Mme MÜLLER à la Réunion hier…"))
        // A match inside words shows the whole words.
        #expect(
            transcript.excerpt(matching: SearchText("ller à l"), contextWords: 0)
                == Transcript.Excerpt(start: 7.5, text: "…MÜLLER à la…"))
        #expect(
            transcript.excerpt(matching: SearchText("nous"), contextWords: 2)
                == Transcript.Excerpt(start: 7.5, text: "Nous avons vu…"))
        #expect(
            transcript.excerpt(matching: SearchText("tard"), contextWords: 1)
                == Transcript.Excerpt(start: 7.5, text: "…soir tard"))
    }

    @Test func theFirstSegmentHoldingTheQueryGivesTheExcerpt() {
        #expect(meeting.excerpt(matching: SearchText("MORNING"))?.start == 0)
        #expect(meeting.excerpt(matching: SearchText("fridge"))?.start == 9)
        #expect(meeting.excerpt(matching: SearchText("plumber's"))?.start == 9)
    }

    @Test func noExcerptWithoutAMatchOrForAnEmptyQuery() {
        #expect(meeting.excerpt(matching: SearchText("electrician")) == nil)
        #expect(meeting.excerpt(matching: SearchText("")) == nil)
        #expect(Transcript(segments: []).excerpt(matching: SearchText("a")) == nil)
    }

    @Test func aMatchOfWhiteSpaceAloneShowsTheWordsAroundIt() {
        let transcript = Transcript(segments: [Segment(start: 1, end: 2, text: "one two  three four")])
        #expect(
            transcript.excerpt(matching: SearchText("  "), contextWords: 1)
                == Transcript.Excerpt(start: 1, text: "…two three…"))
    }
}
