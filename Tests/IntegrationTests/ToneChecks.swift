import Foundation
import IntegrationSupport
import SoundFile
import XCTest

extension IntegrationTestCase {
    /// The memo files in `directory` (`memos` of them), each checked to hold at least about
    /// `seconds` of the stimulus tone.
    func assertHoldsTone(
        _ directory: URL, seconds: Double, memos: Int = 1, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        // Hidden files are the daemon's own (its recording journal outlives the Stop reply by a moment).
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
            .sorted()
        XCTAssertEqual(names.count, memos, "\(memos) memo(s) in \(directory.path): \(names)", file: file, line: line)
        for name in names {
            let reader = try SoundFileReader(path: directory.appendingPathComponent(name).path)
            XCTAssertGreaterThanOrEqual(reader.duration, seconds * 0.9, "duration of \(name)", file: file, line: line)
            let samples = reader.readFloats()
            // Skip the first 0.1 s (the encoder's pre-roll) and analyse the steady tone.
            let steady = Array(samples.dropFirst(reader.sampleRate / 10 * reader.channelCount))
            let frequency = AudioAnalysis.dominantFrequency(steady, sampleRate: reader.sampleRate)
            XCTAssertEqual(
                frequency, Stimulus.frequency, accuracy: Stimulus.frequency * 0.02, "frequency of \(name)", file: file,
                line: line)
        }
    }
}
