import PulseAudio
import SoundFile
import VoiceMemoCore

/// Records from the PulseAudio (or pipewire-pulse) server into libsndfile files.
struct PulseRecordingBackend: RecordingBackend {
    /// The default input as the daemon's server monitor last saw it (the stream's real
    /// source, if another, shows in the monitor's next snapshot).
    var knownDefaultSource: @Sendable () -> String? = { nil }

    func makeFileSink(path: String, request: RecordingRequest, tags: MemoTags) throws(RecorderError) -> AudioFileSink {
        do {
            return try SoundFileWriter(path: path, request: request, tags: tags)
        } catch {
            throw .storage("cannot create \(path): \(error.message)")
        }
    }

    func openCapture(request: RecordingRequest, framesPerRead: Int) throws(RecorderError) -> AudioCapture {
        do {
            return try CaptureStream(
                source: request.source, sampleRate: request.sampleRate, channels: request.channels,
                sampleType: request.format.sampleType(for: request.quality), framesPerRead: framesPerRead,
                streamName: request.title ?? "Voice memo", knownDefault: knownDefaultSource())
        } catch {
            throw .audioServer(
                "cannot record from the audio server (\(error)). Is PulseAudio or pipewire-pulse running?")
        }
    }
}
