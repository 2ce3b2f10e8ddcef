import Dispatch
import SoundFile
import VoiceMemoCore

#if canImport(Glibc)
    import Glibc
#endif

/// Answers each memo's `Peaks(count)`: from the peaks cache when the memo file is the one
/// the peaks were computed from, otherwise by decoding the file once (at the base
/// resolution every count is derived from) and caching the result.
///
/// A cached answer (a `stat` and one read of at most 8 KiB) is given at once on the daemon's
/// queue: a panel drawing a whole library asks thousands. Decoding a long memo takes a
/// while, so it runs on a serial queue of its own and the answer follows on the daemon's
/// queue. Serial, and checking the cache again first: two calls for a memo not yet cached
/// decode it once.
package final class MemoPeaksService: Sendable {
    private let cache: PeakCache
    private let work = DispatchQueue(label: "voicememod.peaks")
    private let queue: DispatchQueue
    package init(cacheDirectory: String, queue: DispatchQueue) {
        cache = PeakCache(directory: cacheDirectory)
        self.queue = queue
    }

    /// `count` peaks of memo `id`, whose file is at `path`; `completion` runs on the daemon's queue.
    func peaks(
        id: String, path: String, count: Int, completion: @escaping (Result<[Double], RecorderError>) -> Void
    ) {
        dispatchPrecondition(condition: .onQueue(queue))
        do throws(RecorderError) {
            if let bins = try cachedBins(id: id, path: path).bins {
                return completion(.success(bins.peaks(count: count)))
            }
        } catch {
            return completion(.failure(error))
        }
        let completion = QueueBound(completion, to: queue)
        work.async { [self] in
            let result = Result { () throws(RecorderError) in try bins(id: id, path: path).peaks(count: count) }
            queue.async { completion.value(result) }
        }
    }

    /// `count` peaks of the memo being recorded into `path`: what the file holds so far
    /// (the recorder brings it up to date on disk every second), decoded every time and
    /// never cached, since it grows. A file with no audio readable yet (a scheduled memo,
    /// or the first second of one) is silence so far: all zeros.
    func peaksSoFar(
        id: String, path: String, count: Int, completion: @escaping (Result<[Double], RecorderError>) -> Void
    ) {
        let completion = QueueBound(completion, to: queue)
        work.async { [self] in
            let result = Result { () throws(RecorderError) in
                let bins = (try? Self.decode(path)) ?? PeakBins(frameCount: 0, framesPerBin: 1, values: [])
                // Debug lines: a test tells a cached answer from a decode by them.
                Log.debug("peaks computed for \(id) from the file being recorded")
                return bins.peaks(count: count)
            }
            queue.async { completion.value(result) }
        }
    }

    /// Forgets the peaks of a memo that left the library.
    func forget(id: String) {
        work.async { [cache] in cache.remove(id: id) }
    }

    /// Drops cached peaks of memos no longer in the library.
    func keepOnly(ids: Set<String>) {
        work.async { [cache] in cache.removeAll(except: ids) }
    }

    /// The cached bins of the file as it is now, if any, and the file's size and mtime.
    private func cachedBins(id: String, path: String) throws(RecorderError) -> (
        bins: PeakBins?, size: UInt64, modified: Int64
    ) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .noSuchMemo("memo \(id) no longer exists (its file \(path) is gone)")
        }
        let size = UInt64(info.st_size)
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000 + Int64(info.st_mtim.tv_nsec) / 1000
        let record = cache.record(for: id).flatMap { $0.matches(size: size, modified: modified) ? $0 : nil }
        return (record?.bins, size, modified)
    }

    /// On the peaks queue: the cached bins, or the file decoded and cached.
    private func bins(id: String, path: String) throws(RecorderError) -> PeakBins {
        let (cached, size, modified) = try cachedBins(id: id, path: path)
        if let cached { return cached }
        let bins = try Self.decode(path)
        Log.debug("peaks computed for \(id) from file")
        cache.save(PeakCacheRecord(size: size, modified: modified, bins: bins), for: id)
        return bins
    }

    /// Reads the whole file at `path`. A decoder error part way keeps what came before it
    /// (as playback would play it); one before any audio is a failure.
    static func decode(_ path: String) throws(RecorderError) -> PeakBins {
        let reader: SoundFileReader
        do {
            reader = try SoundFileReader(path: path)
        } catch {
            throw .storage("cannot read \(path) to draw its waveform: \(error.message)")
        }
        let channels = max(reader.channelCount, 1)
        var accumulator = PeakAccumulator(channels: channels, expectedFrameCount: reader.frameCount)
        let chunkFrames = 16384
        var buffer = [Float](repeating: 0, count: chunkFrames * channels)
        var framesRead = 0
        while true {
            do {
                let frames = try buffer.withUnsafeMutableBufferPointer { (samples) throws(SoundFileError) in
                    let frames = try reader.read(into: samples, frameCount: chunkFrames)
                    accumulator.add(UnsafeBufferPointer(samples), frameCount: frames)
                    return frames
                }
                guard frames > 0 else { break }
                framesRead += frames
            } catch {
                guard framesRead > 0 else {
                    throw .storage("cannot decode \(path) to draw its waveform: \(error.message)")
                }
                break
            }
        }
        return accumulator.result
    }
}
