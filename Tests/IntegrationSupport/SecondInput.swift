import Foundation

/// A second microphone for route tests, playing a tone of its own, so a recording shows
/// which input each stretch came from: a null sink the tone plays into and a real
/// (non-monitor) source remapped from its monitor, as `AudioDevices` builds the first.
package final class SecondInput {
    /// The second microphone's name.
    package static let source = "voicememo_second_mic"
    /// The null sink its tone plays into.
    package static let sink = "voicememo_second_tone"
    /// Its tone: far enough from the fixture's 440 Hz for a 10 ms window to tell them apart.
    package static let frequency = 1000.0

    private let server: any AudioServer
    private let tone: Stimulus
    private var sinkModule: String?
    private var sourceModule: String?

    /// Creates the devices on `server` and starts the tone; returns once the source is listed.
    package init(session: TestSession, server: any AudioServer) throws {
        self.server = server
        tone = Stimulus(session: session, server: server, sink: Self.sink, frequency: Self.frequency)
        sinkModule = try server.pactl([
            "load-module", "module-null-sink", "format=s16le", "rate=\(Stimulus.sampleRate)", "channels=1",
            "channel_map=mono", "norewinds=1", "sink_name=\(Self.sink)",
        ])
        try addSource()
        try tone.start()
    }

    deinit {
        remove()
    }

    /// Loads the source (again, after `removeSource()`), and returns once the server lists it.
    package func addSource() throws {
        sourceModule = try server.pactl([
            "load-module", "module-remap-source", "source_name=\(Self.source)", "master=\(Self.sink).monitor",
            "channels=1", "channel_map=mono",
        ])
        try waitUntil("\(Self.source) is listed", timeout: .seconds(5)) {
            try server.pactl(["list", "short", "sources"]).contains(Self.source)
        }
    }

    /// Unloads the source's module, as unplugging a USB microphone would remove it.
    package func removeSource() throws {
        guard let module = sourceModule else { return }
        sourceModule = nil
        _ = try server.pactl(["unload-module", module])
    }

    /// Stops the tone and unloads both modules; the fixture's devices are left as they were.
    package func remove() {
        guard server.isRunning else { return }
        tone.stop()
        try? removeSource()
        if let module = sinkModule { _ = try? server.pactl(["unload-module", module]) }
        sinkModule = nil
    }
}
