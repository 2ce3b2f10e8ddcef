import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An input that delivers in bursts, as network, tunnel and pipe sources do: a pipe source
/// (`module-pipe-source`, which both servers have) fed in real time, but `burst` seconds at
/// a time.
///
/// It carries a counting ramp (frame n holds `Int16(truncatingIfNeeded: n)`), so a recording
/// of it shows every lost or repeated frame: each sample is one more than the last.
package final class BurstInput {
    /// The source's name.
    package static let source = "voicememo_burst"
    /// The source's sample rate (s16le, mono).
    package static let sampleRate = 48_000

    /// The sample the ramp holds at `frame`.
    package static func sample(at frame: Int) -> Int16 { Int16(truncatingIfNeeded: frame) }

    /// How many neighbouring samples of `recorded` are not one apart: 0 for an unbroken ramp.
    /// Silence before the ramp's first sample is no break (pipewire-pulse's pipe source plays
    /// silence until the first burst comes).
    package static func breaks(in recorded: [Int16]) -> Int {
        let ramp = recorded.drop { $0 == 0 }
        return zip(ramp, ramp.dropFirst()).filter { $1 != $0 &+ 1 }.count
    }

    /// Seconds of audio per burst.
    package let burst: Double
    private let server: any AudioServer
    private let fifo: URL
    private var module: String?
    private var descriptor: Int32 = -1
    /// Raised by `remove()` to end the writer.
    private let stopping = StopFlag()
    /// Bytes the writer has put into the pipe so far.
    private let written = ByteCount()
    private var writerFinished: DispatchSemaphore?

    /// Creates the source on `server` and returns once it is listed; `start()` feeds it.
    package init(session: TestSession, server: any AudioServer, burst: Double) throws {
        self.server = server
        self.burst = burst
        fifo = session.runtimeDirectory.appendingPathComponent("burst-input.fifo")
        unlink(fifo.path)  // the module makes the pipe
        module = try server.pactl([
            "load-module", "module-pipe-source", "source_name=\(Self.source)", "file=\(fifo.path)", "format=s16le",
            "rate=\(Self.sampleRate)", "channels=1", "channel_map=mono",
        ])
        try waitUntil("\(Self.source) is listed", timeout: .seconds(5)) {
            try server.pactl(["list", "short", "sources"]).contains(Self.source)
        }
        // Non-blocking, so a source that stops reading (suspended, or its server gone)
        // cannot keep the writer, and `remove()` with it, waiting.
        descriptor = open(fifo.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw FixtureError.systemCallFailed("open \(fifo.path)", errno: errno) }
    }

    /// Frames put into the source so far: the most a recording of it can hold.
    package var framesFed: Int { written.value / MemoryLayout<Int16>.size }

    /// Starts the bursts, from the ramp's first sample. Started once a recording is open, the
    /// source has nothing older to hand it.
    package func start() {
        guard writerFinished == nil else { return }
        writerFinished = startWriter()
    }

    deinit {
        remove()
    }

    /// Stops the writer, closes the pipe and unloads the source.
    package func remove() {
        stopping.raise()
        writerFinished?.wait()
        writerFinished = nil
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        if let module, server.isRunning { _ = try? server.pactl(["unload-module", module]) }
        module = nil
        unlink(fifo.path)
    }

    /// Writes a burst each `burst` seconds, each holding the ramp's last `burst` seconds, so
    /// on average the source gets audio at the real-time rate. The first two bursts go out at
    /// once, so the source is always one to two bursts ahead of the clock: PulseAudio's pipe
    /// source passes each burst on as it comes, but pipewire-pulse's paces the pipe in real
    /// time and plays silence whenever it runs dry, as it might at the turn of a burst if it
    /// were only one ahead.
    private func startWriter() -> DispatchSemaphore {
        let finished = DispatchSemaphore(value: 0)
        let framesPerBurst = Int(burst * Double(Self.sampleRate))
        let descriptor = self.descriptor
        let burst = self.burst
        let thread = Thread { [stopping, written] in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            var nextFrame = 0
            var deadline = ContinuousClock.now.advanced(by: .seconds(-burst))
            while true {
                let now = ContinuousClock.now
                // The input's own clock: each burst is due at a time, not on an event.
                if deadline > now { Thread.sleep(forTimeInterval: (deadline - now).timeInterval) }
                deadline = deadline.advanced(by: .seconds(burst))
                if stopping.isRaised { break }
                let samples = (nextFrame..<nextFrame + framesPerBurst).map { Self.sample(at: $0).littleEndian }
                nextFrame += framesPerBurst
                let complete = samples.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        if stopping.isRaised { return false }
                        let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                        if count >= 0 {
                            offset += count
                            written.add(count)
                        } else if errno == EAGAIN {
                            var writable = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                            _ = poll(&writable, 1, 100)
                        } else if errno != EINTR {
                            return false
                        }
                    }
                    return true
                }
                if !complete { break }
            }
            finished.signal()
        }
        thread.name = "voicememo-burst-writer"
        thread.start()
        return finished
    }
}

/// A flag the test's thread raises once and the writer thread reads between writes.
private final class StopFlag: Sendable {
    private let state = Mutex(false)

    var isRaised: Bool { state.withLock { $0 } }

    func raise() {
        state.withLock { $0 = true }
    }
}

/// A count of bytes the writer thread adds to and the test's thread reads.
private final class ByteCount: Sendable {
    private let state = Mutex(0)

    var value: Int { state.withLock { $0 } }

    func add(_ bytes: Int) {
        state.withLock { $0 += bytes }
    }
}
