public import VoiceMemoCore

/// An audio file opened for reading: its properties, tags and samples.
public final class SoundFileReader {
    private let handle: OpaquePointer
    public let path: String
    public let sampleRate: Int
    public let channelCount: Int
    /// Frames in the file as its header or stream says.
    public let frameCount: Int
    /// The memo format the file is in, when it is one voicememo writes.
    public let format: AudioFormat?
    /// libsndfile's code for the container and encoding, for copies in the same kind.
    let formatCode: Int32

    public init(path: String) throws(SoundFileError) {
        let file = try Sndfile.open(path)
        handle = file.handle
        self.path = path
        sampleRate = file.sampleRate
        channelCount = file.channelCount
        frameCount = file.frameCount
        format = file.format
        formatCode = file.formatCode
    }

    /// libsndfile's handle, for the module's copies.
    var openHandle: OpaquePointer { handle }

    deinit {
        try? Sndfile.close(handle, path: path)
    }

    /// Duration in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }

    /// The title tag, if the file has one.
    public var title: String? { Sndfile.string(handle, Sndfile.titleTag) }

    /// The date tag, if the file has one.
    public var date: String? { Sndfile.string(handle, Sndfile.dateTag) }

    /// Reads up to `frameCount` frames into `buffer`; 0 at the end. A decoder error (a
    /// corrupt frame, a truncated stream) throws with libsndfile's explanation.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount: Int) throws(SoundFileError) -> Int {
        precondition(buffer.count >= frameCount * channelCount, "buffer too small for \(frameCount) frames")
        return try Sndfile.read(handle, into: buffer.baseAddress, frames: frameCount, path: path)
    }

    /// Moves the read position to `frame` frames from the start.
    public func seek(toFrame frame: Int) throws(SoundFileError) {
        try Sndfile.seek(handle, toFrame: frame, path: path)
    }

    /// The peak absolute sample, over all channels, of each `framesPerBlock` frames from the
    /// read position to the end (the last block may be shorter).
    public func blockPeaks(framesPerBlock: Int) throws(SoundFileError) -> [Float] {
        precondition(framesPerBlock > 0)
        var peaks: [Float] = []
        peaks.reserveCapacity(max(0, frameCount / framesPerBlock + 1))
        let blocksPerRead = max(1, 65536 / framesPerBlock)
        var buffer = [Float](repeating: 0, count: blocksPerRead * framesPerBlock * max(channelCount, 1))
        while true {
            let frames = try buffer.withUnsafeMutableBufferPointer { (samples) throws(SoundFileError) in
                try read(into: samples, frameCount: blocksPerRead * framesPerBlock)
            }
            guard frames > 0 else { return peaks }
            let samplesPerBlock = framesPerBlock * channelCount
            for start in stride(from: 0, to: frames * channelCount, by: samplesPerBlock) {
                let end = min(start + samplesPerBlock, frames * channelCount)
                var peak: Float = 0
                for index in start..<end { peak = max(peak, abs(buffer[index])) }
                peaks.append(peak)
            }
        }
    }

    /// Every remaining frame, interleaved, full scale ±1.
    public func readFloats() -> [Float] {
        readAll { Sndfile.read(handle, into: $0, frames: $1) }
    }

    /// Every remaining frame, interleaved, as 16-bit integers.
    public func readInt16() -> [Int16] {
        readAll { Sndfile.read(handle, into: $0, frames: $1) }
    }

    /// Reads in chunks until the end: some decoders report no length up front.
    private func readAll<Sample: Numeric>(_ read: (UnsafeMutablePointer<Sample>, Int) -> Int) -> [Sample] {
        let chunkFrames = 65536
        var samples: [Sample] = []
        var chunk = [Sample](repeating: 0, count: chunkFrames * max(channelCount, 1))
        while true {
            let frames = chunk.withUnsafeMutableBufferPointer { read($0.baseAddress!, chunkFrames) }
            guard frames > 0 else { break }
            samples.append(contentsOf: chunk[0..<(frames * channelCount)])
        }
        return samples
    }
}
