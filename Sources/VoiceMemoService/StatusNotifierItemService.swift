import Bus
import Dispatch
import VoiceMemoCore
import VoiceMemoRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The tray item: `org.kde.StatusNotifierItem` at `/StatusNotifierItem`, as KDE Plasma,
/// XFCE, Cinnamon, LXQt, Budgie, waybar's tray and GNOME's AppIndicator extension host it,
/// with its menu (`TrayMenuService`) at `/MenuBar`. D-Bus only, no toolkit.
///
/// While `TrayEnabled` holds, the item owns `org.kde.StatusNotifierItem-<pid>-1` (KDE's
/// convention) and registers that name with `org.kde.StatusNotifierWatcher`: now if a
/// watcher runs, and again whenever one appears (NameOwnerChanged). Turned off, the objects
/// go and the name is released, which is how a watcher learns the item is gone. No watcher,
/// no log line. The look follows `TrayPresentation`; while recording (and only then) a
/// one-second timer refreshes the tooltip's clock.
///
/// While GNOME Shell's voicememo extension runs it owns `org.example.VoiceMemo.ShellIndicator`
/// and is the recorder's icon in the top bar: the item is then withdrawn (as if `TrayEnabled`
/// were off), so the AppIndicator extension does not show a second icon, and comes back as
/// soon as that name loses its owner (NameOwnerChanged).
///
/// Lives on the daemon's queue with the recorder and the bus connection.
package final class StatusNotifierItemService {
    static let path = ObjectPath("/StatusNotifierItem")
    static let interface = InterfaceName("org.kde.StatusNotifierItem")
    static let watcher = BusName("org.kde.StatusNotifierWatcher")
    static let watcherPath = ObjectPath("/StatusNotifierWatcher")
    static let watcherInterface = InterfaceName("org.kde.StatusNotifierWatcher")
    /// Owned by the GNOME Shell extension while it shows the recorder in the top bar.
    static let shellIndicator = BusName("org.example.VoiceMemo.ShellIndicator")

    private let recorder: Recorder
    private let library: MemoLibraryService
    private let server: BusObjectServer
    private let queue: DispatchQueue
    private let iconThemePath: String
    private let input: () -> String
    private let menu: TrayMenuService
    private let folders: FolderOpener
    /// The name registered with the watcher.
    let itemName = BusName("org.kde.StatusNotifierItem-\(getpid())-1")
    private(set) var isShown = false
    /// Whether the shell's own indicator runs, so the item stays withdrawn.
    private var isShellIndicatorRunning = false
    private var tooltipTimer: DispatchSourceTimer?
    /// The look last announced, so signals go out only for real changes.
    private var announced: TrayPresentation.Appearance?

    package init(
        recorder: Recorder, library: MemoLibraryService, server: BusObjectServer, queue: DispatchQueue,
        input: @escaping () -> String
    ) {
        self.recorder = recorder
        self.library = library
        self.server = server
        self.queue = queue
        self.input = input
        iconThemePath = TrayIcons.themePath()
        folders = FolderOpener(connection: server.connection)
        menu = TrayMenuService(
            server: server,
            content: { [recorder, library, input] in
                let recent = library.newest(5).map { memo -> (id: String, label: String) in
                    let name = memo.title.isEmpty ? memo.fileName : memo.title
                    return (memo.id, "\(name) (\(TrayPresentation.clock(memo.duration)))")
                }
                return TrayMenuService.Content(state: recorder.state, input: input(), recentMemos: recent)
            })
        menu.onCommand = { [weak self] command in self?.perform(command) }
        library.changed.observe { [weak self] in self?.menu.refresh() }
        recorder.notifications.observe { [weak self] notification in
            guard case .changed(let properties) = notification else { return }
            self?.recorderChanged(properties)
        }
    }

    /// Follows the watcher and the shell's indicator, and shows the item if the settings say
    /// so and no shell indicator runs. Call once, after the daemon's own name is owned.
    package func start() {
        try? server.connection.addMatch(.nameOwnerChanged(of: Self.watcher))
        try? server.connection.addMatch(.nameOwnerChanged(of: Self.shellIndicator))
        try? server.connection.addMatch(
            .signals(interface: Self.watcherInterface, member: MemberName("StatusNotifierHostRegistered")))
        server.connection.addSignalHandler { [weak self] signal in
            if signal.sender == BusName.bus.rawValue, signal.member.rawValue == "NameOwnerChanged",
                signal.arguments.first?.string == Self.shellIndicator.rawValue
            {
                self?.isShellIndicatorRunning = signal.arguments.last?.string?.isEmpty == false
                self?.updateShown()
                return
            }
            let watcherAppeared =
                signal.sender == BusName.bus.rawValue && signal.member.rawValue == "NameOwnerChanged"
                && signal.arguments.first?.string == Self.watcher.rawValue
                && signal.arguments.last?.string?.isEmpty == false
            let hostRegistered =
                signal.interface == Self.watcherInterface && signal.member.rawValue == "StatusNotifierHostRegistered"
            guard watcherAppeared || hostRegistered else { return }
            self?.register()
        }
        // Asked before the item's name is requested: this answer comes first, so with a shell
        // indicator running the item is withdrawn before it would register with a watcher.
        server.connection.call(
            destination: .bus, path: .bus, interface: .bus, member: MemberName("NameHasOwner"),
            arguments: [.string(Self.shellIndicator.rawValue)]
        ) { [weak self] result in
            self?.isShellIndicatorRunning = (try? result.get().first?.boolean) == true
            self?.updateShown()
        }
        updateShown()
    }

    private func updateShown() {
        setShown(recorder.defaults.isTrayEnabled && !isShellIndicatorRunning)
    }

    private func recorderChanged(_ properties: [RecorderProperty]) {
        if properties.contains(.trayEnabled) { updateShown() }
        guard isShown,
            properties.contains(.state) || properties.contains(.activeSource) || properties.contains(.activeOutput)
        else { return }
        announce()
        menu.refresh()
        updateTimer()
    }

    // MARK: Showing and registering

    private func setShown(_ shown: Bool) {
        guard shown != isShown else { return }
        isShown = shown
        let connection = server.connection
        if shown {
            announced = appearance
            server.export(Self.path, interfaces: [itemInterface])
            menu.setExported(true)
            // DO_NOT_QUEUE (4): the name is ours alone (it carries our pid).
            connection.call(
                destination: .bus, path: .bus, interface: .bus, member: MemberName("RequestName"),
                arguments: [.string(itemName.rawValue), .uint32(4)]
            ) { [weak self] result in
                if case .failure(let error) = result {
                    Log.warning("cannot own the tray item's name: \(error.message)")
                }
                self?.register()
            }
        } else {
            server.unexport(Self.path)
            menu.setExported(false)
            connection.call(
                destination: .bus, path: .bus, interface: .bus, member: MemberName("ReleaseName"),
                arguments: [.string(itemName.rawValue)]
            ) { _ in }
        }
        updateTimer()
    }

    /// Registers with the watcher if there is one; asks the bus first, so nothing is
    /// activated and no error is logged when no panel runs.
    ///
    /// The item registers once a panel's host has registered with the watcher: a host still
    /// starting can miss an item registered before it listens (a restarted waybar did, one
    /// time in four), and until a host is there nothing would show the item anyway. A
    /// watcher that cannot say whether it has a host is asked all the same.
    private func register() {
        guard isShown else { return }
        let connection = server.connection
        connection.call(
            destination: .bus, path: .bus, interface: .bus, member: MemberName("NameHasOwner"),
            arguments: [.string(Self.watcher.rawValue)]
        ) { [weak self] result in
            guard let self, self.isShown, (try? result.get().first?.boolean) == true else { return }
            connection.call(
                destination: Self.watcher, path: Self.watcherPath, interface: .properties, member: MemberName("Get"),
                arguments: [.string(Self.watcherInterface.rawValue), .string("IsStatusNotifierHostRegistered")]
            ) { [weak self] result in
                if case .success(let values) = result, values.first?.variant?.boolean == false { return }
                self?.registerWithWatcher()
            }
        }
    }

    private func registerWithWatcher() {
        guard isShown else { return }
        server.connection.call(
            destination: Self.watcher, path: Self.watcherPath, interface: Self.watcherInterface,
            member: MemberName("RegisterStatusNotifierItem"), arguments: [.string(itemName.rawValue)]
        ) { result in
            if case .failure(let error) = result, error.name.rawValue != "org.freedesktop.DBus.Error.ServiceUnknown" {
                Log.warning("the tray's watcher refused the item: \(error.message)")
            }
        }
    }

    // MARK: The look

    private var appearance: TrayPresentation.Appearance {
        TrayPresentation.appearance(
            state: recorder.state, time: recorder.currentTime, input: input(), output: recorder.activeOutput,
            title: recorder.currentTitle)
    }

    private var toolTip: BusValue {
        let look = appearance
        return .structure([
            .string(look.iconName), .array(elementSignature: "(iiay)", []), .string(look.tooltipTitle),
            .string(look.tooltipBody),
        ])
    }

    /// Emits NewStatus, NewIcon and NewToolTip for what changed since the last announcement.
    private func announce() {
        let now = appearance
        defer { announced = now }
        if now.status != announced?.status { emit("NewStatus", [.string(now.status.rawValue)]) }
        if now.iconName != announced?.iconName { emit("NewIcon", []) }
        if now != announced { emit("NewToolTip", []) }
    }

    /// The tooltip's clock moves only while recording: a one-second timer then, none otherwise.
    private func updateTimer() {
        let ticks = isShown && TrayPresentation.tooltipTicks(in: recorder.state)
        if !ticks {
            tooltipTimer?.cancel()
            tooltipTimer = nil
            return
        }
        guard tooltipTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(200))
        timer.setEventHandler { [weak self] in self?.announce() }
        timer.activate()
        tooltipTimer = timer
    }

    private func emit(_ signal: String, _ arguments: [BusValue]) {
        guard isShown else { return }
        server.emit(MemberName(signal), on: Self.path, interface: Self.interface, arguments: arguments)
    }

    // MARK: Actions

    /// Left click: what the hotkey's Toggle does.
    private func activate() {
        recorder.toggle { result in
            if case .failure(let error) = result { Log.warning("tray click: \(error.message)") }
        }
    }

    /// Middle click: pause a recording, resume a paused one; nothing otherwise.
    private func secondaryActivate() {
        switch recorder.state {
        case .recording: perform(.recorder(.pause))
        case .paused: perform(.recorder(.resume))
        default: break
        }
    }

    private func perform(_ command: TrayMenuService.Command) {
        let report: (Result<Void, RecorderError>) -> Void = { result in
            if case .failure(let error) = result { Log.warning("tray menu: \(error.message)") }
        }
        switch command {
        case .recorder(.record): recorder.record { report($0.map { _ in }) }
        case .recorder(.recordCall):
            recorder.record(options: ["system-audio": .boolean(true)]) { report($0.map { _ in }) }
        case .recorder(.pause): recorder.pause(completion: report)
        case .recorder(.resume): report(Result { () throws(RecorderError) in try recorder.resume() })
        case .recorder(.stop): recorder.stop { report($0.map { _ in }) }
        case .recorder(.cancel): recorder.cancel(completion: report)
        case .play(let id): report(Result { () throws(RecorderError) in try library.play(id: id) })
        case .openFolder: folders.show(recorder.directory.path)
        }
    }

    // MARK: The table

    private var itemInterface: BusInterface {
        let position = [BusArgument("x", "i"), BusArgument("y", "i")]
        let noPixmap = BusValue.array(elementSignature: "(iiay)", [])
        return BusInterface(
            name: Self.interface,
            methods: [
                BusMethod("Activate", in: position) { [weak self] call in
                    self?.activate()
                    call.reply()
                },
                BusMethod("SecondaryActivate", in: position) { [weak self] call in
                    self?.secondaryActivate()
                    call.reply()
                },
                // The menu is exported (Menu); hosts show it themselves.
                BusMethod("ContextMenu", in: position) { call in call.reply() },
                BusMethod("Scroll", in: [BusArgument("delta", "i"), BusArgument("orientation", "s")]) { call in
                    call.reply()
                },
            ],
            properties: [
                BusProperty("Category", "s", changeSignal: .constant) { .string("ApplicationStatus") },
                BusProperty("Id", "s", changeSignal: .constant) { .string("voicememo") },
                BusProperty("Title", "s", changeSignal: .constant) { .string("Voice Memos") },
                BusProperty("Status", "s", changeSignal: .none) { [weak self] in
                    .string(self?.appearance.status.rawValue ?? "Passive")
                },
                BusProperty("WindowId", "i", changeSignal: .constant) { .int32(0) },
                BusProperty("IconName", "s", changeSignal: .none) { [weak self] in
                    .string(self?.appearance.iconName ?? "")
                },
                BusProperty("IconPixmap", "a(iiay)", changeSignal: .constant) { noPixmap },
                BusProperty("OverlayIconName", "s", changeSignal: .constant) { .string("") },
                BusProperty("OverlayIconPixmap", "a(iiay)", changeSignal: .constant) { noPixmap },
                BusProperty("AttentionIconName", "s", changeSignal: .constant) {
                    .string(TrayPresentation.iconName(of: .interrupted))
                },
                BusProperty("AttentionIconPixmap", "a(iiay)", changeSignal: .constant) { noPixmap },
                BusProperty("AttentionMovieName", "s", changeSignal: .constant) { .string("") },
                BusProperty("ToolTip", "(sa(iiay)ss)", changeSignal: .none) { [weak self] in
                    self?.toolTip ?? .structure([.string(""), noPixmap, .string(""), .string("")])
                },
                BusProperty("IconThemePath", "s", changeSignal: .constant) { [iconThemePath] in .string(iconThemePath)
                },
                BusProperty("Menu", "o", changeSignal: .constant) { .objectPath(TrayMenuService.path) },
                BusProperty("ItemIsMenu", "b", changeSignal: .constant) { .boolean(false) },
            ],
            signals: [
                BusSignalSpec("NewTitle", []),
                BusSignalSpec("NewIcon", []),
                BusSignalSpec("NewAttentionIcon", []),
                BusSignalSpec("NewOverlayIcon", []),
                BusSignalSpec("NewToolTip", []),
                BusSignalSpec("NewStatus", [BusArgument("status", "s")]),
            ])
    }
}
