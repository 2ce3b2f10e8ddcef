import Dispatch
import Foundation
import Synchronization
import Testing
import VoiceMemoCore

/// A mono source whose sample at frame n is n (so what was written tells where it came from).
private final class CountingSource: AudioFileSource, @unchecked Sendable {
    let sampleRate: UInt32 = 1000
    let channels: UInt32 = 1
    let frameCount: Int
    private var next = 0

    init(seconds: Int) { frameCount = seconds * 1000 }

    func read(into buffer: UnsafeMutableBufferPointer<Float>, frameCount count: Int) throws(RecorderError) -> Int {
        let frames = min(count, frameCount - next)
        for index in 0..<frames { buffer[index] = Float(next + index) }
        next += frames
        return frames
    }

    func seek(toFrame frame: Int) throws(RecorderError) { next = frame }
}

/// An output that keeps every sample written, at about real time.
private final class RecordingOutput: AudioPlayback, @unchecked Sendable {
    let written = Mutex<[Float]>([])

    func write(_ frames: UnsafeBufferPointer<Float>) throws(RecorderError) {
        written.withLock { $0.append(contentsOf: frames) }
        Thread.sleep(forTimeInterval: Double(frames.count) / 1000)
    }

    func drain() throws(RecorderError) {}
    func flush() {}
}

private struct FakePlaybackBackend: PlaybackBackend {
    let output: RecordingOutput

    func openSource(path: String) throws(RecorderError) -> AudioFileSource { CountingSource(seconds: 10) }
    func openPlayback(sampleRate: UInt32, channels: UInt32) throws(RecorderError) -> AudioPlayback { output }
}

@Suite("Memo player: pause and seek")
struct MemoPlayerTests {
    @Test func aPausedPlaybackWritesNothingAndResumesAtTheSeekTarget() async throws {
        let queue = DispatchQueue(label: "player-test")
        let output = RecordingOutput()
        let player = MemoPlayer(backend: FakePlaybackBackend(output: output), queue: queue)
        let memo = MemoReference(id: "m", path: "/nonexistent")

        try queue.sync { try player.play(memo, paused: true) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(output.written.withLock { $0.isEmpty }, "started paused: nothing is written")
        queue.sync {
            #expect(player.isPaused)
            player.seek(to: 2.5)
            #expect(player.position == 2.5, "the position reports the target at once")
            #expect(player.isPaused, "seeking keeps it paused")
            player.resume()
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while output.written.withLock({ $0.count < 40 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(output.written.withLock { $0.first } == 2500, "resumed at the seek target")
        queue.sync {
            #expect(!player.isPaused)
            #expect(player.position >= 2.5)
            player.stop()
            #expect(player.playing == nil)
            #expect(player.position == 0)
        }
    }
}
