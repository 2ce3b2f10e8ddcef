import Testing
import VoiceMemoCore

/// The speech worker's line protocol, as the daemon reads it (the worker's side is checked
/// against the same lines by Tests/Transcription/check-worker.py).
@Suite("WorkerMessage: the speech worker's tab-separated lines")
struct WorkerMessageTests {
    @Test func aSegmentLineGivesItsPathTimesAndText() throws {
        let message = try #require(
            WorkerMessage(line: Array("segment\tpath=/memos/a.wav\tstart=1.5\tend=3.25\ttext=call the plumber".utf8)))
        #expect(message.event == "segment")
        #expect(message.path == "/memos/a.wav")
        #expect(message.start == 1.5)
        #expect(message.end == 3.25)
        #expect(message.text == "call the plumber")
        #expect(message.reason == nil)
    }

    /// Whatever a path, a word or a reason holds comes back as it was: tabs, line breaks (a
    /// CR LF pair too, which Swift takes for one Character), backslashes, `=`, any script.
    @Test(arguments: [
        "tab\there", "line\nbreak", "cr\r\nlf", "back\\slash", "\\t is not a tab", "a=b=c", "", "Zoë 東京 🎙️", "trail\\",
    ])
    func anyTextSurvivesTheRoundTrip(text: String) throws {
        let sent = WorkerMessage(event: "failed", fields: ["path": "/m/\(text)", "reason": text])
        #expect(!sent.line.contains("\n") && !sent.line.contains("\r"))
        #expect(sent.line.split(separator: "\t", omittingEmptySubsequences: false).count == 3)
        let read = try #require(WorkerMessage(line: Array(sent.line.utf8)))
        #expect(read == sent)
        #expect(read.reason == text)
    }

    @Test func escapesAreReadAsTheWorkerWritesThem() throws {
        let message = try #require(WorkerMessage(line: Array("done\tpath=a\\tb\\\\c\\nd\\re\tduration=2".utf8)))
        #expect(message.path == "a\tb\\c\nd\re")
        #expect(message.fields["duration"] == "2")
    }

    @Test(arguments: [
        "", "\tpath=a", "key=value", "segment\tpath", "segment\tpath=a\\q", "segment\tpath=ends in a backslash\\",
    ])
    func aLineThatIsNotTheProtocolIsRefused(line: String) {
        #expect(WorkerMessage(line: Array(line.utf8)) == nil)
    }

    @Test func aNumberThatIsNotOneReadsAsMissing() throws {
        let message = try #require(WorkerMessage(line: Array("segment\tstart=soon\tend=".utf8)))
        #expect(message.start == nil)
        #expect(message.end == nil)
    }
}
