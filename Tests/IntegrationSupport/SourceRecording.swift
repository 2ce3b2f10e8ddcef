import Foundation

/// A recording of a source made with `parecord`, so tests can hear what an
/// audio server delivers (raw s16le, 48 kHz, mono: the stimulus's format, so
/// nothing is resampled and bit-exact comparison stays possible).
package final class SourceRecording {
    /// The source being recorded.
    package let source: String

    private let process: ChildProcess
    private let file: URL
    private let log: URL

    /// Starts recording `source` in `session`.
    package init(from source: String = AudioDevices.microphone, in session: TestSession) throws {
        self.source = source
        let name = "recording-\(UUID().uuidString)"
        file = session.root.appendingPathComponent("\(name).raw")
        log = session.logFile(name)
        process = try ChildProcess(
            "parecord",
            [
                "--raw", "--format=s16le", "--rate=\(Stimulus.sampleRate)", "--channels=1",
                "--device=\(source)", "--latency-msec=20",
            ],
            environment: session.environment,
            standardOutput: .file(file), standardError: .file(log))
        session.processes.register(process)
    }

    deinit {
        stop()
    }

    /// Everything recorded so far.
    package var samples: [Int16] {
        guard let data = try? Data(contentsOf: file) else { return [] }
        return data.withUnsafeBytes { buffer in
            (0..<buffer.count / 2).map { index in
                Int16(littleEndian: buffer.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))
            }
        }
    }

    /// The number of samples recorded so far.
    package var sampleCount: Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
        return (size ?? 0) / 2
    }

    /// Waits until at least `count` samples are recorded and returns the first `count`.
    ///
    /// - Throws: `FixtureError.timedOut` if recording is slower than real time by
    ///   more than `slack`, or `FixtureError.exitedEarly` if parecord dies.
    package func waitForSamples(_ count: Int, slack: Duration = .seconds(5)) throws -> [Int16] {
        let realTime = Duration.seconds(Double(count) / Double(Stimulus.sampleRate))
        try waitUntil("parecord has recorded \(count) samples from \(source)", timeout: realTime + slack) {
            if let ended = process.termination {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw FixtureError.exitedEarly("parecord", termination: ended, log: text)
            }
            return sampleCount >= count
        }
        return Array(samples.prefix(count))
    }

    /// Waits until the source has delivered `seconds` of audio since `start` (a `sampleCount`;
    /// by default, now): a stretch of the input's own time, which a loaded machine cannot
    /// shorten as it can a sleep's, for a recorder under test to have had that audio to handle.
    package func waitUntilDelivered(_ seconds: Double, since start: Int? = nil) throws {
        _ = try waitForSamples((start ?? sampleCount) + Int(seconds * Double(Stimulus.sampleRate)))
    }

    /// Stops recording and deletes the recording.
    package func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: file)
    }

    /// Records `count` samples of `source` and stops.
    package static func record(_ count: Int, from source: String = AudioDevices.microphone, in session: TestSession)
        throws
        -> [Int16]
    {
        let recording = try SourceRecording(from: source, in: session)
        defer { recording.stop() }
        return try recording.waitForSamples(count)
    }
}
