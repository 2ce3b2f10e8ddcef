import PulseAudio
import Sonic
import SoundFile
import VoiceMemoCore

/// Plays memos decoded by libsndfile on the PulseAudio (or pipewire-pulse) default output,
/// faster or slower through libsonic.
package struct PulsePlaybackBackend: PlaybackBackend {
    /// A backend; it holds nothing until asked for a source or a stream.
    package init() {}

    package func openSource(path: String) throws(RecorderError) -> AudioFileSource {
        do {
            return DecodingSource(try SoundFileReader(path: path))
        } catch {
            throw .unsupported("cannot decode \(path): \(error.message)")
        }
    }

    package func openPlayback(sampleRate: UInt32, channels: UInt32) throws(RecorderError) -> AudioPlayback {
        do {
            return try PlaybackStream(sampleRate: sampleRate, channels: channels)
        } catch {
            throw .audioServer("cannot play on the audio server (\(error)). Is PulseAudio or pipewire-pulse running?")
        }
    }

    package func openSpeedChanger(sampleRate: UInt32, channels: UInt32) throws(RecorderError) -> SpeedChanger {
        try SonicSpeedChanger(sampleRate: sampleRate, channels: channels)
    }
}

/// A `SoundFileReader` as the player reads it.
final class DecodingSource: AudioFileSource {
    private let reader: SoundFileReader

    init(_ reader: SoundFileReader) {
        self.reader = reader
    }

    var sampleRate: UInt32 { UInt32(reader.sampleRate) }
    var channels: UInt32 { UInt32(reader.channelCount) }

    func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount: Int) throws(RecorderError) -> Int {
        do {
            return try reader.read(into: buffer, frameCount: frameCount)
        } catch {
            throw .unsupported(error.message)
        }
    }

    func seek(toFrame frame: Int) throws(RecorderError) {
        do {
            try reader.seek(toFrame: frame)
        } catch {
            throw .unsupported(error.message)
        }
    }
}
