import Foundation

/// Speech with known words: the five LibriVox clips of Debian's `pocketsphinx-testdata`,
/// read by one speaker, with the reference transcription that ships beside them.
package struct SpeechClip: Sendable {
    /// Where Debian puts the clips and their `transcription` file.
    package static let directory = "/usr/share/pocketsphinx/test/data/librivox"
    /// The clips' sample rate.
    package static let sampleRate = 16_000

    /// The clip's id, its file name without `.wav`.
    package let id: String
    /// The words said, lower case, as the reference gives them.
    package let words: [String]
    /// The clip's samples, 16 kHz mono.
    package let samples: [Int16]

    /// The file the clip is played from.
    package var path: String { Self.directory + "/" + id + ".wav" }

    /// All five, in the reference's order; a missing package is a fixture failure that
    /// names the package, never a skip.
    package static func all() throws -> [SpeechClip] {
        let reference: String
        do {
            reference = try String(contentsOfFile: directory + "/transcription", encoding: .utf8)
        } catch {
            throw FixtureError.startupFailed(
                "the speech clips",
                reason: "\(directory)/transcription is missing: install pocketsphinx-testdata ('make test-deps')",
                log: "")
        }
        return try reference.split(separator: "\n").map { line in
            // "<s> words … </s> (id)"
            guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else {
                throw FixtureError.unexpectedReply("a line of \(directory)/transcription ends with (id): \(line)")
            }
            let id = String(line[line.index(after: open)..<close])
            let words = line[..<open].split(separator: " ").map(String.init).filter { $0 != "<s>" && $0 != "</s>" }
            return SpeechClip(id: id, words: words, samples: try WaveSamples.read(directory + "/" + id + ".wav"))
        }
    }

    /// Where speech starts in the clip, in seconds: the first 10 ms whose RMS level reaches
    /// -35 dBFS (the clips' room noise stays below -50).
    package var speechOnset: Double {
        let window = Self.sampleRate / 100
        for start in stride(from: 0, to: samples.count - window, by: window) {
            let slice = samples[start..<(start + window)].map { Double($0) / 32768 }
            let rms = (slice.reduce(0) { $0 + $1 * $1 } / Double(window)).squareRoot()
            if 20 * log10(max(rms, 1e-9)) >= -35 { return Double(start) / Double(Self.sampleRate) }
        }
        return 0
    }

    /// `samples` at 48 kHz, linearly interpolated: the rate the test's memos are written at.
    package static func upsampled(_ samples: [Int16]) -> [Int16] {
        var result: [Int16] = []
        result.reserveCapacity(samples.count * 3)
        for index in samples.indices {
            let now = Double(samples[index])
            let next = Double(index + 1 < samples.count ? samples[index + 1] : samples[index])
            for step in 0..<3 { result.append(Int16((now + (next - now) * Double(step) / 3).rounded())) }
        }
        return result
    }
}

/// The word error rate of a transcript against a reference, as speech recognition measures
/// it: the word-level edit distance (substitutions, insertions, deletions) over the
/// reference's word count, after both are normalised alike.
package enum WordErrorRate {
    /// Lower case, punctuation dropped, hyphens as spaces.
    package static func words(_ text: String) -> [String] {
        let spaced = text.lowercased().replacingOccurrences(of: "-", with: " ")
        let kept = spaced.unicodeScalars.filter {
            CharacterSet.letters.contains($0) || CharacterSet.decimalDigits.contains($0) || $0 == " " || $0 == "'"
                || $0 == "\n"
        }
        return String(String.UnicodeScalarView(kept)).split(whereSeparator: { $0 == " " || $0 == "\n" })
            .map(String.init)
    }

    /// The word-level edit distance between `reference` and `hypothesis`.
    package static func errors(reference: [String], hypothesis: [String]) -> Int {
        var previous = Array(0...hypothesis.count)
        for (row, word) in reference.enumerated() {
            var current = [row + 1] + Array(repeating: 0, count: hypothesis.count)
            for column in hypothesis.indices {
                let substitution = previous[column] + (word == hypothesis[column] ? 0 : 1)
                current[column + 1] = min(substitution, previous[column + 1] + 1, current[column] + 1)
            }
            previous = current
        }
        return previous[hypothesis.count]
    }
}

/// The 16-bit PCM samples of a plain WAV file (the clips'), read without libsndfile.
enum WaveSamples {
    static func read(_ path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let size = data[(offset + 4)..<(offset + 8)].enumerated().reduce(0) {
                $0 | Int($1.element) << (8 * $1.offset)
            }
            if id == "data" {
                let bytes = data[(offset + 8)..<min(data.count, offset + 8 + size)]
                return stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map {
                    Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
                }
            }
            offset += 8 + size + (size & 1)
        }
        throw FixtureError.unexpectedReply("\(path) is a WAV file with a data chunk")
    }
}

/// The speech engine the tests transcribe with: the virtual environment `make test-deps`
/// builds in the checkout (`make transcription-engine`).
package enum TestTranscriptionEngine {
    package static let directory = Checkout.root.appendingPathComponent(".build/transcription-engine").path

    /// The daemon's environment for it; a missing engine is a fixture failure, never a skip.
    package static func environment() throws -> [String: String] {
        guard FileManager.default.isExecutableFile(atPath: directory + "/bin/python3") else {
            throw FixtureError.startupFailed(
                "the speech engine", reason: "\(directory) holds no virtual environment: 'make test-deps' builds it",
                log: "")
        }
        return ["VOICEMEMO_TRANSCRIPTION_ENGINE": directory]
    }
}
