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
/// `@unchecked Sendable`: its state is touched only on the daemon's one serial queue (not
/// `DispatchQueue.main`), the server's, where bus calls and the recorder's callbacks arrive
/// (checked in `reportRecovered`, the one call posted there).
package final class RecorderService: @unchecked Sendable {
    private let recorder: Recorder
    private let player: MemoPlayer
    private let library: MemoLibraryService
    private let server: BusObjectServer
    private let transcription: TranscriptionService?

    package init(
        recorder: Recorder, player: MemoPlayer, library: MemoLibraryService, server: BusObjectServer,
        transcription: TranscriptionService? = nil
    ) {
        self.recorder = recorder
        self.player = player
        self.library = library
        self.server = server
        self.transcription = transcription
        recorder.notifications.observe { [weak self] in self?.hear($0) }
        player.playingChanged.observe { [weak self] _ in self?.announce([RecorderMember.playing.name]) }
        player.ended.observe { [weak self] in self?.playbackEnded($0.memo, $0.ending) }
        server.export(Contract.recorderPath, interfaces: [recorderInterface])
        server.addObjectManager(at: Contract.recorderPath)
        server.addDepartureHandler { [weak self] name in self?.levelWatchers.remove(name) }
        announcedMemoCount = library.memoCount
        library.changed.observe { [weak self] in self?.memoCountMayHaveChanged() }
        announcedEngine = transcription?.engineDescription ?? ""
        transcription?.engineChanged.observe { [weak self] in
            guard let self, engineMayHaveChanged() else { return }
            announce([RecorderMember.transcriptionEngine.name])
        }
    }

    /// The `TranscriptionEngine` last announced: looking for the engine again mostly finds
    /// the same one, which is not announced.
    private var announcedEngine = ""

    /// Whether `TranscriptionEngine` differs from what was last announced (and takes it as announced).
    private func engineMayHaveChanged() -> Bool {
        let engine = transcription?.engineDescription ?? ""
        defer { announcedEngine = engine }
        return engine != announcedEngine
    }

    /// The `MemoCount` last announced: the library tells of changes in batches (a whole
    /// start-up load at once), and a batch that adds as many as it removes changes nothing.
    private var announcedMemoCount = 0

    private func memoCountMayHaveChanged() {
        guard library.memoCount != announcedMemoCount else { return }
        announcedMemoCount = library.memoCount
        announce([RecorderMember.memoCount.name])
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
                BusMethod(RecorderMember.record) { [recorder] call in
                    recorder.record { call.answer($0.map { [.objectPath(Contract.memoPath(id: $0.id))] }) }
                },
                BusMethod(RecorderMember.recordWithOptions) { [recorder] call in
                    recorder.record(options: Self.options(from: call.arguments[0])) {
                        call.answer($0.map { [.objectPath(Contract.memoPath(id: $0.id))] })
                    }
                },
                BusMethod(RecorderMember.pause) { [recorder] call in recorder.pause { call.answer($0.map { [] }) } },
                BusMethod(RecorderMember.resume) { [recorder] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            try recorder.resume()
                            return []
                        })
                },
                BusMethod(RecorderMember.stop) { [recorder] call in
                    recorder.stop { call.answer($0.map { [.objectPath(Contract.memoPath(id: $0.id))] }) }
                },
                BusMethod(RecorderMember.cancel) { [recorder] call in recorder.cancel { call.answer($0.map { [] }) } },
                BusMethod(RecorderMember.toggle) { [recorder] call in
                    recorder.toggle { call.answer($0.map { [.string($0.rawValue)] }) }
                },
                BusMethod(RecorderMember.stopPlayback) { [player] call in
                    player.stop()
                    call.reply()
                },
                BusMethod(RecorderMember.getLevels) { [recorder] call in
                    let levels = recorder.levels
                    call.reply([Self.decibels(levels.average), Self.decibels(levels.peak)])
                },
                BusMethod(RecorderMember.getInputLevels) { [recorder] call in
                    call.reply(Self.loudestChannels(of: recorder.inputLevels))
                },
                BusMethod(RecorderMember.watchLevels) { [weak self] call in
                    self?.levelWatchers.insert(call.sender)
                    call.reply()
                },
                // Not watching is no error: the end the caller asks for holds either way.
                BusMethod(RecorderMember.unwatchLevels) { [weak self] call in
                    self?.levelWatchers.remove(call.sender)
                    call.reply()
                },
                BusMethod(RecorderMember.listMemos) { [library] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            [
                                try library.listMemos(
                                    offset: call.arguments[0].uint32!, count: call.arguments[1].uint32!,
                                    order: call.arguments[2].string!)
                            ]
                        })
                },
                BusMethod(RecorderMember.findMemos) { [library] call in
                    call.answer(
                        Result { () throws(RecorderError) in [try library.findMemos(call.arguments[0].string!)] })
                },
            ],
            properties: [
                BusProperty(RecorderMember.state) { [recorder] in .string(recorder.state.rawValue) },
                BusProperty(RecorderMember.currentMemo) { [recorder] in
                    .objectPath(Contract.memoPath(id: recorder.currentMemo?.id))
                },
                BusProperty(RecorderMember.currentTime) { [recorder] in .double(recorder.currentTime) },
                BusProperty(RecorderMember.playing) { [player] in .objectPath(Contract.memoPath(id: player.playing?.id))
                },
                Self.setting(RecorderMember.format, of: recorder, \.format, read: { .string($0.rawValue) }) {
                    (value) throws(RecorderError) in
                    try Validation.format(value.string!, key: RecorderMember.format.name)
                },
                Self.setting(RecorderMember.sampleRate, of: recorder, \.sampleRate, read: { .uint32($0) }) {
                    (value) throws(RecorderError) in
                    try Validation.sampleRate(value.uint32!, key: RecorderMember.sampleRate.name)
                },
                Self.setting(RecorderMember.channels, of: recorder, \.channels, read: { .uint32($0) }) {
                    (value) throws(RecorderError) in
                    try Validation.channels(value.uint32!, key: RecorderMember.channels.name)
                },
                Self.setting(RecorderMember.quality, of: recorder, \.quality, read: { .string($0.rawValue) }) {
                    (value) throws(RecorderError) in
                    try Validation.quality(value.string!, key: RecorderMember.quality.name)
                },
                Self.setting(RecorderMember.source, of: recorder, \.source, read: { .string($0) }) {
                    (value) throws(RecorderError) in
                    try Validation.source(value.string!, key: RecorderMember.source.name)
                },
                BusProperty(RecorderMember.activeSource) { [recorder] in .string(recorder.activeSource) },
                BusProperty(RecorderMember.activeOutput) { [recorder] in .string(recorder.activeOutput) },
                Self.switchSetting(RecorderMember.meteringEnabled, of: recorder, \.isMeteringEnabled),
                Self.switchSetting(RecorderMember.notificationsEnabled, of: recorder, \.areNotificationsEnabled),
                Self.switchSetting(RecorderMember.trayEnabled, of: recorder, \.isTrayEnabled),
                Self.switchSetting(RecorderMember.skipSilence, of: recorder, \.skipsSilence),
                Self.setting(RecorderMember.playbackRate, of: recorder, \.playbackRate, read: { .double($0) }) {
                    (value) throws(RecorderError) in
                    try Validation.playbackRate(value.double!, key: RecorderMember.playbackRate.name)
                },
                Self.switchSetting(RecorderMember.systemAudio, of: recorder, \.systemAudio),
                Self.switchSetting(RecorderMember.noiseSuppression, of: recorder, \.noiseSuppression),
                Self.switchSetting(RecorderMember.autoGain, of: recorder, \.autoGain),
                Self.switchSetting(RecorderMember.transcribeNewMemos, of: recorder, \.transcribeNewMemos),
                BusProperty(RecorderMember.transcriptionEngine) { [transcription] in
                    .string(transcription?.engineDescription ?? "")
                },
                Self.setting(
                    RecorderMember.transcriptionModel, of: recorder, \.transcriptionModel, read: { .string($0) }
                ) { (value) throws(RecorderError) in
                    try Validation.transcriptionModel(value.string!, key: RecorderMember.transcriptionModel.name)
                },
                BusProperty(RecorderMember.directory) { [recorder] in .string(recorder.directory.path) },
                BusProperty(RecorderMember.memoCount) { [library] in .uint32(UInt32(library.memoCount)) },
            ],
            signals: RecorderMember.signals.map { BusSignalSpec($0) })
    }

    /// An `ad` of per-channel dBFS values.
    private static func decibels(_ values: [Double]) -> BusValue {
        .array(elementSignature: "d", values.map { .double($0) })
    }

    /// Each input's levels as one bar: the averages and the peaks of its loudest channels.
    private static func loudestChannels(of inputs: [Levels]) -> [BusValue] {
        [
            decibels(inputs.map { $0.average.max() ?? Levels.floor }),
            decibels(inputs.map { $0.peak.max() ?? Levels.floor }),
        ]
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
        _ declaration: BusPropertyDeclaration, of recorder: Recorder,
        _ keyPath: WritableKeyPath<RecorderDefaults, Value>, read: @escaping (Value) -> BusValue,
        parse: @escaping (BusValue) throws(RecorderError) -> Value
    ) -> BusProperty {
        BusProperty(
            declaration, get: { [recorder] in read(recorder.defaults[keyPath: keyPath]) },
            set: { [recorder] value throws(BusError) in
                try update(recorder) { (defaults) throws(RecorderError) in defaults[keyPath: keyPath] = try parse(value)
                }
            })
    }

    /// An on/off setting: any boolean is valid.
    private static func switchSetting(
        _ declaration: BusPropertyDeclaration, of recorder: Recorder, _ keyPath: WritableKeyPath<RecorderDefaults, Bool>
    ) -> BusProperty {
        setting(
            declaration, of: recorder, keyPath, read: { .boolean($0) },
            parse: { (value) throws(RecorderError) in value.boolean! })
    }

    // MARK: What the recorder reports

    private func hear(_ notification: RecorderNotification) {
        switch notification {
        case .changed(let properties):
            var names = properties.map(\.name)
            // The engine's description names the model: both in one PropertiesChanged.
            if properties.contains(.transcriptionModel) {
                transcription?.checkEngine(notifying: false)
                if engineMayHaveChanged() { names.append(RecorderMember.transcriptionEngine.name) }
            }
            announce(names)
        case .finished(let memo, let successfully):
            // The library heard first: the memo object exists (InterfacesAdded) by now.
            emit(
                RecorderMember.recordingFinished, [.objectPath(Contract.memoPath(id: memo.id)), .boolean(successfully)])
        case .encodeFailed(let memo, let message):
            emit(RecorderMember.encodeError, [.objectPath(Contract.memoPath(id: memo.id)), .string(message)])
        case .interruption(let reason, let began, let shouldResume):
            emit(
                RecorderMember.interruption,
                [.string(began ? "began" : "ended"), .string(reason.rawValue), .boolean(shouldResume)])
        case .routeChanged(let reason, let previous, let current):
            emit(RecorderMember.routeChanged, [.string(reason.rawValue), .string(previous), .string(current)])
        case .levels(let levels, let inputs, let currentTime):
            emit(
                RecorderMember.levels,
                [Self.decibels(levels.average), Self.decibels(levels.peak), .double(currentTime)])
            if inputs.count > 1 {
                emit(RecorderMember.inputLevels, Self.loudestChannels(of: inputs) + [.double(currentTime)])
            }
        }
    }

    /// Announces a memo that a crash cut short and start-up repaired.
    package func reportRecovered(_ memo: MemoReference) {
        dispatchPrecondition(condition: .onQueue(server.queue))
        library.refresh(memo)
        emit(RecorderMember.recordingFinished, [.objectPath(Contract.memoPath(id: memo.id)), .boolean(false)])
    }

    private func playbackEnded(_ memo: MemoReference, _ ending: MemoPlayer.Ending) {
        switch ending {
        case .decodeFailed(let message):
            emit(RecorderMember.decodeError, [.objectPath(Contract.memoPath(id: memo.id)), .string(message)])
        case .outputFailed(let message):
            Log.error("playback of \(memo.path) failed: \(message)")
        case .finished, .stopped:
            break
        }
        emit(
            RecorderMember.playbackFinished,
            [.objectPath(Contract.memoPath(id: memo.id)), .boolean(ending == .finished)])
    }

    private func announce(_ names: [String]) {
        server.propertiesChanged(on: Contract.recorderPath, interface: Contract.recorderInterface, names: names)
    }

    private func emit(_ signal: BusSignalDeclaration, _ arguments: [BusValue]) {
        server.emit(signal.name, on: Contract.recorderPath, interface: Contract.recorderInterface, arguments: arguments)
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
