import AudioContainers
import Foundation
import SoundFile
import VoiceMemoCore

/// A memo written by libsndfile exactly as the daemon writes it, in its own temporary directory.
struct MemoFixture {
    static let date = "2024-05-06T07:08:09Z"
    static let originalTitle = "Original title"

    let directory: String
    let path: String
    let format: AudioFormat

    /// Writes two seconds of a 440 Hz sine (plus an overtone) in `format` at `quality`.
    init(
        _ format: AudioFormat, channels: UInt32 = 1, title: String? = MemoFixture.originalTitle,
        quality: Quality = .medium
    ) throws {
        self.format = format
        directory = NSTemporaryDirectory() + "TagEditorTests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/memo." + format.fileExtension
        var request = RecordingRequest(defaults: RecorderDefaults())
        request.format = format
        request.sampleRate = 48000
        request.channels = channels
        request.quality = quality
        let writer = try SoundFileWriter(path: path, request: request, tags: MemoTags(title: title, date: Self.date))
        let frames = 96000
        var samples = [Int16](repeating: 0, count: frames * Int(channels))
        for frame in 0..<frames {
            let t = Double(frame) / 48000
            let value = 0.4 * sin(2 * .pi * 440 * t) + 0.1 * sin(2 * .pi * 1320 * t)
            for channel in 0..<Int(channels) { samples[frame * Int(channels) + channel] = Int16(value * 32767) }
        }
        try samples.withUnsafeBytes { try writer.write($0, frameCount: frames) }
        try writer.close()
    }

    var container: TagContainer {
        switch format {
        case .wav: .wav
        case .flac: .flac
        case .opus, .vorbis: .ogg
        case .mp3: .mp3
        }
    }

    var bytes: Data { FileManager.default.contents(atPath: path)! }

    /// Every entry of the fixture's directory: only the memo itself should ever be there.
    var directoryEntries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] }

    var mode: Int { (try! FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue }

    func setMode(_ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// What libsndfile decodes from a file: the properties and every sample.
struct Decoded: Equatable {
    let frameCount: Int
    let sampleRate: Int
    let channelCount: Int
    let samples: [Int16]
    let title: String?
    let date: String?

    init(_ path: String) throws {
        let reader = try SoundFileReader(path: path)
        frameCount = reader.frameCount
        sampleRate = reader.sampleRate
        channelCount = reader.channelCount
        title = reader.title
        date = reader.date
        samples = reader.readInt16()
    }
}
