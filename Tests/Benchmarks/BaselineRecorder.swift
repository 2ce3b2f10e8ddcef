import Foundation
import IntegrationSupport

/// The baseline every recording figure is compared with: `parecord` recording the
/// fixture's microphone at 48 kHz with 20 ms fragments (voicememod's fragment size),
/// writing `format` itself, or for Opus `parecord --raw` into a FIFO read by `opusenc`.
/// Or, as references, the same job done by the smallest C program on `pa_simple`, and by
/// GNOME Sound Recorder's GStreamer pipeline.
///
/// Its processes are registered with the session, so closing the session stops them.
final class BaselineRecorder {
    /// The file being written.
    let file: URL
    /// The recorder's processes: parecord, and opusenc for Opus.
    let processes: [ChildProcess]

    /// Starts recording; `opusBitrate` (bits/s) matches opusenc to voicememod's Opus.
    init(format: RecordingFormat?, channels: UInt32 = 1, opusBitrate: Int = 48_000, in session: TestSession) throws {
        let name = "baseline-\(UUID().uuidString.prefix(8))"
        let channels = format?.channels ?? channels
        var arguments = [
            "--device=\(AudioDevices.microphone)", "--rate=48000", "--format=s16le", "--channels=\(channels)",
            "--latency-msec=20", "--client-name=voicememo-bench-baseline",
        ]
        var output = ChildProcess.Output.null
        var launched: [ChildProcess] = []
        switch format {
        case .wavStereo, .flacStereo:
            file = session.root.appendingPathComponent("\(name).\(format!.fileExtension)")
            arguments += ["--file-format=\(format!.fileExtension)", file.path]
        case .opusMono:
            file = session.root.appendingPathComponent("\(name).opus")
            let fifo = session.root.appendingPathComponent("\(name).fifo")
            guard mkfifo(fifo.path, 0o600) == 0 else { throw FixtureError.systemCallFailed("mkfifo", errno: errno) }
            let encoder = try ChildProcess(
                "opusenc",
                [
                    "--quiet", "--raw", "--raw-bits=16", "--raw-rate=48000", "--raw-chan=\(channels)",
                    "--bitrate=\(Double(opusBitrate) / 1000)", fifo.path, file.path,
                ],
                environment: session.environment, standardError: .file(session.logFile(name)))
            session.processes.register(encoder)
            launched.append(encoder)
            arguments.append("--raw")
            output = .file(fifo)
        case nil:
            // Raw samples on stdout: the first frame is the first byte of the file.
            file = session.root.appendingPathComponent("\(name).raw")
            arguments.append("--raw")
            output = .file(file)
        }
        let parecord = try ChildProcess(
            "parecord", arguments, environment: session.environment, standardOutput: output,
            standardError: .file(session.logFile(name)))
        session.processes.register(parecord)
        processes = [parecord] + launched
    }

    /// Starts the `pa_simple` reference program (see `ReferenceProgram`) writing `format`
    /// (with `channels`, if given) from `device`.
    init(
        reference program: URL, format: RecordingFormat, channels: UInt32? = nil,
        device: String = AudioDevices.microphone, in session: TestSession
    ) throws {
        let name = "reference-\(UUID().uuidString.prefix(8))"
        file = session.root.appendingPathComponent("\(name).\(format.fileExtension)")
        let recorder = try ChildProcess(
            program.path, [device, format.fileExtension, "\(channels ?? format.channels)", file.path],
            environment: session.environment, standardError: .file(session.logFile(name)))
        session.processes.register(recorder)
        processes = [recorder]
    }

    /// Starts the pipeline GNOME Sound Recorder records through,
    /// `pulsesrc ! audioconvert ! level ! <encoder> ! filesink`, as `gst-launch-1.0` runs it:
    /// what a desktop user would otherwise run. Its encoder is GStreamer's for `format`
    /// (`wavenc`; `flacenc` at its default quality, as Sound Recorder's FLAC profile leaves it).
    init(gstreamer format: RecordingFormat, in session: TestSession) throws {
        let name = "gstreamer-\(UUID().uuidString.prefix(8))"
        file = session.root.appendingPathComponent("\(name).\(format.fileExtension)")
        let encoder = format == .flacStereo ? "flacenc" : "wavenc"
        let pipeline = [
            "pulsesrc", "device=\(AudioDevices.microphone)", "client-name=voicememo-bench-gstreamer", "!",
            "audio/x-raw,rate=48000,channels=\(format.channels)", "!", "audioconvert", "!", "level", "!", encoder, "!",
            "filesink", "location=\(file.path)",
        ]
        let recorder = try ChildProcess(
            "gst-launch-1.0", ["-q"] + pipeline, environment: session.environment,
            standardError: .file(session.logFile(name)))
        session.processes.register(recorder)
        processes = [recorder]
    }

    deinit {
        for process in processes { process.kill() }
    }

    /// The process ids whose CPU time counts as the recorder's.
    var pids: [pid_t] { processes.map(\.pid) }

    /// The size of the file so far, in bytes.
    var fileSize: Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size]) as? Int) ?? 0
    }

    /// Stops parecord (or the reference) with SIGTERM and returns once every process has
    /// exited (opusenc ends at the FIFO's end of file), so the file is finalized.
    func stop(timeout: Duration = .seconds(10)) throws {
        processes[0].send(SIGTERM)
        try waitUntil("the baseline recorder has exited", timeout: timeout, pollingEvery: .milliseconds(1)) {
            processes.allSatisfy { !$0.isRunning }
        }
    }
}
