import FoundationEssentials

/// What the library knows of one memo: the values the contract shows for it.
public struct MemoInfo: Codable, Equatable, Sendable {
    /// The stable id (see `MemoNaming.memoID(forFileName:)`).
    public var id: String
    /// The file's name inside the memo directory.
    public var fileName: String
    public var title: String
    public var format: AudioFormat
    /// When the recording started, in Unix microseconds.
    public var created: Int64
    public var duration: Double
    public var sampleRate: UInt32
    public var channels: UInt32
    /// Bytes on disk.
    public var size: UInt64
    /// The file's modification time when it was read, to tell a stale cache entry.
    public var modified: Int64
    /// The transcript the file's tags hold, as WebVTT (`Transcript(webVTT:)`), or nil.
    public var transcript: String?

    public init(
        fileName: String, title: String, format: AudioFormat, created: Int64, duration: Double, sampleRate: UInt32,
        channels: UInt32, size: UInt64, modified: Int64, transcript: String? = nil
    ) {
        self.id = MemoNaming.memoID(forFileName: fileName)
        self.fileName = fileName
        self.title = title
        self.format = format
        self.created = created
        self.duration = duration
        self.sampleRate = sampleRate
        self.channels = channels
        self.size = size
        self.modified = modified
        self.transcript = transcript
    }
}

/// A directory entry as the library sees it before reading the file.
public struct MemoFileStatus: Equatable, Sendable {
    public var fileName: String
    public var size: UInt64
    /// Modification time, Unix microseconds.
    public var modified: Int64

    public init(fileName: String, size: UInt64, modified: Int64) {
        self.fileName = fileName
        self.size = size
        self.modified = modified
    }

    /// Whether `info` was read from this very version of the file.
    public func matches(_ info: MemoInfo) -> Bool {
        info.fileName == fileName && info.size == size && info.modified == modified
    }
}
