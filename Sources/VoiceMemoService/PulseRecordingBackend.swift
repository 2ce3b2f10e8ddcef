import PulseAudio
import SoundFile
import SpeexDSP
import VoiceMemoCore

/// Records from the PulseAudio (or pipewire-pulse) server into libsndfile files.
package struct PulseRecordingBackend: RecordingBackend {
    /// The default input as the daemon's server monitor last saw it (the stream's real
    /// source, if another, shows in the monitor's next snapshot).
    var knownDefaultSource: @Sendable () -> String? = { nil }
    /// The default output as the server monitor last saw it.
    var knownDefaultOutput: @Sendable () -> OutputDevice? = { nil }
    /// How the server's streams are best timed, as the server monitor last saw it (unknown:
    /// by their deliveries, which serve on either server, if less closely on PulseAudio).
    var knownCaptureTiming: @Sendable () -> CaptureTiming? = { nil }

    /// A backend that asks the server monitor's last snapshot before asking the server.
    package init(
        knownDefaultSource: @escaping @Sendable () -> String?,
        knownDefaultOutput: @escaping @Sendable () -> OutputDevice?,
        knownCaptureTiming: @escaping @Sendable () -> CaptureTiming?
    ) {
        self.knownDefaultSource = knownDefaultSource
        self.knownDefaultOutput = knownDefaultOutput
        self.knownCaptureTiming = knownCaptureTiming
    }

    package func makeFileSink(path: String, request: RecordingRequest, tags: MemoTags) throws(RecorderError)
        -> AudioFileSink
    {
        do {
            return try SoundFileWriter(path: path, request: request, tags: tags)
        } catch {
            throw .storage("cannot create \(path): \(error.message)")
        }
    }

    package func makeVoiceProcessor(_ processing: VoiceProcessing, sampleRate: UInt32, framesPerRead: Int)
        throws(RecorderError) -> VoiceChannelProcessor
    {
        try VoicePreprocessor(processing, sampleRate: sampleRate, framesPerRead: framesPerRead)
    }

    package func openCapture(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture {
        do {
            return try CaptureStream(
                source: request.source, sampleRate: request.sampleRate, channels: request.channels,
                sampleType: request.format.sampleType(for: request.quality), framesPerRead: framesPerRead,
                streamName: request.title ?? "Voice memo", knownDefault: knownDefaultSource(),
                timing: knownCaptureTiming() ?? .deliveries)
        } catch {
            throw .audioServer(
                "cannot record from the audio server (\(error)). Is PulseAudio or pipewire-pulse running?")
        }
    }

    package func openSystemAudio(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture {
        let output: OutputDevice?
        if let known = knownDefaultOutput() {
            output = known
        } else {
            do {
                output = try ServerInfo.defaultOutput()
            } catch {
                throw .audioServer(
                    "cannot ask the audio server for its output (\(error)). Is PulseAudio or pipewire-pulse running?")
            }
        }
        guard let output else {
            throw .audioServer("recording system audio needs an output device, and the audio server has none")
        }
        guard let monitor = output.monitorSource else {
            throw .audioServer("the output '\(output.sink)' has no monitor to record system audio from")
        }
        do {
            return try CaptureStream(
                source: monitor, sampleRate: request.sampleRate, channels: request.channels,
                sampleType: request.format.sampleType(for: request.quality), framesPerRead: framesPerRead,
                streamName: (request.title ?? "Voice memo") + CaptureStream.systemAudioSuffix,
                reportedName: output.sink,
                timing: knownCaptureTiming() ?? .deliveries)
        } catch {
            throw .audioServer("cannot record the system audio of the output '\(output.sink)' (\(error))")
        }
    }
}
