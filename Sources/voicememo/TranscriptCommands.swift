import Bus
import FoundationEssentials
import VoiceMemoContract
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

extension RecorderClient {
    /// The memo's transcript as `TranscriptSegments` gives it (empty until one is done).
    func transcript(of memo: MemoListing) throws(BusError) -> Transcript {
        let reply = try callMemo(memo, MemoMember.transcriptSegments)
        let segments = (reply.first?.array ?? []).compactMap { entry -> Transcript.Segment? in
            guard let fields = entry.structure, fields.count == 3, let start = fields[0].double,
                let end = fields[1].double, let text = fields[2].string
            else { return nil }
            return Transcript.Segment(start: start, end: end, text: text)
        }
        return Transcript(segments: segments)
    }

    /// The memo's `TranscriptStatus`.
    func transcriptStatus(of memo: MemoListing) throws(BusError) -> String {
        try properties(at: Contract.memoPath(id: memo.id), of: Contract.memoInterface)[MemoMember.transcriptStatus]?
            .string ?? ""
    }
}

struct Transcribe: MemoCommand {
    static let name = "transcribe"
    static let abstract = "Transcribe a memo on this machine, in the background."
    static let usage = """
        transcribe ID|latest [--wait]

        The memo is queued and transcribed at idle priority by the speech engine; nothing
        leaves the machine. --wait waits until it is done and prints the transcript.
        """
    let memo: String
    let waits: Bool

    init(memo: String, rest: [String]) throws(UsageError) {
        let arguments = try Arguments(rest, valued: [], flags: ["wait"])
        if let extra = arguments.positionals.first {
            throw UsageError("transcribe takes one memo; got '\(extra)' too")
        }
        self.memo = memo
        waits = arguments.has("wait")
    }

    func run(_ client: RecorderClient) throws(BusError) {
        let memo = try client.memo(named: memo)
        try client.callMemo(memo, MemoMember.transcribe)
        guard waits else { return print("Queued \(memo.id) for transcription") }
        // A poll, not a signal subscription: a transcription takes seconds to minutes, and a
        // check twice a second costs the daemon nothing worth a match rule.
        while true {
            switch try client.transcriptStatus(of: memo) {
            case TranscriptionStatus.done.rawValue:
                return print(try client.transcript(of: memo).plainText)
            case TranscriptionStatus.failed.rawValue:
                throw BusError(
                    ContractError.storage.name,
                    "the transcription of \(memo.id) failed; the daemon's log says why (journalctl --user -u voicememo)"
                )
            default:
                usleep(500_000)
            }
        }
    }
}

struct TranscriptCommand: MemoCommand {
    static let name = "transcript"
    static let abstract = "Print a memo's transcript, as text or with its times."
    static let usage = """
        transcript ID|latest [--format text|vtt|srt|json]

        text (the default) prints the words; vtt (WebVTT) and srt (SubRip) are subtitles
        with each segment's times; json is an array of {"start", "end", "text"}.
        """
    enum Format: String, CaseIterable {
        case text, vtt, srt, json
    }
    let memo: String
    let format: Format

    init(memo: String, rest: [String]) throws(UsageError) {
        let arguments = try Arguments(rest, valued: ["format"], flags: [])
        if let extra = arguments.positionals.first {
            throw UsageError("transcript takes one memo; got '\(extra)' too")
        }
        self.memo = memo
        let name = arguments.value("format") ?? Format.text.rawValue
        guard let format = Format(rawValue: name) else {
            throw UsageError(
                "--format is one of \(Format.allCases.map(\.rawValue).joined(separator: ", ")); got '\(name)'")
        }
        self.format = format
    }

    func run(_ client: RecorderClient) throws(BusError) {
        let memo = try client.memo(named: memo)
        let status = try client.transcriptStatus(of: memo)
        guard status == TranscriptionStatus.done.rawValue else {
            throw BusError(
                ContractError.notAvailable.name,
                "\(memo.id) has no transcript (its status is \(status)); 'voicememo transcribe \(memo.id)' makes one")
        }
        let transcript = try client.transcript(of: memo)
        switch format {
        case .text: print(transcript.plainText)
        case .vtt: print(transcript.webVTT, terminator: "")
        case .srt: print(transcript.srt, terminator: "")
        case .json: print(transcript.json)
        }
    }
}
