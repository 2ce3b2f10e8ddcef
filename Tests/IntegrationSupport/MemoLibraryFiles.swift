import Foundation

/// Fills a memo directory with many memos named as voicememod names them: a library of
/// years, for the start-up figures and the tests of a large library.
package enum MemoLibraryFiles {
    /// Writes `count` memos into `directory` (created 0700 if needed), one minute apart: each
    /// a copy of `sample` (its extension kept), or a tiny WAV of 10 ms of silence.
    package static func create(_ count: Int, in directory: URL, copying sample: URL? = nil) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let contents = try sample.map { try Data(contentsOf: $0) } ?? tinyWave()
        let fileExtension = sample?.pathExtension ?? "wav"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH.mm.ss"
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        for index in 0..<count {
            let name =
                "\(formatter.string(from: start.addingTimeInterval(Double(index) * 60))) Memo \(index).\(fileExtension)"
            try contents.write(to: directory.appendingPathComponent(name))
        }
    }

    /// A canonical 44-byte-header WAV of 480 zero samples.
    private static func tinyWave() -> Data {
        WaveHeader.pcm16(frames: 480, sampleRate: 48_000) + Data(count: 480 * 2)
    }
}

/// The canonical 44-byte header of a 16-bit mono PCM WAV, for tests that write the samples
/// themselves (large memos a chunk at a time).
package enum WaveHeader {
    package static func pcm16(frames: Int, sampleRate: Int) -> Data {
        let dataBytes = frames * 2
        var data = Data()
        func append(_ text: String) { data.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        append("RIFF")
        append32(36 + dataBytes)
        append("WAVE")
        append("fmt ")
        append32(16)
        append16(1)
        append16(1)
        append32(sampleRate)
        append32(sampleRate * 2)
        append16(2)
        append16(16)
        append("data")
        append32(dataBytes)
        return data
    }
}
