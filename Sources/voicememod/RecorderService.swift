import Bus
import Dispatch
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The recorder object `/org/example/VoiceMemo`: one table mapping the contract's methods,
/// properties and signals to `Recorder` calls, so the whole API reads on one screen.
///
/// Lives on the daemon's main queue, like the recorder and the bus connection.
/// `@unchecked Sendable`: its state is touched only on the server's queue, where bus calls
/// and the recorder's callbacks arrive (checked in `reportRecovered`, the one call posted there).
final class RecorderService: @unchecked Sendable {
    private let recorder: Recorder
    private let player: MemoPlayer
    private let library: MemoLibraryService
    private let server: BusObjectServer

    init(recorder: Recorder, player: MemoPlayer, library: MemoLibraryService, server: BusObjectServer) {
        self.recorder = recorder
        self.player = player
        self.library = library
        self.server = server
        recorder.notifications.observe { [weak self] in self?.hear($0) }
        player.playingChanged.observe { [weak self] _ in self?.announce(["Playing"]) }
        player.ended.observe { [weak self] in self?.playbackEnded($0.memo, $0.ending) }
        server.export(Contract.recorderPath, interfaces: [recorderInterface])
        server.addObjectManager(at: Contract.recorderPath)
        server.addDepartureHandler { [weak self] name in self?.levelWatchers.remove(name) }
    }

    /// Callers (unique names) that asked for Levels with WatchLevels, until UnwatchLevels or
    /// they leave the bus. A set: watching twice is watching, and one UnwatchLevels ends it.
    private var levelWatchers: Set<String> = [] {
        didSet {
            if levelWatchers.isEmpty != oldValue.isEmpty { recorder.setLevelsWatched(!levelWatchers.isEmpty) }
        }
    }

    private var recorderInterface: BusInterface {
        BusInterface(
            name: Contract.recorderInterface,
            methods: [
                BusMethod("Record", out: [BusArgument("memo", "o")]) { [recorder] call in
                    recorder.record { call.answer($0.map { [.objectPath(Contract.path(of: $0))] }) }
                },
                BusMethod("RecordWithOptions", in: [BusArgument("options", "a{sv}")], out: [BusArgument("memo", "o")]) {
                    [recorder] call in
                    recorder.record(options: Self.options(from: call.arguments[0])) {
                        call.answer($0.map { [.objectPath(Contract.path(of: $0))] })
                    }
                },
                BusMethod("Pause") { [recorder] call in recorder.pause { call.answer($0.map { [] }) } },
                BusMethod("Resume") { [recorder] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            try recorder.resume()
                            return []
                        })
                },
                BusMethod("Stop", out: [BusArgument("memo", "o")]) { [recorder] call in
                    recorder.stop { call.answer($0.map { [.objectPath(Contract.path(of: $0))] }) }
                },
                BusMethod("Cancel") { [recorder] call in recorder.cancel { call.answer($0.map { [] }) } },
                BusMethod("Toggle", out: [BusArgument("state", "s")]) { [recorder] call in
                    recorder.toggle { call.answer($0.map { [.string($0.rawValue)] }) }
                },
                BusMethod("StopPlayback") { [player] call in
                    player.stop()
                    call.reply()
                },
                BusMethod("GetLevels", out: [BusArgument("average_db", "ad"), BusArgument("peak_db", "ad")]) {
                    [recorder] call in
                    let levels = recorder.levels
                    call.reply([Self.decibels(levels.average), Self.decibels(levels.peak)])
                },
                BusMethod("WatchLevels") { [weak self] call in
                    self?.levelWatchers.insert(call.sender)
                    call.reply()
                },
                // Not watching is no error: the end the caller asks for holds either way.
                BusMethod("UnwatchLevels") { [weak self] call in
                    self?.levelWatchers.remove(call.sender)
                    call.reply()
                },
            ],
            properties: [
                BusProperty("State", "s") { [recorder] in .string(recorder.state.rawValue) },
                BusProperty("CurrentMemo", "o") { [recorder] in .objectPath(Contract.path(of: recorder.currentMemo)) },
                BusProperty("CurrentTime", "d", changeSignal: .none) { [recorder] in .double(recorder.currentTime) },
                BusProperty("Playing", "o") { [player] in .objectPath(Contract.path(of: player.playing)) },
                Self.setting("Format", "s", of: recorder, \.format, read: { .string($0.rawValue) }) {
                    (value) throws(RecorderError) in
                    try Validation.format(value.string!, key: "Format")
                },
                Self.setting("SampleRate", "u", of: recorder, \.sampleRate, read: { .uint32($0) }) {
                    (value) throws(RecorderError) in
                    try Validation.sampleRate(value.uint32!, key: "SampleRate")
                },
                Self.setting("Channels", "u", of: recorder, \.channels, read: { .uint32($0) }) {
                    (value) throws(RecorderError) in
                    try Validation.channels(value.uint32!, key: "Channels")
                },
                Self.setting("Quality", "s", of: recorder, \.quality, read: { .string($0.rawValue) }) {
                    (value) throws(RecorderError) in
                    try Validation.quality(value.string!, key: "Quality")
                },
                Self.setting("Source", "s", of: recorder, \.source, read: { .string($0) }) {
                    (value) throws(RecorderError) in
                    try Validation.source(value.string!, key: "Source")
                },
                BusProperty("ActiveSource", "s") { [recorder] in .string(recorder.activeSource) },
                Self.switchSetting("MeteringEnabled", of: recorder, \.isMeteringEnabled),
                Self.switchSetting("NotificationsEnabled", of: recorder, \.areNotificationsEnabled),
                Self.switchSetting("TrayEnabled", of: recorder, \.isTrayEnabled),
                Self.switchSetting("SkipSilence", of: recorder, \.skipsSilence),
                BusProperty("Directory", "s", changeSignal: .constant) { [recorder] in .string(recorder.directory.path)
                },
            ],
            signals: [
                BusSignalSpec("RecordingFinished", [BusArgument("memo", "o"), BusArgument("successfully", "b")]),
                BusSignalSpec("EncodeError", [BusArgument("memo", "o"), BusArgument("message", "s")]),
                BusSignalSpec("PlaybackFinished", [BusArgument("memo", "o"), BusArgument("successfully", "b")]),
                BusSignalSpec("DecodeError", [BusArgument("memo", "o"), BusArgument("message", "s")]),
                BusSignalSpec(
                    "Interruption",
                    [BusArgument("type", "s"), BusArgument("reason", "s"), BusArgument("should_resume", "b")]),
                BusSignalSpec(
                    "RouteChanged",
                    [
                        BusArgument("reason", "s"), BusArgument("previous_source", "s"),
                        BusArgument("current_source", "s"),
                    ]),
                BusSignalSpec(
                    "Levels",
                    [BusArgument("average_db", "ad"), BusArgument("peak_db", "ad"), BusArgument("current_time", "d")]),
            ])
    }

    /// An `ad` of per-channel dBFS values.
    private static func decibels(_ values: [Double]) -> BusValue {
        .array(elementSignature: "d", values.map { .double($0) })
    }

    /// The `a{sv}` argument as recorder options.
    private static func options(from value: BusValue) -> [String: OptionValue] {
        var options: [String: OptionValue] = [:]
        for entry in value.dictionaryEntries ?? [] {
            guard let key = entry.key.string else { continue }
            options[key] = OptionValue(entry.value.variant ?? entry.value)
        }
        return options
    }

    /// Applies a property write to the defaults; the recorder reports a real change, which
    /// `hear(_:)` announces.
    private static func update(
        _ recorder: Recorder, _ change: (inout RecorderDefaults) throws(RecorderError) -> Void
    ) throws(BusError) {
        do {
            try recorder.updateDefaults(change)
        } catch {
            throw BusError(error)
        }
    }

    /// A writable property that mirrors one of the recorder's saved defaults: read from them,
    /// written through `parse`, which validates and names the property in its errors.
    private static func setting<Value>(
        _ name: String, _ signature: String, of recorder: Recorder, _ keyPath: WritableKeyPath<RecorderDefaults, Value>,
        read: @escaping (Value) -> BusValue, parse: @escaping (BusValue) throws(RecorderError) -> Value
    ) -> BusProperty {
        BusProperty(
            name, signature, access: .readWrite, get: { [recorder] in read(recorder.defaults[keyPath: keyPath]) },
            set: { [recorder] value throws(BusError) in
                try update(recorder) { (defaults) throws(RecorderError) in defaults[keyPath: keyPath] = try parse(value)
                }
            })
    }

    /// An on/off setting: any boolean is valid.
    private static func switchSetting(
        _ name: String, of recorder: Recorder, _ keyPath: WritableKeyPath<RecorderDefaults, Bool>
    ) -> BusProperty {
        setting(
            name, "b", of: recorder, keyPath, read: { .boolean($0) },
            parse: { (value) throws(RecorderError) in value.boolean! })
    }

    // MARK: What the recorder reports

    private func hear(_ notification: RecorderNotification) {
        switch notification {
        case .changed(let properties):
            announce(properties.map(\.name))
        case .finished(let memo, let successfully):
            // The library heard first: the memo object exists (InterfacesAdded) by now.
            emit("RecordingFinished", [.objectPath(Contract.path(of: memo)), .boolean(successfully)])
        case .encodeFailed(let memo, let message):
            emit("EncodeError", [.objectPath(Contract.path(of: memo)), .string(message)])
        case .interruption(let reason, let began, let shouldResume):
            emit(
                "Interruption", [.string(began ? "began" : "ended"), .string(reason.rawValue), .boolean(shouldResume)])
        case .routeChanged(let reason, let previous, let current):
            emit("RouteChanged", [.string(reason.rawValue), .string(previous), .string(current)])
        case .levels(let levels, let currentTime):
            emit("Levels", [Self.decibels(levels.average), Self.decibels(levels.peak), .double(currentTime)])
        }
    }

    /// Announces a memo that a crash cut short and start-up repaired.
    func reportRecovered(_ memo: MemoReference) {
        dispatchPrecondition(condition: .onQueue(server.queue))
        library.refresh(memo)
        emit("RecordingFinished", [.objectPath(Contract.path(of: memo)), .boolean(false)])
    }

    private func playbackEnded(_ memo: MemoReference, _ ending: MemoPlayer.Ending) {
        switch ending {
        case .decodeFailed(let message):
            emit("DecodeError", [.objectPath(Contract.path(of: memo)), .string(message)])
        case .outputFailed(let message):
            fputs("voicememod: playback of \(memo.path) failed: \(message)\n", standardError)
        case .finished, .stopped:
            break
        }
        emit("PlaybackFinished", [.objectPath(Contract.path(of: memo)), .boolean(ending == .finished)])
    }

    private func announce(_ names: [String]) {
        server.propertiesChanged(on: Contract.recorderPath, interface: Contract.recorderInterface, names: names)
    }

    private func emit(_ signal: String, _ arguments: [BusValue]) {
        server.emit(
            MemberName(signal), on: Contract.recorderPath, interface: Contract.recorderInterface, arguments: arguments)
    }
}

extension BusMethodInvocation {
    /// Replies with `result`'s values, or with the contract's error for its failure.
    func answer(_ result: Result<[BusValue], RecorderError>) {
        switch result {
        case .success(let values): reply(values)
        case .failure(let error): fail(BusError(error))
        }
    }
}
