import Foundation

/// The drop-in files a private PipeWire reads from the session's
/// `$XDG_CONFIG_HOME`, on top of the system's configuration.
package enum PipeWireConfiguration {
    /// A drop-in for `pipewire.conf` (in `pipewire/pipewire.conf.d/`): the graph
    /// runs at the stimulus's rate and never switches, so 48 kHz streams pass
    /// without resampling and the microphone stays bit-exact.
    ///
    /// The graph's cycle is 1024 frames (21.3 ms), always. A client asking for
    /// 20 ms (parecord, voicememod) would otherwise shrink it to 512 frames, and
    /// on a two-vCPU CI machine the 10.7 ms cycle missed its deadline four to
    /// seven times in 30 s, each time putting 512 zeros into the stimulus sink
    /// and dropping or repeating up to 1000 samples; at 1024 frames none did.
    /// Nor does it grow: with only the stimulus (which asks for 80 ms) the graph
    /// ran at 2048 frames and went to 1024 as a recording began, and at that switch
    /// pipewire-pulse can hand the new stream a cycle from before: up to 2048 samples,
    /// twice what a sample-exact check allows (the continuity smoke, about 1 run in 24).
    static let core = """
        context.properties = {
            default.clock.rate = \(Stimulus.sampleRate)
            default.clock.allowed-rates = [ \(Stimulus.sampleRate) ]
            default.clock.quantum = 1024
            default.clock.min-quantum = 1024
            default.clock.max-quantum = 1024
        }

        """

    /// A wireplumber main.lua.d script, run after Debian's `50-*-config.lua` and
    /// before `90-enable-all.lua`: no ALSA, V4L2 or libcamera devices, so the
    /// private server never opens real hardware.
    static let sessionManagerMain = """
        alsa_monitor.enabled = false
        v4l2_monitor.enabled = false
        libcamera_monitor.enabled = false

        """

    /// A wireplumber bluetooth.lua.d script: no BlueZ monitor, which would look
    /// for bluetoothd on the system bus.
    static let sessionManagerBluetooth = """
        bluez_monitor.enabled = false

        """

    /// Writes the drop-ins under `configDirectory` (the session's `XDG_CONFIG_HOME`).
    package static func write(to configDirectory: URL) throws {
        let files = [
            "pipewire/pipewire.conf.d/50-voicememo-test.conf": core,
            "wireplumber/main.lua.d/51-voicememo-test.lua": sessionManagerMain,
            "wireplumber/bluetooth.lua.d/51-voicememo-test.lua": sessionManagerBluetooth,
        ]
        for (path, contents) in files {
            let file = configDirectory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: file, atomically: true, encoding: .utf8)
        }
    }
}
