import Bus
import FoundationEssentials
import VoiceMemoContract
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// A memo as `ListMemos` describes it.
struct MemoListing: Codable {
    var id: String
    var title: String
    var created: Int64
    var duration: Double
    var format: String
    var sampleRate: UInt32
    var channels: UInt32
    var size: UInt64
    var path: String

    /// The memo from its `org.example.VoiceMemo.Memo` properties.
    init(_ properties: [String: BusValue]) {
        id = properties[MemoMember.id]?.string ?? ""
        title = properties[MemoMember.title]?.string ?? ""
        created = properties[MemoMember.created]?.int64 ?? 0
        duration = properties[MemoMember.duration]?.double ?? 0
        format = properties[MemoMember.format]?.string ?? ""
        sampleRate = properties[MemoMember.sampleRate]?.uint32 ?? 0
        channels = properties[MemoMember.channels]?.uint32 ?? 0
        size = properties[MemoMember.size]?.uint64 ?? 0
        path = properties[MemoMember.path]?.string ?? ""
    }
}

extension RecorderClient {
    /// Up to `count` memos from the `offset`-th, newest first: one `ListMemos` call.
    func memos(from offset: Int, count: UInt32) throws(BusError) -> [MemoListing] {
        let reply = try call(
            RecorderMember.listMemos,
            [.uint32(UInt32(offset)), .uint32(count), .string(MemoCatalog.Order.newest.rawValue)])
        return (reply.first?.array ?? []).compactMap { entry in
            entry.structure.flatMap { $0.count == 2 ? $0[1].stringDictionary : nil }.map(MemoListing.init)
        }
    }

    /// Every memo newest first, a page at a time, each page given to `body` until it says it
    /// has had enough: a long library is never one reply.
    func forEachPage(_ body: ([MemoListing]) -> Bool) throws(BusError) {
        var offset = 0
        while true {
            let page = try memos(from: offset, count: Validation.maximumPageSize)
            guard body(page), page.count == Validation.maximumPageSize else { return }
            offset += page.count
        }
    }

    /// Every memo, newest first.
    func memos() throws(BusError) -> [MemoListing] {
        var memos: [MemoListing] = []
        try forEachPage { page in
            memos += page
            return true
        }
        return memos
    }

    /// The memos whose title or file name holds `text` (as the daemon compares them), newest first.
    func memos(matching text: String) throws(BusError) -> [MemoListing] {
        let found = try call(RecorderMember.findMemos, [.string(text)]).first?.array?.compactMap(\.objectPath) ?? []
        var remaining = Set(found.map { String($0.lastElement) })
        // Pages, not a call per memo: a search can find thousands. They come in the same
        // order, so the pages stop at the oldest memo found.
        var matches: [MemoListing] = []
        if !remaining.isEmpty {
            try forEachPage { page in
                matches += page.filter { remaining.remove($0.id) != nil }
                return !remaining.isEmpty
            }
        }
        return matches
    }

    /// The memo an argument names: `latest`, an id, or a prefix of exactly one id.
    func memo(named argument: String) throws(BusError) -> MemoListing {
        if argument == "latest", let newest = try memos(from: 0, count: 1).first { return newest }
        // A whole id is asked of its object; only a prefix needs the library.
        if ObjectPath.isValidElement(argument),
            let properties = try? properties(at: Contract.memoPath(id: argument), of: Contract.memoInterface),
            !properties.isEmpty
        {
            return MemoListing(properties)
        }
        let memos = try memos()
        if let exact = memos.first(where: { $0.id == argument }) { return exact }
        let matches = memos.filter { $0.id.hasPrefix(argument) }
        guard matches.count == 1 else {
            let reason =
                matches.isEmpty
                ? "no memo has an id starting with '\(argument)'"
                : "'\(argument)' matches \(matches.count) memos; give more of the id"
            throw BusError(ContractError.noSuchMemo.name, reason + " (see 'voicememo list')")
        }
        return matches[0]
    }

    /// Calls a memo's method; its reply.
    @discardableResult
    func callMemo(
        _ memo: MemoListing, _ member: BusMethodDeclaration, _ arguments: [BusValue] = []
    ) throws(BusError) -> [BusValue] {
        try connection.call(
            destination: Self.busName, path: Contract.memoPath(id: memo.id),
            interface: Contract.memoInterface, member: member.name, arguments: arguments)
    }

    /// The memo's waveform: `count` peaks, 0…1.
    func peaks(of memo: MemoListing, count: Int) throws(BusError) -> [Double] {
        let reply = try callMemo(memo, MemoMember.peaks, [.uint32(UInt32(count))])
        return reply.first?.array?.compactMap(\.double) ?? []
    }
}

struct List: Subcommand {
    static let name = "list"
    static let abstract = "List memos, newest first; --search lists those whose title, name or words hold TEXT."
    static let usage = """
        list [--search TEXT] [--json]

        --search matches titles, file names and transcripts, case and accents ignored; a
        memo found by what was said in it is followed by the words around the match and
        their time in the memo.
        """
    let json: Bool
    let search: String?

    init(_ words: [String]) throws(UsageError) {
        let arguments = try Arguments(words, valued: ["search"], flags: ["json"])
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        json = arguments.has("json")
        search = arguments.value("search")
    }

    func run(_ client: RecorderClient) throws(BusError) {
        let memos: [MemoListing]
        if let search { memos = try client.memos(matching: search) } else { memos = try client.memos() }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try! encoder.encode(memos), as: UTF8.self))
            return
        }
        // A waveform only for eyes: scripts reading a pipe get the columns they always had.
        let drawsWaveforms = isatty(STDOUT_FILENO) == 1
        for memo in memos {
            let date = Date(timeIntervalSince1970: Double(memo.created) / 1_000_000).formatted(.iso8601)
            let title = memo.title.isEmpty ? "(untitled)" : memo.title
            let waveform = drawsWaveforms ? Self.waveform(of: memo, client) + "  " : ""
            print(
                "\(memo.id)  \(date)  \(Status.clock(memo.duration))  \(memo.format)  \(Self.size(memo.size))  \(waveform)\(title)"
            )
            if let search, let excerpt = Self.excerpt(of: memo, matching: search, client) {
                print("    \(ClockText.text(excerpt.start))  \(excerpt.text)")
            }
        }
    }

    /// Where in its transcript a found memo says `search`, unless its title or file name
    /// already shows why it was found.
    static func excerpt(of memo: MemoListing, matching search: String, _ client: RecorderClient)
        -> Transcript.Excerpt?
    {
        let wanted = SearchText(search)
        let fileName = String(memo.path.split(separator: "/").last ?? "")
        guard !SearchText(memo.title + "\n" + fileName).contains(wanted) else { return nil }
        return (try? client.transcript(of: memo))?.excerpt(matching: wanted)
    }

    /// Blocks in a sparkline of each memo, as wide as a date.
    static let waveformWidth = 16

    /// The memo's sparkline; blank when the daemon cannot draw it (an unreadable file).
    static func waveform(of memo: MemoListing, _ client: RecorderClient) -> String {
        guard let peaks = try? client.peaks(of: memo, count: waveformWidth), peaks.count == waveformWidth else {
            return String(repeating: " ", count: waveformWidth)
        }
        return Sparkline.line(peaks)
    }

    /// A size in the units people read.
    static func size(_ bytes: UInt64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return "\(bytes / 1024) KiB" }
        return "\(bytes / 1024 / 1024) MiB"
    }
}

struct Peaks: MemoCommand {
    static let name = "peaks"
    static let abstract = "Print a memo's waveform: the peak of each equal slice, 0 to 1."
    static let usage = "peaks ID|latest [--count N] [--json]"
    /// Values printed without --count: enough for a terminal-wide plot.
    static let defaultCount = 100
    let memo: String
    let count: Int
    let json: Bool

    init(memo: String, rest: [String]) throws(UsageError) {
        let arguments = try Arguments(rest, valued: ["count"], flags: ["json"])
        if let extra = arguments.positionals.first { throw UsageError("peaks takes one memo; got '\(extra)' too") }
        self.memo = memo
        json = arguments.has("json")
        count = try arguments.value("count").map(Self.count(_:)) ?? Self.defaultCount
    }

    /// `--count`, checked here so a typo is a usage error and not a trip to the daemon.
    static func count(_ text: String) throws(UsageError) -> Int {
        guard let number = UInt32(text) else {
            throw UsageError("--count needs a whole number from 1 to 4096; got '\(text)'")
        }
        do {
            return try Validation.peakCount(number, key: "--count")
        } catch {
            throw UsageError(error.message)
        }
    }

    func run(_ client: RecorderClient) throws(BusError) {
        let peaks = try client.peaks(of: try client.memo(named: memo), count: count)
        if json {
            print(String(decoding: try! JSONEncoder().encode(peaks), as: UTF8.self))
        } else {
            // One per line, so `sort`, `awk` and plotting tools take them as they come.
            // Four decimals: finer than any terminal or plot shows.
            for peak in peaks { print((peak * 10000).rounded() / 10000) }
        }
    }
}

/// A subcommand that acts on one memo named by id, id prefix or `latest`.
protocol MemoCommand: Subcommand {
    init(memo: String, rest: [String]) throws(UsageError)
}

extension MemoCommand {
    init(_ words: [String]) throws(UsageError) {
        // An empty id would be a prefix of every id, so it names no memo.
        guard let memo = words.first, !memo.isEmpty else {
            throw UsageError("\(Self.name) needs a memo id (see 'voicememo list')")
        }
        try self.init(memo: memo, rest: Array(words.dropFirst()))
    }
}

struct Play: MemoCommand {
    static let name = "play"
    static let abstract = "Play a memo on the default output."
    static let usage = """
        play ID|latest [--speed RATE]

        --speed plays RATE times as fast as recorded, from 0.5 to 2, with the pitch kept.
        It sets the daemon's PlaybackRate, which is remembered: later playback, the media
        keys' too, goes on at that speed.
        """
    let memo: String
    /// The playback rate to set first, if given.
    let speed: Double?

    init(memo: String, rest: [String]) throws(UsageError) {
        let arguments = try Arguments(rest, valued: ["speed"], flags: [])
        if let extra = arguments.positionals.first { throw UsageError("play takes one memo; got '\(extra)' too") }
        self.memo = memo
        speed = try arguments.value("speed").map(Self.speed(_:))
    }

    /// `--speed`, checked here as the daemon checks it, so a typo is a usage error.
    static func speed(_ text: String) throws(UsageError) -> Double {
        guard let number = Double(text) else {
            throw UsageError("--speed needs a number from 0.5 to 2; got '\(text)'")
        }
        do {
            return try Validation.playbackRate(number, key: "--speed")
        } catch {
            throw UsageError(error.message)
        }
    }

    func run(_ client: RecorderClient) throws(BusError) {
        // The memo first: a memo that is not there changes no setting.
        let memo = try client.memo(named: memo)
        if let speed { try client.setProperty(RecorderMember.playbackRate, .double(speed)) }
        try client.callMemo(memo, MemoMember.play)
        print(speed.map { "Playing \(memo.id) at speed \($0)" } ?? "Playing \(memo.id)")
    }
}

struct Rename: MemoCommand {
    static let name = "rename"
    static let abstract = "Give a memo a new title (its file name and tags follow)."
    static let usage = "rename ID TITLE"
    let memo: String
    let title: String

    init(memo: String, rest: [String]) throws(UsageError) {
        guard rest.count == 1 else { throw UsageError("rename needs a memo and one title (quote it if it has spaces)") }
        self.memo = memo
        title = rest[0]
    }

    func run(_ client: RecorderClient) throws(BusError) {
        try client.callMemo(try client.memo(named: memo), MemoMember.rename, [.string(title)])
    }
}

struct Trim: Subcommand {
    static let name = "trim"
    static let abstract = "Keep only part of a memo, or cut its silent start and end."
    static let usage = """
        trim ID START END | trim ID --silence

        START and END are seconds (90, 2.5) or a clock (1:30, 1:02:03) from the memo's
        beginning; END may be its length. --silence cuts the silence (below -50 dBFS) at
        both ends, keeping 0.2 s next to the sound. The old version goes to the trash.
        """
    let memo: String
    /// Seconds kept, or nil for --silence.
    let range: (start: Double, end: Double)?

    init(_ words: [String]) throws(UsageError) {
        let arguments = try Arguments(words, valued: [], flags: ["silence"])
        guard let memo = arguments.positionals.first, !memo.isEmpty else {
            throw UsageError("trim needs a memo id (see 'voicememo list')")
        }
        self.memo = memo
        let times = Array(arguments.positionals.dropFirst())
        if arguments.has("silence") {
            guard times.isEmpty else { throw UsageError("trim --silence takes no START or END") }
            range = nil
            return
        }
        guard times.count == 2 else { throw UsageError("trim needs START and END, or --silence") }
        guard let start = ClockText.seconds(from: times[0]), let end = ClockText.seconds(from: times[1]) else {
            throw UsageError("START and END are seconds (90, 2.5) or a clock (1:30); got '\(times[0])' '\(times[1])'")
        }
        guard start < end else { throw UsageError("START (\(times[0])) must come before END (\(times[1]))") }
        range = (start, end)
    }

    func run(_ client: RecorderClient) throws(BusError) {
        let memo = try client.memo(named: memo)
        if let range {
            try client.callMemo(memo, MemoMember.trim, [.double(range.start), .double(range.end)])
        } else {
            try client.callMemo(memo, MemoMember.trimSilence)
        }
        // The call answers nothing; the length tells whether there was anything to cut.
        let properties = try client.properties(at: Contract.memoPath(id: memo.id), of: Contract.memoInterface)
        let duration = properties[MemoMember.duration]?.double ?? memo.duration
        guard duration != memo.duration else { return print("Nothing to trim in \(memo.id)") }
        print(
            "Trimmed \(memo.id) to \(ClockText.text(duration, rounding: .toNearestOrAwayFromZero)); the old version is in the trash"
        )
    }
}

struct Delete: Subcommand {
    static let name = "delete"
    static let abstract = "Move a memo to the trash, or with --permanently delete it."
    static let usage = "delete [--permanently] ID"
    let memo: String
    let isPermanent: Bool

    init(_ words: [String]) throws(UsageError) {
        let arguments = try Arguments(words, valued: [], flags: ["permanently"])
        guard let memo = arguments.positionals.first else {
            throw UsageError("delete needs a memo id (see 'voicememo list')")
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError("delete takes one memo; got '\(arguments.positionals[1])' too")
        }
        self.memo = memo
        isPermanent = arguments.has("permanently")
    }

    func run(_ client: RecorderClient) throws(BusError) {
        let memo = try client.memo(named: memo)
        try client.callMemo(memo, isPermanent ? MemoMember.deletePermanently : MemoMember.delete)
        print(isPermanent ? "Deleted \(memo.id) permanently" : "Moved \(memo.id) to the trash")
    }
}
