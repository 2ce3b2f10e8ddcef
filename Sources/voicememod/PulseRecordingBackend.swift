import PulseAudio
import SoundFile
import VoiceMemoCore

/// Records from the PulseAudio (or pipewire-pulse) server into libsndfile files.
struct PulseRecordingBackend: RecordingBackend {
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
                streamName: request.title ?? "Voice memo")
        } catch {
            throw .audioServer("cannot record from the audio server (\(error)). Is PulseAudio or pipewire-pulse running?")
        }
    }
}
