import Bus
import FoundationEssentials
import VoiceMemoContract
import VoiceMemoCore

/// One `voicememo` subcommand: parsed and validated by `init`, carried out by `run`.
/// `SendableMetatype`: the table of subcommands below is a global of their types.
protocol Subcommand: SendableMetatype {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    init(_ words: [String]) throws(UsageError)
    func run(_ client: RecorderClient) throws(BusError)
}

extension Subcommand {
    static var help: String { "\(abstract)\n\nUsage: voicememo \(usage)" }
}

/// The table of subcommands, in the order `--help` lists them.
let subcommands: [any Subcommand.Type] = [
    Record.self, Stop.self, Pause.self, Resume.self, Toggle.self, Cancel.self, Status.self, Meter.self, Watch.self,
    List.self, Peaks.self, Play.self, Rename.self, Trim.self, Delete.self, Transcribe.self, TranscriptCommand.self,
]

/// A subcommand that takes no arguments and makes one call.
protocol SimpleCommand: Subcommand {
    static var member: BusMethodDeclaration { get }
    init()
}

extension SimpleCommand {
    static var usage: String { name }
    init(_ words: [String]) throws(UsageError) {
        guard words.isEmpty else { throw UsageError("\(Self.name) takes no arguments; got '\(words[0])'") }
        self.init()
    }

    /// Calls the member and prints nothing: success is the exit status.
    func run(_ client: RecorderClient) throws(BusError) { try client.call(Self.member) }
}

struct Record: Subcommand {
    static let name = "record"
    static let abstract = "Start recording a memo (or resume a paused one)."
    static let usage = """
        record [--format opus|flac|wav|vorbis|mp3] [--rate HZ] [--channels 1|2]
                         [--quality min|low|medium|high|max] [--title TEXT] [--source NAME]
                         [--duration SECONDS] [--at +SECONDS|+MINUTESm|HH:MM|UNIX-TIME]
                         [--on-sound [--threshold DBFS] [--pre-roll SECONDS]]
                         [--system-audio [--split]] [--noise-suppression] [--auto-gain]
                         [--transcribe]

        --on-sound waits, listening, until the input reaches --threshold (default -40 dBFS)
        and begins the memo with the --pre-roll seconds before it (default 0.5, at most 5).
        --system-audio records a call: the microphone and what the default output plays,
        mixed; with --split, two channels, the microphone left and the system audio right.
        --noise-suppression takes steady background noise out of the microphone's audio;
        --auto-gain brings a quiet or loud voice to one speech level (the NoiseSuppression
        and AutoGain properties make them the default). --transcribe queues the memo for
        transcription when it ends (the TranscribeNewMemos property makes it the default).
        """
    /// The options `record` has a flag for, in the table's order.
    static let flagged = RecordingOption.all.compactMap { option in option.flag.map { (option, $0) } }
    static let valued = Set(flagged.filter(\.1.takesValue).map(\.1.name))
    static let flags = Set(flagged.filter { !$0.1.takesValue }.map(\.1.name))

    var options: [String: BusValue] = [:]

    init(_ words: [String]) throws(UsageError) {
        let arguments = try Arguments(words, valued: Self.valued, flags: Self.flags)
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        for (option, flag) in Self.flagged {
            guard let word = flag.takesValue ? arguments.value(flag.name) : arguments.has(flag.name) ? "" : nil
            else { continue }
            if let required = flag.requires, !arguments.has(required) {
                throw UsageError("--\(flag.name) goes with --\(required)")
            }
            guard let value = flag.value(for: word).flatMap(BusValue.init) else {
                throw UsageError("--\(flag.name) needs \(flag.expectation); got '\(word)'")
            }
            options[option.key] = value
        }
    }

    /// Whether the memo waits for sound before it begins.
    private var waitsForSound: Bool { options[RecordingOption.startOnSound.key] != nil }

    func run(_ client: RecorderClient) throws(BusError) {
        let reply =
            options.isEmpty
            ? try client.call(RecorderMember.record)
            : try client.call(RecorderMember.recordWithOptions, [.stringDictionary(options)])
        let memo = reply.first?.objectPath?.rawValue ?? ""
        print(waitsForSound ? "Waiting for sound to record \(memo)" : "Recording \(memo)")
    }
}

struct Stop: SimpleCommand {
    static let name = "stop"
    static let abstract = "Finish the open memo and save it."
    static let member = RecorderMember.stop

    func run(_ client: RecorderClient) throws(BusError) {
        let reply = try client.call(Self.member)
        print("Saved \(reply.first?.objectPath?.rawValue ?? "")")
    }
}

struct Pause: SimpleCommand {
    static let name = "pause"
    static let abstract = "Pause the recording; resume appends to the same memo."
    static let member = RecorderMember.pause
}

struct Resume: SimpleCommand {
    static let name = "resume"
    static let abstract = "Resume a paused recording."
    static let member = RecorderMember.resume
}

struct Cancel: SimpleCommand {
    static let name = "cancel"
    static let abstract = "Stop and delete the open memo."
    static let member = RecorderMember.cancel
}

struct Toggle: SimpleCommand {
    static let name = "toggle"
    static let abstract = "Start recording when idle, otherwise stop (for hotkeys)."
    static let member = RecorderMember.toggle

    func run(_ client: RecorderClient) throws(BusError) {
        print(try client.call(Self.member).first?.string ?? "")
    }
}

struct Status: Subcommand {
    static let name = "status"
    static let abstract = "Show what the recorder is doing and its defaults."
    static let usage =
        "status [--json | --format TEMPLATE]  (TEMPLATE fields: {state} {time} {memo} {input} {output} {format})"

    let json: Bool
    let template: String?

    init(_ words: [String]) throws(UsageError) {
        let arguments = try Arguments(words, valued: ["format"], flags: ["json"])
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        json = arguments.has("json")
        template = arguments.value("format")
        if json && template != nil { throw UsageError("--json and --format exclude each other") }
    }

    /// Fills `{field}` placeholders, for polybar-style one-line output.
    static func render(_ template: String, _ report: Report) -> String {
        let fields = [
            "state": report.state, "time": clock(report.time), "memo": report.memo, "input": report.activeSource,
            "output": report.activeOutput, "format": report.format,
        ]
        return fields.reduce(template) { text, field in text.replacing("{\(field.key)}", with: field.value) }
    }

    /// The `--json` shape: stable keys for scripts.
    struct Report: Codable {
        var state: String
        var memo: String
        var time: Double
        var format: String
        var sampleRate: UInt32
        var channels: UInt32
        var quality: String
        var source: String
        var activeSource: String
        /// The sink recorded as system audio, empty when none.
        var activeOutput: String
        /// Whether memos record the system audio unless asked otherwise (`SystemAudio`).
        var systemAudio: Bool
        var directory: String
    }

    func run(_ client: RecorderClient) throws(BusError) {
        let properties = try client.properties()
        let report = Report(
            state: properties[RecorderMember.state]?.string ?? "",
            memo: properties[RecorderMember.currentMemo]?.objectPath?.rawValue ?? "/",
            time: properties[RecorderMember.currentTime]?.double ?? 0,
            format: properties[RecorderMember.format]?.string ?? "",
            sampleRate: properties[RecorderMember.sampleRate]?.uint32 ?? 0,
            channels: properties[RecorderMember.channels]?.uint32 ?? 0,
            quality: properties[RecorderMember.quality]?.string ?? "",
            source: properties[RecorderMember.source]?.string ?? "",
            activeSource: properties[RecorderMember.activeSource]?.string ?? "",
            activeOutput: properties[RecorderMember.activeOutput]?.string ?? "",
            systemAudio: properties[RecorderMember.systemAudio]?.boolean ?? false,
            directory: properties[RecorderMember.directory]?.string ?? "")
        if let template {
            print(Self.render(template, report))
            return
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try! encoder.encode(report), as: UTF8.self))
            return
        }
        let channels = report.channels == 1 ? "mono" : "stereo"
        print("State:     \(report.state)")
        if report.memo != "/" {
            print("Memo:      \(report.memo)")
            print("Time:      \(Self.clock(report.time))")
            print("Input:     \(report.activeSource.isEmpty ? "default input" : report.activeSource)")
            if !report.activeOutput.isEmpty { print("Output:    \(report.activeOutput) (system audio)") }
        }
        let call = report.systemAudio ? ", with system audio" : ""
        print("Defaults:  \(report.format), \(report.sampleRate) Hz, \(channels), quality \(report.quality)\(call)")
        print("Source:    \(report.source.isEmpty ? "follow the default input" : report.source)")
        print("Directory: \(report.directory)")
    }

    /// `HH:MM:SS` for a number of seconds (a value no clock shows, such as NaN, reads as 0).
    static func clock(_ seconds: Double) -> String { ClockText.text(seconds, showsHours: true) }
}
