import Foundation

/// Everything an integration test class shares: a private session with its
/// bus, an audio server (chosen by `VOICEMEMO_TEST_SERVER`) and the stimulus
/// playing into its microphone. Daemons are started per test or shared, as
/// the caller chooses, and `close()` stops whatever is left.
package final class IntegrationFixture {
    /// The private directories, environment and session bus.
    package let session: TestSession
    /// The audio server the daemon records from.
    package let audioServer: any AudioServer
    /// The known input playing into `AudioDevices.microphone`.
    package let stimulus: Stimulus
    /// How long the initializer took to bring everything up.
    package let startupDuration: Duration

    /// Starts the session, the audio server and, if `playStimulus`, the stimulus.
    ///
    /// - Throws: `FixtureError` naming what could not start and why; whatever
    ///   had started is stopped again.
    /// With a `user`, the whole session (bus, audio server, stimulus, daemons) runs as that user.
    package init(playStimulus: Bool = true, user: SessionUser? = nil) throws {
        let clock = ContinuousClock()
        let started = clock.now
        let kind = try AudioServerKind.fromEnvironment()
        session = try TestSession(user: user)
        do {
            audioServer = try kind.start(in: session)
            stimulus = Stimulus(session: session, server: audioServer)
            if playStimulus {
                try stimulus.start()
            }
        } catch {
            session.close()
            throw error
        }
        startupDuration = clock.now - started
    }

    deinit {
        close()
    }

    /// Restores the state every test starts from: the audio server running,
    /// the stimulus playing and no memo directory.
    package func prepareForTest() throws {
        if !audioServer.isRunning {
            try audioServer.restart()
        }
        try stimulus.start()
        try session.resetUserData()
    }

    /// Unloads every device module the fixture (or a test) created, as unplugging every
    /// microphone would; `restoreDevices()` brings the fixture's back. What the server
    /// keeps of its own (PipeWire's wireplumber adds an `auto_null` sink) stays.
    package func removeDevices() throws {
        stimulus.stop()
        let modules = try audioServer.pactl(["list", "short", "modules"]).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            let isOurs = fields.count > 2 && fields[2].contains("voicememo_")
            return isOurs ? String(fields[0]) : nil
        }
        // Sources first: a remap source goes with its master anyway.
        for module in modules.reversed() {
            _ = try audioServer.pactl(["unload-module", module])
        }
    }

    /// Creates the fixture's devices again, as defaults, and plays the stimulus into them.
    package func restoreDevices() throws {
        try AudioDevices.create(using: PulseControl(session: session), timeout: .seconds(10))
        try stimulus.start()
    }

    /// Launches voicememod on the session bus and waits until it serves.
    package func launchDaemon(
        arguments: [String] = [], environment: [String: String] = [:], executable: URL? = nil,
        waitsForLibrary: Bool = true
    ) throws -> Daemon {
        try Daemon(
            session: session, arguments: arguments, environment: environment, executable: executable,
            waitsForLibrary: waitsForLibrary)
    }

    /// Runs the voicememo command-line client in the session and returns its output.
    package func voicememo(_ arguments: [String], timeout: Duration = .seconds(10)) throws -> CommandOutput {
        try session.run(BuildProducts.voicememo().path, arguments, timeout: timeout)
    }

    /// Stops the stimulus, the audio server, any daemon and the bus, and removes
    /// the session directory.
    package func close() {
        stimulus.stop()
        audioServer.stop()
        session.close()
    }
}
