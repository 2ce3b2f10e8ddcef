import Bus
import VoiceMemoContract
import VoiceMemoCore

/// The tray item's menu, `com.canonical.dbusmenu` at `/MenuBar`: the recorder's actions
/// (greyed out where the state does not allow them), the five newest memos to play, the
/// memo folder, and the live input's name as a label.
///
/// The layout is rebuilt from the recorder and the library when either changes and when a
/// host is about to show it (the input can change while idle with nobody telling us);
/// each real change bumps the revision and emits `LayoutUpdated`. Nothing runs on a timer.
///
/// Lives on the daemon's queue with the recorder and the bus connection.
package final class TrayMenuService {
    static let path = ObjectPath("/MenuBar")
    static let interface = InterfaceName("com.canonical.dbusmenu")

    /// What a menu item does when clicked.
    package enum Command: Equatable {
        case recorder(TrayPresentation.Action)
        case play(memoID: String)
        case openFolder
    }

    /// One row of the menu: its id, its dbusmenu properties and what a click does.
    package struct Item: Equatable {
        package var id: Int32
        package var properties: [String: BusValue]
        package var command: Command?
    }

    /// What the menu is built from; supplied by the tray item.
    package struct Content {
        package var state: RecorderState
        package var input: String
        /// The newest memos, at most five: id and label.
        package var recentMemos: [(id: String, label: String)]

        package init(state: RecorderState, input: String, recentMemos: [(id: String, label: String)]) {
            self.state = state
            self.input = input
            self.recentMemos = recentMemos
        }
    }

    private let server: BusObjectServer
    private let content: () -> Content
    /// Runs a clicked item's command; set by the tray item.
    var onCommand: ((Command) -> Void)?
    private(set) var revision: UInt32 = 1
    private(set) var items: [Item] = []
    private var isExported = false

    init(server: BusObjectServer, content: @escaping () -> Content) {
        self.server = server
        self.content = content
        items = Self.items(for: content())
    }

    /// Serves the menu (or stops serving it) at `path`.
    func setExported(_ exported: Bool) {
        guard exported != isExported else { return }
        isExported = exported
        if exported {
            items = Self.items(for: content())
            server.export(Self.path, interfaces: [menuInterface])
        } else {
            server.unexport(Self.path)
        }
    }

    /// Rebuilds the layout; returns whether it changed (then `LayoutUpdated` went out).
    @discardableResult
    func refresh() -> Bool {
        let fresh = Self.items(for: content())
        guard fresh != items else { return false }
        items = fresh
        revision &+= 1
        if isExported {
            server.emit(
                MemberName("LayoutUpdated"), on: Self.path, interface: Self.interface,
                arguments: [.uint32(revision), .int32(0)])
        }
        return true
    }

    // MARK: The layout

    /// Fixed ids, so a host's open menu keeps pointing at the same actions (a call's came
    /// later: 12); memos get 100…104.
    private static let actionIDs: [TrayPresentation.Action: Int32] = [
        .record: 1, .recordCall: 12, .pause: 2, .resume: 3, .stop: 4, .cancel: 5,
    ]
    private static let firstMemoID: Int32 = 100

    /// An action's label: the name of the recorder method it stands for, so the menu and
    /// the bus speak alike; a call is `RecordWithOptions` with system audio, which would
    /// read as nothing, so it says what it does.
    private static func actionLabel(_ action: TrayPresentation.Action) -> String {
        if action == .recordCall { return "Record call" }
        let method =
            switch action {
            case .record, .recordCall: RecorderMember.record
            case .pause: RecorderMember.pause
            case .resume: RecorderMember.resume
            case .stop: RecorderMember.stop
            case .cancel: RecorderMember.cancel
            }
        return method.name.rawValue
    }

    /// The menu's rows for `content`, in order.
    package static func items(for content: Content) -> [Item] {
        func label(_ text: String, enabled: Bool = true) -> [String: BusValue] {
            ["label": .string(text), "enabled": .boolean(enabled)]
        }
        let separator: [String: BusValue] = ["type": .string("separator")]
        var items = TrayPresentation.Action.allCases.map { action in
            Item(
                id: actionIDs[action]!,
                properties: label(actionLabel(action), enabled: TrayPresentation.isEnabled(action, in: content.state)),
                command: .recorder(action))
        }
        items.append(Item(id: 6, properties: separator))
        if content.recentMemos.isEmpty {
            items.append(Item(id: 7, properties: label("No memos yet", enabled: false)))
        }
        for (offset, memo) in content.recentMemos.prefix(5).enumerated() {
            items.append(
                Item(
                    id: firstMemoID + Int32(offset), properties: label("Play \(memo.label)"),
                    command: .play(memoID: memo.id)))
        }
        items.append(Item(id: 8, properties: separator))
        items.append(Item(id: 9, properties: label("Open memo folder"), command: .openFolder))
        items.append(Item(id: 10, properties: separator))
        let input = content.input.isEmpty ? "no input" : content.input
        items.append(Item(id: 11, properties: label("Input: \(input)", enabled: false)))
        return items
    }

    private static let rootProperties: [String: BusValue] = ["children-display": .string("submenu")]

    /// `(ia{sv}av)` for `id` (0 is the root, holding every item), properties narrowed to
    /// `names` when that is not empty.
    private func layout(of id: Int32, depth: Int32, names: [String]) throws(BusError) -> BusValue {
        func filtered(_ properties: [String: BusValue]) -> BusValue {
            .stringDictionary(names.isEmpty ? properties : properties.filter { names.contains($0.key) })
        }
        let noChildren = BusValue.array(elementSignature: "v", [])
        if id == 0 {
            let children =
                depth == 0
                ? []
                : items.map { item in
                    BusValue.variant(.structure([.int32(item.id), filtered(item.properties), noChildren]))
                }
            return .structure([.int32(0), filtered(Self.rootProperties), .array(elementSignature: "v", children)])
        }
        let item = try self.item(id)
        return .structure([.int32(item.id), filtered(item.properties), noChildren])
    }

    private func item(_ id: Int32) throws(BusError) -> Item {
        guard let item = items.first(where: { $0.id == id }) else {
            throw .invalidArgs("the menu has no item \(id); call GetLayout for the current items")
        }
        return item
    }

    private func properties(of id: Int32) throws(BusError) -> [String: BusValue] {
        id == 0 ? Self.rootProperties : try item(id).properties
    }

    /// A click on an enabled item runs its command; other events (hovered, opened, closed)
    /// and clicks on greyed-out items do nothing.
    private func handle(event: String, on id: Int32) throws(BusError) {
        let properties = try properties(of: id)
        guard event == "clicked", properties["enabled"] != .boolean(false),
            let command = items.first(where: { $0.id == id })?.command
        else { return }
        onCommand?(command)
    }

    // MARK: The table

    private var menuInterface: BusInterface {
        let propertyEntry = "(ia{sv})"
        return BusInterface(
            name: Self.interface,
            methods: [
                BusMethod(
                    "GetLayout",
                    in: [
                        BusArgument("parentId", "i"), BusArgument("recursionDepth", "i"),
                        BusArgument("propertyNames", "as"),
                    ],
                    out: [BusArgument("revision", "u"), BusArgument("layout", "(ia{sv}av)")]
                ) { [weak self] call in
                    guard let self else { return call.reply() }
                    self.refresh()
                    let names = call.arguments[2].array?.compactMap(\.string) ?? []
                    do throws(BusError) {
                        let layout = try self.layout(
                            of: call.arguments[0].int32 ?? 0, depth: call.arguments[1].int32 ?? -1, names: names)
                        call.reply([.uint32(self.revision), layout])
                    } catch {
                        call.fail(error)
                    }
                },
                BusMethod(
                    "GetGroupProperties", in: [BusArgument("ids", "ai"), BusArgument("propertyNames", "as")],
                    out: [BusArgument("properties", "a(ia{sv})")]
                ) { [weak self] call in
                    guard let self else { return call.reply() }
                    let names = call.arguments[1].array?.compactMap(\.string) ?? []
                    // An empty id list means every item; unknown ids are left out, as libdbusmenu does.
                    var ids = call.arguments[0].array?.compactMap(\.int32) ?? []
                    if ids.isEmpty { ids = [0] + self.items.map(\.id) }
                    let entries = ids.compactMap { id -> BusValue? in
                        guard let properties = try? self.properties(of: id) else { return nil }
                        let chosen = names.isEmpty ? properties : properties.filter { names.contains($0.key) }
                        return .structure([.int32(id), .stringDictionary(chosen)])
                    }
                    call.reply([.array(elementSignature: propertyEntry, entries)])
                },
                BusMethod(
                    "GetProperty", in: [BusArgument("id", "i"), BusArgument("name", "s")],
                    out: [BusArgument("value", "v")]
                ) { [weak self] call in
                    guard let self else { return call.reply() }
                    let (id, name) = (call.arguments[0].int32 ?? 0, call.arguments[1].string ?? "")
                    do throws(BusError) {
                        guard let value = try self.properties(of: id)[name] else {
                            throw .invalidArgs("menu item \(id) has no property '\(name)'")
                        }
                        call.reply([.variant(value)])
                    } catch {
                        call.fail(error)
                    }
                },
                BusMethod(
                    "Event",
                    in: [
                        BusArgument("id", "i"), BusArgument("eventId", "s"), BusArgument("data", "v"),
                        BusArgument("timestamp", "u"),
                    ]
                ) { [weak self] call in
                    do throws(BusError) {
                        try self?.handle(event: call.arguments[1].string ?? "", on: call.arguments[0].int32 ?? -1)
                        call.reply()
                    } catch {
                        call.fail(error)
                    }
                },
                BusMethod("EventGroup", in: [BusArgument("events", "a(isvu)")], out: [BusArgument("idErrors", "ai")]) {
                    [weak self] call in
                    var errors: [BusValue] = []
                    for event in call.arguments[0].array ?? [] {
                        guard let fields = event.structure, let id = fields.first?.int32 else { continue }
                        do throws(BusError) {
                            try self?.handle(event: fields[1].string ?? "", on: id)
                        } catch {
                            errors.append(.int32(id))
                        }
                    }
                    call.reply([.array(elementSignature: "i", errors)])
                },
                BusMethod("AboutToShow", in: [BusArgument("id", "i")], out: [BusArgument("needUpdate", "b")]) {
                    [weak self] call in
                    guard let self else { return call.reply([.boolean(false)]) }
                    let id = call.arguments[0].int32 ?? -1
                    guard id == 0 || self.items.contains(where: { $0.id == id }) else {
                        return call.fail(
                            .invalidArgs("the menu has no item \(id); call GetLayout for the current items"))
                    }
                    call.reply([.boolean(self.refresh())])
                },
                BusMethod(
                    "AboutToShowGroup", in: [BusArgument("ids", "ai")],
                    out: [BusArgument("updatesNeeded", "ai"), BusArgument("idErrors", "ai")]
                ) { [weak self] call in
                    guard let self else {
                        return call.reply([.array(elementSignature: "i", []), .array(elementSignature: "i", [])])
                    }
                    let ids = call.arguments[0].array?.compactMap(\.int32) ?? []
                    let known = Set([0] + self.items.map(\.id))
                    let changed = self.refresh()
                    let updates = changed ? ids.filter { known.contains($0) } : []
                    call.reply([
                        .array(elementSignature: "i", updates.map { .int32($0) }),
                        .array(elementSignature: "i", ids.filter { !known.contains($0) }.map { .int32($0) }),
                    ])
                },
            ],
            properties: [
                BusProperty("Version", "u", changeSignal: .constant) { .uint32(3) },
                BusProperty("TextDirection", "s", changeSignal: .constant) { .string("ltr") },
                BusProperty("Status", "s", changeSignal: .constant) { .string("normal") },
                BusProperty("IconThemePath", "as", changeSignal: .constant) { .stringArray([]) },
            ],
            signals: [
                BusSignalSpec(
                    "ItemsPropertiesUpdated",
                    [BusArgument("updatedProps", "a(ia{sv})"), BusArgument("removedProps", "a(ias)")]),
                BusSignalSpec("LayoutUpdated", [BusArgument("revision", "u"), BusArgument("parent", "i")]),
                BusSignalSpec("ItemActivationRequested", [BusArgument("id", "i"), BusArgument("timestamp", "u")]),
            ])
    }
}
