import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The known input of every recording test: a 440 Hz sine at half full scale,
/// 48 kHz mono s16le, looped seamlessly into `AudioDevices.stimulusSink`, so
/// whatever the microphone delivers can be checked against `samples` bit for bit.
///
/// One second holds exactly 440 cycles, so repeating `samples` has no seam.
/// A writer thread feeds the samples to `pacat`'s stdin; `pacat` paces them in
/// real time. The sink plays silence while the stimulus is stopped.
package final class Stimulus {
    /// The sample rate of `samples` and of the stimulus sink.
    package static let sampleRate = 48_000
    /// The sine's peak as a fraction of full scale.
    package static let amplitude = 0.5
    /// How far ahead pacat keeps the server's buffer filled, in milliseconds.
    ///
    /// With 20 ms, a busy two-core machine starved pacat into underruns that
    /// put 5 ms of silence into the microphone every second or so; 200 ms
    /// survived both cores saturated. Start-up does not wait for it (the
    /// samples are always at hand) and stopping discards it.
    package static let bufferMilliseconds = 200

    /// The tone's frequency in hertz.
    package static let frequency = 440.0
    /// One second of the tone, `Int16((sin(2π·440·n/48000)·0.5·32767).rounded())`:
    /// the period that repeats.
    package static let period = tone(frequency: frequency)

    /// One second of a sine at `frequency` (a whole number of hertz, so it loops seamlessly)
    /// with a peak of `amplitude` (a fraction of full scale).
    package static func tone(frequency: Double, amplitude: Double = Stimulus.amplitude) -> [Int16] {
        (0..<sampleRate).map { index in
            let phase = 2 * Double.pi * frequency * Double(index) / Double(sampleRate)
            return Int16((sin(phase) * amplitude * 32767).rounded())
        }
    }

    /// The tone's frequency in hertz.
    package let frequency: Double
    /// One second of the tone: the period that repeats (`Stimulus.period` for the fixture's).
    package let samples: [Int16]
    /// The tone's RMS level in dBFS, computed from `samples` (about −9.03 for the fixture's).
    package let rmsDBFS: Double

    private let session: TestSession
    private let server: any AudioServer
    /// The sink the tone plays into.
    private let sink: String
    private var player: ChildProcess?
    private var writerFinished: DispatchSemaphore?

    /// Prepares the tone for `server` in `session`; call `start()` to play it. The fixture's
    /// tone is 440 Hz at half full scale into `AudioDevices.stimulusSink`; tests add others
    /// (`SecondInput`, a call's far side).
    package init(
        session: TestSession, server: any AudioServer, sink: String = AudioDevices.stimulusSink,
        frequency: Double = Stimulus.frequency, amplitude: Double = Stimulus.amplitude
    ) {
        self.session = session
        self.server = server
        self.sink = sink
        self.frequency = frequency
        samples =
            frequency == Self.frequency && amplitude == Self.amplitude
            ? Self.period : Self.tone(frequency: frequency, amplitude: amplitude)
        rmsDBFS = AudioAnalysis.rmsDBFS(AudioAnalysis.normalized(samples))
    }

    /// Prepares `period`, one second of any signal that repeats, for `server` in `session`,
    /// to play into `sink`; `frequency` only names its log.
    package init(session: TestSession, server: any AudioServer, sink: String, period: [Int16], frequency: Double) {
        precondition(period.count == Self.sampleRate, "a period is one second")
        self.session = session
        self.server = server
        self.sink = sink
        self.frequency = frequency
        samples = period
        rmsDBFS = AudioAnalysis.rmsDBFS(AudioAnalysis.normalized(samples))
    }

    /// One second of silence with a click at its start: `length` samples at `amplitude`,
    /// sharp enough to be found to the sample in anything that records it.
    package static func click(length: Int = 4, amplitude: Double = 0.5) -> [Int16] {
        (0..<sampleRate).map { $0 < length ? Int16((amplitude * 32767).rounded()) : 0 }
    }

    deinit {
        stop()
    }

    /// Whether the tone is playing.
    package var isPlaying: Bool { player?.isRunning ?? false }

    /// Starts playing the tone from its first sample, unless it already plays,
    /// and returns once the server has the stream; the first samples reach the
    /// microphone a few tens of milliseconds later.
    package func start(timeout: Duration = .seconds(5)) throws {
        guard !isPlaying else { return }
        stop()
        let pacat = try session.launch(
            "pacat",
            [
                "--playback", "--raw", "--device=\(sink)", "--rate=\(Self.sampleRate)",
                "--channels=1", "--format=s16le", "--latency-msec=\(Self.bufferMilliseconds)",
                "--client-name=voicememo-stimulus",
            ],
            logName: "stimulus-\(Int(frequency))", standardInput: .pipe)
        player = pacat
        writerFinished = startWriter(to: pacat.standardInput!)
        try waitUntil("the stimulus stream plays into \(sink)", timeout: timeout) {
            if let ended = pacat.termination {
                throw FixtureError.exitedEarly(
                    "pacat", termination: ended, log: session.log("stimulus-\(Int(frequency))"))
            }
            return try streamCount() > 0
        }
    }

    /// Stops the tone and, while the server runs, returns once it has dropped
    /// the stream and the microphone has delivered silence, so it delivers
    /// silence from then on.
    package func stop(timeout: Duration = .seconds(5)) {
        guard let pacat = player else { return }
        pacat.terminate()
        // With pacat gone the pipe has no reader, so the writer's next write fails.
        writerFinished?.wait()
        pacat.closeStandardInput()
        player = nil
        writerFinished = nil
        if server.isRunning {
            try? waitUntil("the stimulus stream is gone", timeout: timeout) { try streamCount() == 0 }
            if sink == AudioDevices.stimulusSink { try? flushMicrophone(timeout: timeout) }
        }
    }

    /// Records the microphone until it delivers a graph cycle of silence.
    ///
    /// On PipeWire the microphone (pipewire-pulse 0.3.65 implements
    /// module-remap-source as a loopback) hands the next stream that opens it
    /// the last buffer it captured before it went idle, until wireplumber
    /// suspends it after 3 s: up to 1024 samples of tone captured before
    /// `stop()`. Running it once on silence replaces that buffer. On PulseAudio
    /// the microphone is silent at once, so this takes one 20 ms fragment.
    private func flushMicrophone(timeout: Duration) throws {
        let cycle = 1024
        let recording = try SourceRecording(in: session)
        defer { recording.stop() }
        try waitUntil("\(AudioDevices.microphone) delivers silence", timeout: timeout) {
            let samples = recording.samples
            return samples.count >= 2 * cycle && samples.suffix(cycle).allSatisfy { $0 == 0 }
        }
    }

    /// Writes `samples` to `descriptor` over and over until the reader goes away.
    private func startWriter(to descriptor: Int32) -> DispatchSemaphore {
        let finished = DispatchSemaphore(value: 0)
        let bytes = samples.map { $0.littleEndian }
        let thread = Thread {
            // A write to the dead pacat must fail with EPIPE, not kill the test runner.
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while true {
                    let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        break
                    }
                    offset = (offset + written) % buffer.count
                }
            }
            finished.signal()
        }
        thread.name = "voicememo-stimulus-writer"
        thread.start()
        return finished
    }

    /// How many streams play into the stimulus sink.
    private func streamCount() throws -> Int {
        guard let sinkIndex = try server.shortListing("sinks").first(where: { $0.count > 1 && $0[1] == sink })?.first
        else { return 0 }
        return try server.shortListing("sink-inputs").filter { $0.count > 1 && $0[1] == sinkIndex }.count
    }
}
