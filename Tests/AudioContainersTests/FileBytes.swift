import Foundation

/// A file's bytes at given offsets, read and changed without loading the whole file: memos
/// past 4 GiB are read and damaged through these.
enum FileBytes {
    /// The first four bytes: the container's magic.
    static func header(_ path: String) throws -> String {
        String(decoding: try read(path, at: 0, count: 4), as: UTF8.self)
    }

    /// `count` bytes at `offset`, fewer at the end.
    static func read(_ path: String, at offset: Int64, count: Int) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }

    /// Overwrites bytes at `offset`, as a header update or a crash leaves them.
    static func patch(_ path: String, at offset: Int64, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: bytes)
    }

    /// Cuts (or sparsely extends) the file to `length` bytes, as a kill mid-write leaves it.
    static func truncate(_ path: String, to length: Int64) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(length))
    }

    static func size(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).int64Value
    }
}
