import Foundation

/// The devices every `AudioServer` provides, created through `pactl` once the
/// server answers, so PulseAudio and PipeWire get the very same modules.
package enum AudioDevices {
    /// The null sink the `Stimulus` plays into (s16le, 48 kHz, mono).
    package static let stimulusSink = "voicememo_stimulus"
    /// The default source: a plain (non-monitor) source fed by the stimulus sink's monitor.
    package static let microphone = "voicememo_mic"
    /// The default sink, a null sink (s16le, 48 kHz, mono) for playback tests.
    package static let speaker = "voicememo_speaker"

    /// The `pactl` commands that create the devices, in order.
    ///
    /// The microphone names its channel layout: PulseAudio's module-remap-source
    /// inherits the master's mono, but pipewire-pulse's defaults to stereo and
    /// mixes the upmixed channels back to mono 3 dB louder.
    package static let loadCommands: [[String]] = {
        let nullSink = [
            "load-module", "module-null-sink", "format=s16le", "rate=\(Stimulus.sampleRate)", "channels=1",
            "channel_map=mono", "norewinds=1",
        ]
        return [
            nullSink + ["sink_name=\(stimulusSink)"],
            [
                "load-module", "module-remap-source", "source_name=\(microphone)",
                "master=\(stimulusSink).monitor", "channels=1", "channel_map=mono",
            ],
            nullSink + ["sink_name=\(speaker)"],
        ]
    }()

    /// Creates the devices on the server `pactl` talks to, makes the microphone
    /// the default source and the speaker the default sink, and returns once
    /// the server reports both as its defaults.
    ///
    /// The server applies a default asynchronously on PipeWire, where the
    /// session manager (wireplumber) picks it and may first pick another device.
    ///
    /// - Throws: `FixtureError.commandFailed` if a module does not load,
    ///   `FixtureError.timedOut` if the defaults are not ours within `timeout`.
    package static func create(using pactl: PulseControl, timeout: Duration) throws {
        for command in loadCommands {
            _ = try pactl.run(command)
        }
        _ = try pactl.run(["set-default-source", microphone])
        _ = try pactl.run(["set-default-sink", speaker])
        try waitUntil("pactl reports \(microphone) and \(speaker) as the defaults", timeout: timeout) {
            try pactl.query(["get-default-source"]) == microphone && pactl.query(["get-default-sink"]) == speaker
        }
    }
}
