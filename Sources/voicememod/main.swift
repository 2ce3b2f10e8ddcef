import Bus
import Dispatch
import PulseAudio
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoRuntime
import VoiceMemoService

#if canImport(Glibc)
    import Glibc
#endif

// voicememod: the recorder daemon. Wires the core to the session bus and the audio
// server; one serial queue owns the bus connection and the recorder.
//
// Every closure made here that runs later, on the queue, is `@Sendable`: a closure made in
// top-level code otherwise belongs to the main actor, and Swift 6 traps when the queue calls it.

/// Logs `message` as an error and exits with `status`.
func exit(status: Int32, _ message: String) -> Never {
    Log.error(message)
    exit(status)
}

// The daemon takes no arguments but these two, answered without touching the bus or the
// audio server (a package's scripts and a curious user may run it anywhere).
switch CommandLine.arguments.dropFirst().first {
case nil:
    break
case "--version":
    print("voicememod \(Release.version)")
    exit(0)
case "--help", "-h":
    print("voicememod: the voicememo recorder daemon; it serves \(Contract.busName) on the session bus.")
    print("Usage: voicememod [--version | --help]  (see voicememod(1))")
    exit(0)
case let argument?:
    exit(status: 64, "unknown argument '\(argument)'; usage: voicememod [--version | --help]")
}

// Memos and settings are the user's alone.
umask(0o077)
configureAllocator()
signal(SIGPIPE, SIG_IGN)

/// The daemon's one serial context. Not `DispatchQueue.main`: on Linux each access to it
/// makes a new wrapper object, and the bus layer checks queue identity.
let queue = DispatchQueue(label: "voicememod")
let locations = Locations()
let settings = SettingsStore(directory: locations.configDirectory)
/// The audio server's inputs, for the route rules; it also tells a recording's start which
/// input is the default, saving it a connection of its own.
let serverMonitor = ServerMonitor(queue: queue)

let connection: BusConnection
do {
    connection = try BusConnection.session()
} catch {
    exit(status: 1, "cannot connect to the session bus: \(error.message). Is DBUS_SESSION_BUS_ADDRESS set?")
}
connection.attach(to: queue) { @Sendable in
    exit(status: 1, "the session bus went away; exiting")
}

/// Everything that serves the bus, built on the queue that owns it, each part given what it
/// needs; the parts that follow the recorder subscribe to its notifications themselves.
let (recorder, player, library, server, service, routes, watcher, crashRecovery) = queue.sync {
    let server = BusObjectServer(connection: connection, queue: queue)
    // Only the session's user may record, list or play, even on a shared bus.
    server.allowedUnixUser = UInt32(getuid())
    // VOICEMEMO_DEBUG=1: each caller forgotten on leaving the bus, so a leak would show.
    if Log.isDebugEnabled {
        server.onCallerForgotten = { @Sendable [unowned server] name in
            Log.debug("forgot caller \(name); \(server.rememberedCallerCount) remembered")
        }
    }
    let player = MemoPlayer(backend: PulsePlaybackBackend(), queue: queue)
    let recorder = Recorder(
        directory: MemoDirectory(path: locations.memoDirectory),
        defaults: settings.load { Log.warning("\(settings.path): \($0)") }, settings: settings,
        backend: PulseRecordingBackend(
            knownDefaultSource: { serverMonitor.defaultSource }, knownDefaultOutput: { serverMonitor.defaultOutput },
            knownCaptureTiming: { serverMonitor.captureTiming }),
        player: player,
        queue: queue)
    let cacheDirectory = locations.cacheDirectory
    // Speech to text in a worker process, at idle priority; the daemon holds no model.
    let transcription = TranscriptionService(
        engineDirectory: locations.engineDirectory, script: locations.transcriberScript,
        stateDirectory: locations.stateDirectory, queue: queue,
        model: { @Sendable in recorder.defaults.transcriptionModel })
    transcription.holdWorker(whileStartsAreUnderway: recorder.startsUnderway)
    let library = MemoLibraryService(
        directory: locations.memoDirectory, trash: Trash(directory: locations.trashDirectory),
        cachePath: cacheDirectory + "/library.cache",
        peaks: MemoPeaksService(cacheDirectory: cacheDirectory + "/peaks", queue: queue),
        recorder: recorder, player: player, server: server, queue: queue, transcription: transcription)
    // Created up front so it can be watched; a failure is reported again by Record.
    try? recorder.directory.prepare()
    let watcher = try? DirectoryWatcher(path: locations.memoDirectory, queue: queue)
    watcher?.onChange = { @Sendable in
        watcher?.start()  // again, in case the directory was recreated
        library.refresh()
    }
    watcher?.start()
    let service = RecorderService(
        recorder: recorder, player: player, library: library, server: server, transcription: transcription)
    DesktopNotifier(connection: connection).follow(recorder, library: library)
    let routes = AudioRouteService(recorder: recorder, monitor: serverMonitor, queue: queue)
    // Memos a crash left open: noted before the name is owned, repaired and reported after.
    let crashRecovery = CrashRecovery(directory: recorder.directory)
    return (recorder, player, library, server, service, routes, watcher, crashRecovery)
}

// logind (issue 6): system sleep and session switches interrupt the recording, and a sleep
// delay lock is held while a memo is open. Off, with one log line, without a system bus.
let sessionMonitor = SessionMonitor.start(recorder: recorder, queue: queue)

/// The names, owned once everything behind them is in place, and what needs them owned.
let (mediaPlayer, tray) = queue.sync {
    do throws(BusError) {
        guard try connection.requestName(Contract.busName) else {
            exit(
                status: 1,
                "\(Contract.busName.rawValue) is already owned on the session bus: another voicememod is running")
        }
    } catch {
        exit(status: 1, "cannot own \(Contract.busName.rawValue): \(error.message)")
    }
    // MPRIS (issue 9): memo playback for media keys, playerctl and desktop media widgets, on
    // the same object server under a second well-known name.
    let mediaPlayer = MediaPlayerService(player: player, recorder: recorder, library: library, server: server)
    do throws(BusError) {
        if try !connection.requestName(MediaPlayerNames.busName) {
            Log.warning(
                "\(MediaPlayerNames.busName.rawValue) is owned by someone else; media keys will not reach voicememo")
        }
    } catch {
        Log.warning("cannot own \(MediaPlayerNames.busName.rawValue): \(error.message)")
    }
    // The tray item (issue 16): a StatusNotifierItem with a dbusmenu, registered with the
    // panel's watcher whenever one runs; its input label is the live one, else the default.
    let tray = StatusNotifierItemService(
        recorder: recorder, library: library, server: server, queue: queue,
        input: { @Sendable in
            if !recorder.activeSource.isEmpty { return recorder.activeSource }
            return recorder.defaults.source.isEmpty ? serverMonitor.defaultSource ?? "" : recorder.defaults.source
        })
    tray.start()
    return (mediaPlayer, tray)
}

// The library is read only now, alongside the first recording rather than before it,
// after what a crash left open is repaired.
queue.async { [library, service, crashRecovery] in
    library.load(after: { @Sendable in
        crashRecovery.undoInterruptedTagEdits()
        MemoTrimming.removeLeftovers(in: locations.memoDirectory)
        let recovered = crashRecovery.repair()
        queue.async { @Sendable in
            crashRecovery.closeJournalEntries()
            for memo in recovered { service.reportRecovered(memo) }
        }
    })
}
Log.info("serving \(Contract.busName.rawValue); memos in \(locations.memoDirectory)")

/// SIGTERM and SIGINT finish the open memo properly before exiting.
let terminationSources = [SIGTERM, SIGINT].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
    source.setEventHandler { @Sendable in
        library.saveCache()
        guard recorder.currentMemo != nil else { exit(0) }
        recorder.stop { _ in exit(0) }
    }
    source.activate()
    return source
}

withExtendedLifetime((service, routes, watcher, terminationSources, mediaPlayer, tray, sessionMonitor)) {
    dispatchMain()
}
