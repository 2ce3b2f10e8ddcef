/// One memo's peaks as stored in the peaks cache: a small binary record that names the
/// version of the file it was computed from (size and modification time, as the library
/// cache tells a changed file), so a changed memo is decoded again.
///
/// Layout, little-endian: `VMPK`, version (UInt32), size (UInt64), modified (Int64),
/// frame count (UInt64), frames per bin (UInt64), bin count (UInt32), bins (UInt16 each):
/// 44 bytes and at most 8 KiB of bins.
public struct PeakCacheRecord: Equatable, Sendable {
    /// The memo file's size in bytes when the peaks were computed.
    public var size: UInt64
    /// Its modification time then, Unix microseconds.
    public var modified: Int64
    public var bins: PeakBins

    static let magic: [UInt8] = Array("VMPK".utf8)
    static let version: UInt32 = 1
    static let headerSize = 44

    public init(size: UInt64, modified: Int64, bins: PeakBins) {
        self.size = size
        self.modified = modified
        self.bins = bins
    }

    /// Whether the record was computed from this version of the file.
    public func matches(size: UInt64, modified: Int64) -> Bool {
        self.size == size && self.modified == modified
    }

    /// The record as bytes.
    public var encoded: [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerSize + 2 * bins.values.count)
        func append<Value: FixedWidthInteger>(_ value: Value) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(Self.version)
        append(size)
        append(modified)
        append(UInt64(bins.frameCount))
        append(UInt64(bins.framesPerBin))
        append(UInt32(bins.values.count))
        for value in bins.values { append(value) }
        return bytes
    }

    /// Reads a record; nil for anything but a whole record of this version (a cache entry
    /// that does not read is computed again, never trusted).
    public init?(decoding bytes: [UInt8]) {
        guard let record = bytes.withUnsafeBytes({ Self(decoding: $0) }) else { return nil }
        self = record
    }

    /// As `init(decoding:)`, from raw bytes (a read buffer, without copying it first).
    public init?(decoding bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.headerSize, bytes.prefix(4).elementsEqual(Self.magic) else { return nil }
        func read<Value: FixedWidthInteger>(_: Value.Type, at offset: Int) -> Value {
            Value(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Value.self))
        }
        guard read(UInt32.self, at: 4) == Self.version else { return nil }
        let frameCount = read(UInt64.self, at: 24)
        let framesPerBin = read(UInt64.self, at: 32)
        let count = read(UInt32.self, at: 40)
        guard count <= PeakBins.maximumCount, frameCount <= UInt64(Int.max / PeakBins.maximumCount),
            (1...UInt64(Int.max)).contains(framesPerBin), bytes.count == Self.headerSize + 2 * Int(count)
        else { return nil }
        // Read at once, bin by bin: this runs for every memo a panel draws.
        let values = [UInt16](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            for index in 0..<Int(count) { buffer[index] = read(UInt16.self, at: Self.headerSize + 2 * index) }
            initialized = Int(count)
        }
        self.init(
            size: read(UInt64.self, at: 8), modified: read(Int64.self, at: 16),
            bins: PeakBins(frameCount: Int(frameCount), framesPerBin: Int(framesPerBin), values: values))
    }
}
