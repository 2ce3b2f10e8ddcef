import VoiceMemoCore

/// A playback's output behind its speed changer: at rate 1 the memo's frames go straight to
/// the output (no added delay, no work); at any other rate through the changer, whose frames
/// the output then plays. Going back to 1 first plays out what the changer holds, so nothing
/// is lost or reordered. Belongs to the playback thread, like both of its ends.
final class SpeedChangingOutput {
    private let output: AudioPlayback
    private let speedChanger: SpeedChanger
    private let channels: Int
    /// Whether the changer may hold frames not yet played: written since its last flush or clear.
    private var isChangingSpeed = false
    /// Frames taken out of the changer at a time.
    private let framesPerRead = 1024
    private let buffer: UnsafeMutableBufferPointer<Float>

    init(_ output: AudioPlayback, speedChanger: SpeedChanger, channels: Int) {
        self.output = output
        self.speedChanger = speedChanger
        self.channels = channels
        buffer = .allocate(capacity: framesPerRead * channels)
    }

    deinit {
        buffer.deallocate()
    }

    /// Plays interleaved memo frames `rate` times faster than recorded.
    func write(_ frames: UnsafeBufferPointer<Float>, rate: Double) throws(RecorderError) {
        guard rate != 1 else {
            if isChangingSpeed { try playOutSpeedChanger() }
            try output.write(frames)
            return
        }
        if speedChanger.speed != rate { speedChanger.speed = rate }
        isChangingSpeed = true
        try speedChanger.write(frames)
        try writeReadyFrames()
    }

    /// At the end of the memo: plays out what the changer holds, then waits until all of it
    /// has been heard.
    func finish() throws(RecorderError) {
        if isChangingSpeed { try playOutSpeedChanger() }
        try output.drain()
    }

    /// Drops what the output has buffered but not played (a stop, or a failure).
    func flush() {
        output.flush()
    }

    /// For a seek: drops what the output and the changer hold, so the target sounds next.
    func flushClearingSpeedChanger() throws(RecorderError) {
        output.flush()
        guard isChangingSpeed else { return }
        try speedChanger.clear()
        isChangingSpeed = false
    }

    private func playOutSpeedChanger() throws(RecorderError) {
        try speedChanger.flush()
        try writeReadyFrames()
        isChangingSpeed = false
    }

    private func writeReadyFrames() throws(RecorderError) {
        while true {
            let read = speedChanger.read(into: buffer, frameCount: framesPerRead)
            guard read > 0 else { return }
            try output.write(UnsafeBufferPointer(rebasing: buffer[0..<(read * channels)]))
        }
    }
}
