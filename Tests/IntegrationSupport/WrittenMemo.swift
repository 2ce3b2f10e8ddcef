import Bus
import Foundation
import SoundFile
import VoiceMemoContract
import VoiceMemoCore

extension VoiceMemoProxy {
    /// Writes `samples` (48 kHz mono) as a memo file `name` of `format` into `session`'s memo
    /// directory, tagged with `title` and `date`; written aside and moved in, so the library
    /// reads it whole; `retag`, given the file's path aside, may tag it as another program
    /// would first. Returns its object once announced (after this call, not before).
    package func addMemo(
        _ samples: [Int16], named name: String, in session: TestSession, format: AudioFormat = .wav,
        title: String? = nil, date: String = "2026-12-03", timeout: Duration = .seconds(5),
        retag: ((String) throws -> Void)? = nil
    ) throws -> ObjectPath {
        let aside = session.root.appendingPathComponent(name)
        var request = RecordingRequest(defaults: RecorderDefaults())
        (request.format, request.sampleRate, request.channels, request.quality) = (format, 48_000, 1, .medium)
        let writer = try SoundFileWriter(path: aside.path, request: request, tags: MemoTags(title: title, date: date))
        try samples.withUnsafeBytes { try writer.write($0, frameCount: samples.count) }
        try writer.close()
        try retag?(aside.path)
        let mark = try markSignals()
        try FileManager.default.createDirectory(at: session.memoDirectory, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: aside, to: session.memoDirectory.appendingPathComponent(name))
        let memo = Contract.memoPath(id: MemoNaming.memoID(forFileName: name))
        try waitForSignal("InterfacesAdded", timeout: timeout, after: mark) { $0.arguments.first?.objectPath == memo }
        return memo
    }
}
