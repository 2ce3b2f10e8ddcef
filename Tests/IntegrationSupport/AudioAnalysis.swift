import Foundation

/// Pure measurements of recorded audio, so tests can assert what a recording
/// sounds like (level, pitch) and whether it is a bit-exact copy of the stimulus.
package enum AudioAnalysis {
    /// The root-mean-square level of `samples` in dBFS, where full scale is 1.0:
    /// a sine of amplitude 0.5 measures about −9.03 dBFS, silence −infinity.
    package static func rmsDBFS(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return -.infinity }
        let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return 10 * log10(energy / Double(samples.count))
    }

    /// Converts signed 16-bit samples to floats where −32768 maps to −1.0.
    package static func normalized(_ samples: [Int16]) -> [Float] {
        samples.map { Float($0) / 32768 }
    }

    /// The frequency in hertz of the strongest spectral peak in `samples`.
    ///
    /// Uses the longest power-of-two prefix, Hann-windowed, and refines the peak
    /// bin by fitting a parabola to the log magnitudes around it; for a one
    /// second tone the error is far below 0.1 % at any rate from 8 to 192 kHz.
    /// Returns 0 for fewer than four samples.
    package static func dominantFrequency(_ samples: [Float], sampleRate: Int) -> Double {
        guard samples.count >= 4 else { return 0 }
        var length = 1
        while length * 2 <= samples.count { length *= 2 }
        var real = (0..<length).map { index in
            Double(samples[index]) * (0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(length)))
        }
        var imaginary = [Double](repeating: 0, count: length)
        fourierTransform(real: &real, imaginary: &imaginary)

        let magnitudes = (0...length / 2).map { (real[$0] * real[$0] + imaginary[$0] * imaginary[$0]).squareRoot() }
        let peak = (1..<magnitudes.count).max { magnitudes[$0] < magnitudes[$1] } ?? 0
        var offset = 0.0
        if peak > 0, peak < magnitudes.count - 1, magnitudes[peak - 1] > 0, magnitudes[peak + 1] > 0 {
            let (left, center, right) = (log(magnitudes[peak - 1]), log(magnitudes[peak]), log(magnitudes[peak + 1]))
            offset = 0.5 * (left - right) / (left - 2 * center + right)
        }
        return (Double(peak) + offset) * Double(sampleRate) / Double(length)
    }

    /// The length of the longest stretch of `recorded` that equals the periodic
    /// stimulus `period` sample for sample, at whatever phase it lines up.
    ///
    /// Leading silence, a fade-in or a glitch simply end one stretch: the search
    /// looks up each 32-sample window of `recorded` among the windows of
    /// `period`, follows every alignment it finds as far as it matches exactly,
    /// and resumes after the longest. Stretches shorter than one window count as 0.
    package static func alignedExactRun(recorded: [Int16], period: [Int16]) -> Int {
        alignedExactRuns(recorded: recorded, period: period).map(\.count).max() ?? 0
    }

    /// Every stretch `alignedExactRun` finds, in order, as ranges of `recorded`.
    package static func alignedExactRuns(recorded: [Int16], period: [Int16]) -> [Range<Int>] {
        let window = 32
        guard period.count >= window, recorded.count >= window else { return [] }
        var offsetsByWindow: [Int: [Int]] = [:]
        for offset in period.indices {
            offsetsByWindow[windowHash(period, at: offset), default: []].append(offset)
        }

        var runs: [Range<Int>] = []
        var start = 0
        while start + window <= recorded.count {
            var longestHere = 0
            for offset in offsetsByWindow[windowHash(recorded, at: start)] ?? [] {
                var length = 0
                while start + length < recorded.count,
                    recorded[start + length] == period[(offset + length) % period.count]
                {
                    length += 1
                }
                longestHere = max(longestHere, length)
            }
            if longestHere >= window {
                runs.append(start..<start + longestHere)
                start += longestHere
            } else {
                start += 1
            }
        }
        return runs
    }

    /// The samples of `recorded` that equal the stimulus in the longest chain of exact
    /// stretches joined only by digital silence. Where the stimulus itself drops out (a
    /// loaded machine can starve its player for a graph cycle), the recording goes silent
    /// and the tone resumes at a new phase; that is the source's gap, not the recorder's.
    /// A lost, repeated or altered sample anywhere else still ends the chain.
    package static func exactSamplesAcrossSourceDropouts(recorded: [Int16], period: [Int16]) -> Int {
        var longest = 0
        var chain = 0
        var previousEnd: Int?
        for run in alignedExactRuns(recorded: recorded, period: period) {
            if let end = previousEnd, end < run.lowerBound, recorded[end..<run.lowerBound].allSatisfy({ $0 == 0 }) {
                chain += run.count
            } else {
                chain = run.count
            }
            longest = max(longest, chain)
            previousEnd = run.upperBound
        }
        return longest
    }

    /// A hash of the `32` samples of the periodic sequence `samples` from `start`, wrapping around.
    private static func windowHash(_ samples: [Int16], at start: Int) -> Int {
        var hasher = Hasher()
        for index in start..<start + 32 {
            hasher.combine(samples[index % samples.count])
        }
        return hasher.finalize()
    }

    /// An in-place iterative radix-2 FFT; the count must be a power of two.
    private static func fourierTransform(real: inout [Double], imaginary: inout [Double]) {
        let count = real.count
        var swapIndex = 0
        for index in 1..<count {
            var bit = count >> 1
            while swapIndex & bit != 0 {
                swapIndex ^= bit
                bit >>= 1
            }
            swapIndex |= bit
            if index < swapIndex {
                real.swapAt(index, swapIndex)
                imaginary.swapAt(index, swapIndex)
            }
        }
        var span = 2
        while span <= count {
            let angle = -2 * Double.pi / Double(span)
            for pair in 0..<span / 2 {
                let (twiddleReal, twiddleImaginary) = (cos(angle * Double(pair)), sin(angle * Double(pair)))
                for blockStart in stride(from: 0, to: count, by: span) {
                    let even = blockStart + pair
                    let odd = even + span / 2
                    let oddReal = real[odd] * twiddleReal - imaginary[odd] * twiddleImaginary
                    let oddImaginary = real[odd] * twiddleImaginary + imaginary[odd] * twiddleReal
                    real[odd] = real[even] - oddReal
                    imaginary[odd] = imaginary[even] - oddImaginary
                    real[even] += oddReal
                    imaginary[even] += oddImaginary
                }
            }
            span *= 2
        }
    }
}

extension AudioAnalysis {
    /// Which of `frequencies` each `window`-sample stretch of `samples` holds: the one whose
    /// sine amplitude (Goertzel) is at least `minimumAmplitude` and twice every other's, or
    /// nil (silence, a mix, a cut). Tells apart the tones of two inputs in one recording.
    package static func tones(
        in samples: [Float], frequencies: [Double], sampleRate: Int, window: Int, minimumAmplitude: Double = 0.2
    ) -> [Double?] {
        stride(from: 0, to: samples.count - window + 1, by: window).map { start in
            let stretch = samples[start..<(start + window)]
            let amplitudes = frequencies.map { sineAmplitude(stretch, frequency: $0, sampleRate: sampleRate) }
            guard let best = amplitudes.indices.max(by: { amplitudes[$0] < amplitudes[$1] }),
                amplitudes[best] >= minimumAmplitude,
                amplitudes.indices.allSatisfy({ $0 == best || amplitudes[$0] * 2 <= amplitudes[best] })
            else { return nil }
            return frequencies[best]
        }
    }
    /// The stretches of `samples` that sound (above 0.05 of full scale), joined across gaps
    /// shorter than 50 ms (a sine's zero crossings), in seconds: what a listener hears as
    /// one sound each.
    package static func soundingStretches(_ samples: [Float], sampleRate: Int) -> [(start: Double, end: Double)] {
        var stretches: [(start: Double, end: Double)] = []
        let joinGap = sampleRate / 20
        for index in samples.indices where abs(samples[index]) > 0.05 {
            let time = Double(index) / Double(sampleRate)
            if let last = stretches.last, index - Int(last.end * Double(sampleRate)) <= joinGap {
                stretches[stretches.count - 1].end = time
            } else {
                stretches.append((time, time))
            }
        }
        return stretches
    }

    /// The amplitude of the sine at `frequency` in `samples` (1 for a full-scale sine). Exact
    /// for a sine of a whole number of cycles in `samples`; other such sines add nothing.
    package static func sineAmplitude(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Int) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var previous = 0.0
        var beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return 2 * power.squareRoot() / Double(samples.count)
    }
}
