import AudioContainers
import Bus
import Dispatch
import FoundationEssentials
import VoiceMemoContract
import VoiceMemoCore
import VoiceMemoRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The memo objects under `/org/example/VoiceMemo/Memo/` and the ObjectManager that lists
/// them: the memo directory is the truth, this keeps the bus in step with it. When file
/// work and refreshes may run is `LibraryWorkSchedule`'s to say, when the cache is written
/// `LibraryCacheSaving`'s, and whether a memo may play `MemoPlayGate`'s.
///
/// Lives on the daemon's queue with the recorder and the bus connection. `@unchecked
/// Sendable`: its state is touched only on `queue`; the start-up load, read on a queue of
/// its own, hands each step back there (checked in `apply`).
package final class MemoLibraryService: @unchecked Sendable {
    private let server: BusObjectServer
    private let files: MemoFiles
    /// Where Delete puts memos, so a mis-click can be undone from a file manager.
    private let trash: Trash
    /// Cuts memos, putting the old version in the same trash.
    private let trimming: MemoTrimming
    private let cache: LibraryCache
    /// Writes `cache` a moment after the last change, with the memos known by then.
    private lazy var cacheSaving = LibraryCacheSaving(cache: cache, queue: queue) { [unowned self] in catalog.memos }
    /// The player every memo's Play goes to, through `playGate`.
    private let player: MemoPlayer
    private let playGate: MemoPlayGate
    /// Its open files are not memos yet.
    private let recorder: Recorder
    private var catalog = MemoCatalog()
    private let queue: DispatchQueue
    /// Where the library is read at start-up, away from the bus.
    private let loadingQueue = DispatchQueue(label: "voicememod.library", qos: .utility)
    /// Files the start-up load has still to deliver.
    private var filesBeingLoaded: Set<String> = []
    /// Where memo files are rewritten (a new title copies the whole file), away from the bus.
    private let fileQueue = DispatchQueue(label: "voicememod.files", qos: .userInitiated)
    /// When file work and refreshes run: a rename or delete of one memo runs after the one
    /// before it has finished; refreshes wait for file work and for the start-up load.
    private var schedule = LibraryWorkSchedule<() -> Void>()
    /// Told on the queue after memos were added, removed, renamed or changed.
    let changed = Observers<Void>()
    /// Answers each memo's Peaks, from its own cache (not the library cache).
    private let peaks: MemoPeaksService?
    /// How each memo's properties read.
    private lazy var properties = MemoProperties(files: files) { [unowned self] memo in
        transcriptStatus(of: memo).rawValue
    }
    /// Transcribes memos in a worker process, one at a time; nil in a daemon without it.
    private let transcription: TranscriptionService?
    /// Memos being recorded with the `transcribe` option (or `TranscribeNewMemos`): each is
    /// queued once finished.
    private var transcribeWhenFinished: Set<String> = []

    package init(
        directory: String, trash: Trash, cachePath: String, peaks: MemoPeaksService?, recorder: Recorder,
        player: MemoPlayer, server: BusObjectServer, queue: DispatchQueue, transcription: TranscriptionService? = nil
    ) {
        self.server = server
        self.files = MemoFiles(directory: directory)
        self.transcription = transcription
        self.trash = trash
        self.trimming = MemoTrimming(trash: trash)
        self.cache = LibraryCache(path: cachePath)
        self.peaks = peaks
        self.recorder = recorder
        self.player = player
        self.playGate = MemoPlayGate(recorder: recorder, player: player)
        self.queue = queue
        exportMemos()
        transcription?.client = self
        // Here, in the library's init: each part that reads a finished memo from the library
        // takes the library, so it is made after it and hears of the memo after it has read it.
        recorder.notifications.observe { [weak self, unowned recorder] notification in
            switch notification {
            case .finished(let memo, _):
                self?.refresh(memo)
                self?.transcribeIfAsked(memo)
            case .changed(let properties) where properties.contains(.currentMemo):
                if let memo = recorder.currentMemo, recorder.currentRequest?.transcribes == true {
                    self?.transcribeWhenFinished.insert(memo.id)
                }
                self?.showRecording(recorder.currentMemo)
            default: break
            }
        }
    }

    /// Reads the library off the queue, after the name is owned, so that a first `Record`
    /// never waits on years of memos. Memos appear on the bus as they become known, each
    /// with InterfacesAdded: those the cache vouches for first, then each file read. A
    /// listing meanwhile shows what is known so far.
    ///
    /// `preparation` runs first, on the same queue: files it changes (a crash repair) are
    /// read once it is done.
    package func load(after preparation: @escaping @Sendable () -> Void = {}) {
        dispatchPrecondition(condition: .onQueue(queue))
        let loading = LibraryLoading(files: files, cache: cache)
        schedule.loadStarted()
        // The service lives as long as the daemon; the load holds it until done.
        loadingQueue.async { [queue] in
            preparation()
            loading.run { step in
                queue.async { self.apply(step) }
            }
        }
    }

    private func apply(_ step: LibraryLoading.Step) {
        dispatchPrecondition(condition: .onQueue(queue))
        switch step {
        case .planned(let fileNames):
            filesBeingLoaded = fileNames
        case .known(let memos, let settled):
            // A file the recorder still writes is not a memo yet; its refresh comes at Stop. A
            // file read meanwhile by the bus queue (a finished recording) is newer than this.
            let inProgress = recorder.filesInProgress
            let delivered = memos.filter {
                filesBeingLoaded.contains($0.fileName) && !inProgress.contains($0.fileName)
            }
            let new = delivered.filter { catalog[$0.id] == nil }
            catalog.insert(contentsOf: delivered)
            for memo in new { announceAdded(memo) }
            filesBeingLoaded.subtract(settled)
        case .finished(let summary):
            filesBeingLoaded = []
            schedule.loadFinished()
            Log.info("library: \(summary)")
            // What changed while the library was read (a memo recorded, a file copied in).
            refresh()
            if summary.cacheIsStale { scheduleCacheSave() }
            peaks?.keepOnly(ids: Set(catalog.memos.keys))
            // The jobs a previous run left, once their memos are known.
            transcription?.restore()
            // Once, not per step: observers (MPRIS's next and previous) look at the whole library.
            changed.notify()
            returnFreedMemory()
        }
    }

    /// Brings the bus in line with the directory: new files appear, changed ones update,
    /// vanished ones disappear, each announced. During the start-up load it waits for the
    /// load's end: before the load knows its files, a refresh would read them all here.
    package func refresh() {
        guard schedule.mayRefresh() else { return }
        let changes = catalog.changes(for: files.listing(), ignoring: recorder.filesInProgress)
        for id in changes.removed { removeMemo(id: id) }
        for status in changes.toRead { read(status) }
        if !changes.removed.isEmpty || !changes.toRead.isEmpty {
            scheduleCacheSave()
            changed.notify()
        }
    }

    /// Reads the one file `memo` was recorded into, without listing the directory: a
    /// finished recording is on the bus before it is announced, however large the library.
    func refresh(_ memo: MemoReference) {
        let fileName = memo.fileName
        filesBeingLoaded.remove(fileName)
        if let status = files.status(of: fileName) {
            read(status)
        } else if catalog[memo.id] != nil {
            removeMemo(id: memo.id)
        }
        scheduleCacheSave()
        changed.notify()
    }

    /// Reads one new or changed file and exports or updates its memo.
    private func read(_ status: MemoFileStatus) {
        let id = MemoNaming.memoID(forFileName: status.fileName)
        guard let memo = files.inspect(status) else {
            if catalog[id] != nil { removeMemo(id: id) }
            return
        }
        guard catalog[id] != nil else {
            catalog.insert(memo)
            return announceAdded(memo)
        }
        let before = server.snapshot(
            of: MemoProperties.changeable, on: Contract.memoPath(id: id), interface: Contract.memoInterface)
        catalog.insert(memo)
        server.announceChanges(since: before)
    }

    /// The memo being recorded, whose object answers Peaks only, unlisted.
    private var recording: MemoReference?

    /// Follows the recorder's open memo: while one is recorded, its object (CurrentMemo)
    /// answers `Peaks` from what is written so far, without being one of the library's
    /// memos (not in GetManagedObjects, no properties). Once finished, `refresh()` exports
    /// it as a memo in its place, announced; a cancelled one just goes.
    func showRecording(_ memo: MemoReference?) {
        guard memo?.id != recording?.id else { return }
        if let previous = recording, catalog[previous.id] == nil { server.unexport(Contract.memoPath(id: previous.id)) }
        recording = memo
        guard let memo, catalog[memo.id] == nil else { return }
        let peaks = BusMethod(MemoMember.peaks) { [weak self] call in
            self?.peaksSoFar(of: memo, count: call.arguments[0].uint32 ?? 0) { call.answer($0) }
        }
        // A file still being written cannot be cut; say why rather than that the method is unknown.
        let trims = [MemoMember.trim, MemoMember.trimSilence].map { declaration in
            BusMethod(declaration) { call in
                call.answer(.failure(RecorderError.busy("this memo is being recorded; Stop it before trimming it")))
            }
        }
        let transcribes = BusMethod(MemoMember.transcribe) { call in
            call.answer(
                .failure(
                    RecorderError.busy(
                        "this memo is being recorded; Stop it first (record with the transcribe option to have it transcribed when it ends)"
                    )))
        }
        server.export(
            Contract.memoPath(id: memo.id),
            interfaces: [BusInterface(name: Contract.memoInterface, methods: [peaks] + trims + [transcribes])],
            listed: false
        )
    }

    /// `Peaks` of the memo being recorded: its file as written so far, decoded every time.
    private func peaksSoFar(
        of memo: MemoReference, count: UInt32, completion: @escaping (Result<[BusValue], RecorderError>) -> Void
    ) {
        do throws(RecorderError) {
            let count = try Validation.peakCount(count, key: "count")
            guard let peaks else { throw .unsupported("this daemon computes no peaks") }
            peaks.peaksSoFar(id: memo.id, path: memo.path, count: count) { result in
                completion(result.map { [.array(elementSignature: "d", $0.map { .double($0) })] })
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// Memo ids newest first, as MPRIS Next/Previous go.
    var idsNewestFirst: [String] { catalog.page(offset: 0, count: catalog.count).map(\.id) }

    /// The `count` newest memos, as the tray's menu shows them.
    func newest(_ count: Int) -> [MemoInfo] { catalog.page(offset: 0, count: count) }

    /// How many memos the library holds.
    var memoCount: Int { catalog.count }

    /// `ListMemos`: a page of memos, each with its object path and properties.
    func listMemos(offset: UInt32, count: UInt32, order: String) throws(RecorderError) -> BusValue {
        let count = try Validation.pageSize(count, key: "count")
        let order = try Validation.memoOrder(order, key: "order")
        let page = catalog.page(offset: Int(offset), count: count, order: order)
        return .array(
            elementSignature: "(oa{sv})",
            page.map { .structure([.objectPath(Contract.memoPath(id: $0.id)), properties.dictionary(of: $0)]) })
    }

    /// `FindMemos`: the object paths of the memos whose title or file name holds `text`.
    func findMemos(_ text: String) throws(RecorderError) -> BusValue {
        let ids = catalog.find(try Validation.searchText(text, key: "text"))
        return .array(elementSignature: "o", ids.map { .objectPath(Contract.memoPath(id: $0)) })
    }

    /// What the library knows of memo `id`.
    func info(id: String) -> MemoInfo? { catalog[id] }

    /// The memo with `id`, as the recorder and player refer to it.
    func reference(id: String) -> MemoReference? {
        catalog[id].map { MemoReference(id: $0.id, path: files.path(of: $0.fileName)) }
    }

    // MARK: The memo interface

    /// Puts the memo objects on the bus as one family: each memo costs the bus its
    /// `MemoInfo` in the catalog, not a path and a table of closures.
    private func exportMemos() {
        server.export(
            BusObjectFamily(
                parent: Contract.memoParentPath, interfaces: [memoInterface()],
                members: { [weak self] in self.map { Array($0.catalog.memos.keys) } ?? [] },
                contains: { [weak self] element in self?.catalog[String(element)] != nil },
                propertyValues: { [weak self] element in
                    guard let self, let memo = catalog[element] else { return nil }
                    return [properties.values(of: memo)]
                },
                // A memo the start-up load reads again replaces the cache's unannounced.
                revision: { [weak self] in self?.catalog.revision ?? 0 }))
    }

    /// Announces a memo the catalog now holds; the object that stood in for it while it was
    /// recorded makes way for it.
    private func announceAdded(_ memo: MemoInfo) {
        if recording?.id == memo.id { server.unexport(Contract.memoPath(id: memo.id)) }
        server.memberAdded(memo.id, below: Contract.memoParentPath)
    }

    private func memoInterface() -> BusInterface {
        // Getters read the catalog each time, so one table serves every memo in every state.
        func value(_ read: @escaping (MemoInfo) -> BusValue) -> (ObjectPath) -> BusValue {
            { [weak self] path in self?.catalog[String(path.lastElement)].map(read) ?? .string("") }
        }
        func id(_ call: BusMethodInvocation) -> String { String(call.path.lastElement) }
        return BusInterface(
            name: Contract.memoInterface,
            methods: [
                BusMethod(MemoMember.play) { [weak self] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            try self?.play(id: id(call))
                            return []
                        })
                },
                BusMethod(MemoMember.rename) { [weak self] call in
                    self?.rename(id: id(call), to: call.arguments[0].string ?? "") { call.answer($0.map { [] }) }
                },
                BusMethod(MemoMember.delete) { [weak self] call in
                    self?.delete(id: id(call), permanently: false) { call.answer($0.map { [] }) }
                },
                BusMethod(MemoMember.deletePermanently) { [weak self] call in
                    self?.delete(id: id(call), permanently: true) { call.answer($0.map { [] }) }
                },
                BusMethod(MemoMember.peaks) { [weak self] call in
                    self?.peaks(id: id(call), count: call.arguments[0].uint32 ?? 0) { call.answer($0) }
                },
                BusMethod(MemoMember.trim) { [weak self] call in
                    let cut = MemoTrimming.Cut.range(
                        start: call.arguments[0].double ?? .nan, end: call.arguments[1].double ?? .nan)
                    self?.trim(id: id(call), cut) { call.answer($0.map { [] }) }
                },
                BusMethod(MemoMember.trimSilence) { [weak self] call in
                    self?.trim(id: id(call), .silence) { call.answer($0.map { [] }) }
                },
                BusMethod(MemoMember.transcribe) { [weak self] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            try self?.transcribe(id: id(call))
                            return []
                        })
                },
                BusMethod(MemoMember.transcriptSegments) { [weak self] call in
                    call.answer(
                        Result { () throws(RecorderError) in
                            guard let self else { return [] }
                            return [Self.segments(of: try self.memo(id(call)))]
                        })
                },
            ],
            properties: MemoMember.properties.map { declaration in
                let read = value { [properties] in properties.value(declaration, of: $0) }
                guard declaration == MemoMember.title else { return BusProperty(declaration, getAt: read) }
                return BusProperty(
                    declaration, getAt: read,
                    setLater: { [weak self] call, newValue in
                        self?.rename(id: String(call.path.lastElement), to: newValue.string ?? "") {
                            call.answer($0.map { [] })
                        }
                    })
            })
    }

    private func memo(_ id: String) throws(RecorderError) -> MemoInfo {
        guard let memo = catalog[id] else { throw .noSuchMemo("memo \(id) no longer exists") }
        return memo
    }

    /// Plays memo `id` (held at its start if `paused`); refused while recording.
    func play(id: String, paused: Bool = false) throws(RecorderError) {
        _ = try memo(id)
        try playGate.play(reference(id: id)!, paused: paused)
    }

    /// `Peaks`: `count` values, answered later (a memo not yet cached is decoded off the queue).
    func peaks(id: String, count: UInt32, completion: @escaping (Result<[BusValue], RecorderError>) -> Void) {
        do throws(RecorderError) {
            let count = try Validation.peakCount(count, key: "count")
            guard let reference = reference(id: id) else { throw .noSuchMemo("memo \(id) no longer exists") }
            guard let peaks else { throw .unsupported("this daemon computes no peaks") }
            peaks.peaks(id: id, path: reference.path, count: count) { result in
                completion(result.map { [.array(elementSignature: "d", $0.map { .double($0) })] })
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// Puts `title` into the file's tags and name; the id stays. The file is rewritten on
    /// the file queue, so a long memo's copy never holds up the bus; `completion` runs on
    /// the queue once the memo is renamed and what changed is announced.
    func rename(id: String, to title: String, completion: @escaping (Result<Void, RecorderError>) -> Void) {
        afterFileWork(on: id) { [self] in
            let before: MemoInfo
            let newTitle: String
            do throws(RecorderError) {
                before = try memo(id)
                newTitle = try Validation.title(title, key: "title")
            } catch {
                return completion(.failure(error))
            }
            let newName = MemoNaming.renamedFileName(before.fileName, title: newTitle)
            let (oldPath, newPath) = (files.path(of: before.fileName), files.path(of: newName))
            guard newName == before.fileName || !FileManager.default.fileExists(atPath: newPath) else {
                return completion(
                    .failure(.invalidArgument("another memo is already named '\(newName)'; choose another title")))
            }
            schedule.startWork(on: id)
            let container = before.format.tagContainer
            let reply = QueueBound(completion, to: queue)
            fileQueue.async { [queue] in
                let result = Result { () throws(RecorderError) in
                    try Self.retitle(oldPath, to: newTitle, container: container, movingTo: newPath)
                }
                queue.async {
                    if case .success = result { self.renamed(before, title: newTitle, fileName: newName) }
                    reply.value(result)
                    self.endFileWork(on: id)
                }
            }
        }
    }

    /// Cuts memo `id`'s file as `cut` says (`MemoTrimming`), on the file queue; the memo's
    /// playback, if any, stops first (it would go on playing the old version). `completion`
    /// runs on the queue once the memo's new length and size are announced.
    func trim(id: String, _ cut: MemoTrimming.Cut, completion: @escaping (Result<Void, RecorderError>) -> Void) {
        afterFileWork(on: id) { [self] in
            let path: String
            let transcript: String?
            do throws(RecorderError) {
                let memo = try memo(id)
                path = files.path(of: memo.fileName)
                transcript = memo.transcript
            } catch {
                return completion(.failure(error))
            }
            if player.playing?.id == id { player.stop() }
            // A transcription of the old audio would be wrong for the new: asked again after.
            let wasTranscribing = [.queued, .running].contains(transcription?.status(of: id, hasTranscript: false))
            if wasTranscribing { transcription?.cancel(id) }
            schedule.startWork(on: id)
            let reply = QueueBound(completion, to: queue)
            fileQueue.async { [queue, trimming] in
                let result = Result { () throws(RecorderError) in
                    try trimming.trim(fileAt: path, cut, transcript: transcript)
                }
                queue.async {
                    if wasTranscribing { try? self.transcription?.transcribe(id) }
                    if case .success(true) = result, let memo = self.catalog[id],
                        let status = self.files.status(of: memo.fileName)
                    {
                        self.read(status)
                        self.scheduleCacheSave()
                        self.changed.notify()
                    }
                    reply.value(result.map { _ in })
                    self.endFileWork(on: id)
                }
            }
        }
    }

    /// Writes `title` into the file's tags, then gives the file its new name.
    private static func retitle(
        _ path: String, to title: String, container: TagContainer, movingTo newPath: String
    ) throws(RecorderError) {
        do {
            try TagEditor.setTitle(title, ofFileAt: path, container: container)
        } catch {
            throw .storage("cannot write the title into \(path): \(error.message)")
        }
        guard newPath != path else { return }
        do {
            try FileManager.default.moveItem(atPath: path, toPath: newPath)
        } catch {
            throw .storage("cannot rename \(path): \(error)")
        }
    }

    /// Takes a finished rename into the catalog and announces what changed.
    private func renamed(_ before: MemoInfo, title: String, fileName: String) {
        var memo = before
        memo.title = title
        memo.fileName = fileName
        if let status = files.status(of: memo.fileName) {
            memo.size = status.size
            memo.modified = status.modified
        }
        let announced = server.snapshot(
            of: [MemoMember.title, MemoMember.path, MemoMember.size].map(\.name), on: Contract.memoPath(id: memo.id),
            interface: Contract.memoInterface)
        catalog.insert(memo)
        scheduleCacheSave()
        server.announceChanges(since: announced)
        changed.notify()
    }

    /// Runs `operation` now, or once the file work under way on memo `id` has ended.
    private func afterFileWork(on id: String, _ operation: @escaping () -> Void) {
        schedule.submit(operation, on: id)?()
    }

    /// Runs the operations that waited for memo `id`, in order, until one starts file work
    /// of its own (the rest then wait for that); then a refresh that waited for all.
    private func endFileWork(on id: String) {
        schedule.finishWork(on: id)
        while let operation = schedule.nextJob(on: id) { operation() }
        if schedule.takeWaitingRefresh() { refresh() }
    }

    /// Moves the memo's file to the trash (or removes it for good), then stops its playback
    /// and takes its object off the bus; a refusal leaves all three as they were. Waits for
    /// a rename of the same memo under way, whose copy would otherwise bring the file back.
    func delete(id: String, permanently: Bool, completion: @escaping (Result<Void, RecorderError>) -> Void) {
        afterFileWork(on: id) { [self] in
            completion(Result { () throws(RecorderError) in try delete(id: id, permanently: permanently) })
        }
    }

    private func delete(id: String, permanently: Bool) throws(RecorderError) {
        let memo = try memo(id)
        let reference = reference(id: id)!
        if permanently {
            try MemoDirectory(path: files.directory).remove(reference)
        } else if FileManager.default.fileExists(atPath: reference.path) {
            // A file already gone needs no trashing; its object goes all the same.
            try trash.moveToTrash(reference.path)
        }
        if player.playing?.id == id { player.stop() }
        removeMemo(id: memo.id)
        scheduleCacheSave()
        changed.notify()
    }

    private func removeMemo(id: String) {
        guard catalog.remove(id: id) != nil else { return }
        transcription?.cancel(id)
        peaks?.forget(id: id)
        server.memberRemoved(id, below: Contract.memoParentPath)
    }

    // MARK: Transcripts

    /// `Transcribe`: queues memo `id`; NotAvailable without an engine.
    func transcribe(id: String) throws(RecorderError) {
        _ = try memo(id)
        guard let transcription else { throw .notAvailable("this daemon transcribes nothing") }
        try transcription.transcribe(id)
    }

    /// Queues a finished memo that was recorded to be transcribed.
    private func transcribeIfAsked(_ memo: MemoReference) {
        guard transcribeWhenFinished.remove(memo.id) != nil, catalog[memo.id] != nil, let transcription else { return }
        do {
            try transcription.transcribe(memo.id)
        } catch {
            Log.warning("memo \(memo.id) is not transcribed: \(error.message)")
        }
    }

    private func transcriptStatus(of memo: MemoInfo) -> TranscriptionStatus {
        transcription?.status(of: memo.id, hasTranscript: memo.transcript != nil)
            ?? (memo.transcript != nil ? .done : .none)
    }

    /// `TranscriptSegments`' `a(dds)`.
    private static func segments(of memo: MemoInfo) -> BusValue {
        let segments = memo.transcript.flatMap(Transcript.init(webVTT:))?.segments ?? []
        return .array(
            elementSignature: "(dds)",
            segments.map { .structure([.double($0.start), .double($0.end), .string($0.text)]) })
    }

    /// Writes `transcript` into the memo file's tags, on the file queue after any other file
    /// work on it, then takes it into the catalog; `completion` runs then (or at once if the
    /// memo went meanwhile).
    private func storeTranscript(
        _ transcript: Transcript, ofMemo id: String, completion: @escaping @Sendable () -> Void
    ) {
        afterFileWork(on: id) { [self] in
            guard let memo = catalog[id] else { return completion() }
            let path = files.path(of: memo.fileName)
            let text = transcript.webVTT
            schedule.startWork(on: id)
            fileQueue.async { [queue] in
                let result = Result { () throws(TagEditError) in
                    try TagEditor.setText(text, for: .transcript, ofFileAt: path, container: memo.format.tagContainer)
                }
                queue.async {
                    if case .failure(let error) = result {
                        Log.warning("cannot keep the transcript of memo \(id) in \(path): \(error.message)")
                    } else if var stored = self.catalog[id] {
                        stored.transcript = text
                        if let status = self.files.status(of: stored.fileName) {
                            stored.size = status.size
                            stored.modified = status.modified
                        }
                        let before = self.server.snapshot(
                            of: [MemoMember.size.name], on: Contract.memoPath(id: id), interface: Contract.memoInterface
                        )
                        self.catalog.insert(stored)
                        self.scheduleCacheSave()
                        self.server.announceChanges(since: before)
                    }
                    completion()
                    self.endFileWork(on: id)
                }
            }
        }
    }

    /// Writes the cache a moment after the last change, not on every one.
    private func scheduleCacheSave() {
        cacheSaving.schedule()
    }

    /// Saves the cache now (at exit).
    package func saveCache() {
        cacheSaving.saveNow()
    }
}

extension MemoLibraryService: TranscriptionClient {
    func pathOfMemo(_ id: String) -> String? { reference(id: id)?.path }

    func store(_ transcript: Transcript, ofMemo id: String, completion: @escaping @Sendable () -> Void) {
        storeTranscript(transcript, ofMemo: id, completion: completion)
    }

    /// Announces the status and the transcript together: the text changes only as the
    /// status becomes `done` (or a memo transcribed before is queued again).
    func transcriptStatusChanged(ofMemo id: String) {
        guard catalog[id] != nil else { return }
        server.propertiesChanged(
            on: Contract.memoPath(id: id), interface: Contract.memoInterface,
            names: [MemoMember.transcriptStatus.name, MemoMember.transcript.name])
    }
}
