/// The rules every way in (an option, a property write, the CLI) checks values against, so
/// they all accept and refuse the same things with the same words.
public enum Validation {
    /// The contract's sample-rate range.
    public static let sampleRates: ClosedRange<UInt32> = 8000...192000
    /// The contract's channel counts.
    public static let channelCounts: ClosedRange<UInt32> = 1...2
    /// Longest title kept; longer ones are refused rather than silently cut.
    public static let maximumTitleLength = 200
    /// Longest source name accepted (PulseAudio's own names are far shorter).
    public static let maximumSourceLength = 512
    /// Linux's PATH_MAX: a longer path cannot be opened.
    public static let maximumPathLength = 4096

    public static func format(_ name: String, key: String) throws(RecorderError) -> AudioFormat {
        guard let format = AudioFormat(rawValue: name) else {
            throw .invalidArgument(
                "'\(key)' must be one of \(AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")); got '\(printable(name))'"
            )
        }
        return format
    }

    public static func quality(_ name: String, key: String) throws(RecorderError) -> Quality {
        guard let quality = Quality(rawValue: name) else {
            throw .invalidArgument(
                "'\(key)' must be one of \(Quality.allCases.map(\.rawValue).joined(separator: ", ")); got '\(printable(name))'"
            )
        }
        return quality
    }

    /// A `ChannelLayout` by its name; whether it fits the other options is the request's rule.
    public static func channelLayout(_ name: String, key: String) throws(RecorderError) -> ChannelLayout {
        guard let layout = ChannelLayout(rawValue: name) else {
            throw .invalidArgument(
                "'\(key)' must be one of \(ChannelLayout.allCases.map(\.rawValue).joined(separator: ", ")); got '\(printable(name))'"
            )
        }
        return layout
    }

    public static func sampleRate(_ rate: UInt32, key: String) throws(RecorderError) -> UInt32 {
        guard sampleRates.contains(rate) else {
            throw .invalidArgument(
                "'\(key)' must be between \(sampleRates.lowerBound) and \(sampleRates.upperBound) Hz; got \(rate)")
        }
        return rate
    }

    public static func channels(_ count: UInt32, key: String) throws(RecorderError) -> UInt32 {
        guard channelCounts.contains(count) else {
            throw .invalidArgument("'\(key)' must be 1 (mono) or 2 (stereo); got \(count)")
        }
        return count
    }

    public static func title(_ title: String, key: String) throws(RecorderError) -> String {
        guard title.count <= maximumTitleLength else {
            throw .invalidArgument("'\(key)' is \(title.count) characters long; the limit is \(maximumTitleLength)")
        }
        guard !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("'\(key)' must not contain control characters such as newlines or tabs")
        }
        return title
    }

    public static func source(_ name: String, key: String) throws(RecorderError) -> String {
        guard name.utf8.count <= maximumSourceLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .invalidArgument(
                "'\(key)' must be a source name as `pactl list short sources` prints it, or empty for the default input"
            )
        }
        return name
    }

    /// A speech model as faster-whisper takes it: a name ("tiny.en", "large-v3", or a hub id
    /// such as "Systran/faster-whisper-small"), or the absolute path of a directory holding
    /// one. Nothing is looked up here: whether the model exists is the engine's to say.
    public static func transcriptionModel(_ model: String, key: String) throws(RecorderError) -> String {
        if model.hasPrefix("/") {
            guard model.utf8.count <= maximumPathLength,
                !model.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw .invalidArgument(
                    "'\(key)' must be a directory's absolute path of at most \(maximumPathLength) bytes")
            }
            return model
        }
        let parts = model.split(separator: "/", omittingEmptySubsequences: false)
        let isName = { (part: Substring) in
            !part.isEmpty && part != "." && part != ".." && part.utf8.count <= 96
                && part.unicodeScalars.allSatisfy {
                    $0.isASCII
                        && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
                }
        }
        guard (1...2).contains(parts.count), parts.allSatisfy(isName) else {
            throw .invalidArgument(
                "'\(key)' must be a model name such as tiny.en, base or Systran/faster-whisper-small, or the absolute path of a model directory"
            )
        }
        return model
    }

    public static func duration(_ seconds: Double, key: String) throws(RecorderError) -> Double {
        guard seconds.isFinite, seconds > 0, seconds <= 7 * 24 * 3600 else {
            throw .invalidArgument(
                "'\(key)' must be a number of seconds greater than 0 and at most a week; got \(seconds)")
        }
        return seconds
    }

    public static func silenceThreshold(_ level: Double, key: String) throws(RecorderError) -> Double {
        guard level.isFinite, (Levels.floor...0).contains(level) else {
            throw .invalidArgument("'\(key)' must be a level in dBFS between -160 and 0; got \(level)")
        }
        return level
    }

    /// How much audio from before the sound a recording that waits for it may keep: it is
    /// held in memory for as long as the recorder waits.
    public static let preRolls: ClosedRange<Double> = 0...5

    public static func preRoll(_ seconds: Double, key: String) throws(RecorderError) -> Double {
        guard seconds.isFinite, preRolls.contains(seconds) else {
            throw .invalidArgument("'\(key)' must be a number of seconds from 0 to 5; got \(seconds)")
        }
        return seconds
    }

    /// How many values `Peaks` returns at most (and at least 1).
    public static let peakCounts: ClosedRange<UInt32> = 1...UInt32(PeakBins.maximumCount)

    public static func peakCount(_ count: UInt32, key: String) throws(RecorderError) -> Int {
        guard peakCounts.contains(count) else {
            throw .invalidArgument(
                "'\(key)' must be from \(peakCounts.lowerBound) to \(peakCounts.upperBound) (values to draw, one per slice of the memo); got \(count)"
            )
        }
        return Int(count)
    }

    /// Longest wait for a lost audio server: a week, like `duration`; 0 gives up at once.
    public static let reconnectTimeouts: ClosedRange<Double> = 0...(7 * 24 * 3600)

    public static func reconnectTimeout(_ seconds: Double, key: String) throws(RecorderError) -> Double {
        guard seconds.isFinite, reconnectTimeouts.contains(seconds) else {
            throw .invalidArgument("'\(key)' must be a number of seconds from 0 to a week (604800); got \(seconds)")
        }
        return seconds
    }

    /// A start time must not be more than a year away; past times start at once.
    public static func startTime(_ unixSeconds: Int64, now: Int64, key: String) throws(RecorderError) -> Int64 {
        guard unixSeconds <= now + 366 * 24 * 3600 else {
            throw .invalidArgument("'\(key)' is more than a year in the future (\(unixSeconds) Unix seconds)")
        }
        return unixSeconds
    }

    /// Checks that a format can be written at a rate; valid alone but impossible together
    /// is `unsupported`, not `invalidArgument`.
    public static func combination(format: AudioFormat, sampleRate: UInt32) throws(RecorderError) {
        guard let rates = format.supportedSampleRates, !rates.contains(sampleRate) else { return }
        let list = rates.sorted().map(String.init).joined(separator: ", ")
        throw .unsupported(
            "\(format.rawValue) cannot record at \(sampleRate) Hz; it takes \(list) Hz. Pick one of those or use flac or wav."
        )
    }

    /// Keeps hostile input out of messages: control characters are escaped and length capped.
    static func printable(_ text: String) -> String {
        let escaped = text.unicodeScalars.prefix(64).map { scalar in
            scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }.joined()
        return text.unicodeScalars.count > 64 ? escaped + "…" : escaped
    }
}

extension Validation {
    /// The most memos one `ListMemos` call returns: a reply stays well under a megabyte.
    public static let maximumPageSize: UInt32 = 1000

    public static func pageSize(_ count: UInt32, key: String) throws(RecorderError) -> Int {
        guard count <= maximumPageSize else {
            throw .invalidArgument(
                "'\(key)' is at most \(maximumPageSize) memos per call; got \(count) (ask again from the next offset)")
        }
        return Int(count)
    }

    /// A listing order by name; the empty string is the default, newest first.
    public static func memoOrder(_ name: String, key: String) throws(RecorderError) -> MemoCatalog.Order {
        if name.isEmpty { return .newest }
        guard let order = MemoCatalog.Order(rawValue: name) else {
            throw .invalidArgument(
                "'\(key)' must be one of \(MemoCatalog.Order.allCases.map(\.rawValue).joined(separator: ", ")) or empty (newest); got '\(printable(name))'"
            )
        }
        return order
    }

    /// Longest search text: no title or file name is nearly this long, so a longer one
    /// could find nothing, and folding it would be work for no answer.
    public static let maximumSearchLength = 1024

    public static func searchText(_ text: String, key: String) throws(RecorderError) -> String {
        guard text.utf8.count <= maximumSearchLength else {
            throw .invalidArgument(
                "'\(key)' is \(text.utf8.count) bytes; at most \(maximumSearchLength) are searched (titles are far shorter)"
            )
        }
        return text
    }
}

extension Validation {
    /// Playback speeds (`PlaybackRate`, MPRIS `Rate`): libsonic keeps the pitch anywhere, but
    /// speech slower than half or faster than double its pace is hard to follow.
    public static let playbackRates: ClosedRange<Double> = 0.5...2

    public static func playbackRate(_ rate: Double, key: String) throws(RecorderError) -> Double {
        guard rate.isFinite, playbackRates.contains(rate) else {
            throw .invalidArgument(
                "'\(key)' must be a speed from 0.5 (half) to 2.0 (double), 1.0 as recorded; got \(rate)")
        }
        return rate
    }
}
