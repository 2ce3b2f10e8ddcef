import Bus
import Foundation
import Testing
import VoiceMemoContract
import VoiceMemoCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The typed members against the published contract, `data/org.example.VoiceMemo.xml`:
/// each member there has exactly one value here with the same signature, and nothing here
/// is missing there, so a drift either way fails.
@Suite("Typed contract members")
struct ContractXMLTests {
    /// One interface's members, one comparable line each ("method Record(out o memo)",
    /// "signal Levels(ad average_db, …)", "property State s read []").
    private struct Members: Equatable {
        var methods: [String] = []
        var signals: [String] = []
        var properties: [String] = []
    }

    @Test func theRecorderInterfaceIsTheXMLs() throws {
        let typed = Self.lines(
            methods: RecorderMember.methods, signals: RecorderMember.signals, properties: RecorderMember.properties)
        let published = try Self.members(of: Contract.recorderInterface.rawValue)
        #expect(typed.methods == published.methods)
        #expect(typed.signals == published.signals)
        #expect(typed.properties == published.properties)
        #expect(published.methods.count == 14 && published.signals.count == 8 && published.properties.count == 24)
    }

    @Test func theMemoInterfaceIsTheXMLs() throws {
        let typed = Self.lines(
            methods: MemoMember.methods, signals: MemoMember.signals, properties: MemoMember.properties)
        let published = try Self.members(of: Contract.memoInterface.rawValue)
        #expect(typed.methods == published.methods)
        #expect(typed.signals == published.signals)
        #expect(typed.properties == published.properties)
        #expect(published.methods.count == 9 && published.signals.isEmpty && published.properties.count == 11)
    }

    @Test func eachMemberHasOneValue() {
        for names in [
            RecorderMember.methods.map(\.name.rawValue), RecorderMember.signals.map(\.name.rawValue),
            RecorderMember.properties.map(\.name), MemoMember.methods.map(\.name.rawValue),
            MemoMember.properties.map(\.name),
        ] {
            #expect(Set(names).count == names.count, "a member listed twice in \(names)")
        }
    }

    /// Every `RecordingOption` is documented in the XML with its type, `"key" (s`, so a new
    /// option cannot ship unexplained.
    @Test func everyRecordingOptionIsDocumentedWithItsType() throws {
        let text = try String(contentsOf: Self.xmlURL, encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let undocumented = RecordingOption.all.filter { !text.contains("\"\($0.key)\" (\($0.kind.signature)") }
        #expect(undocumented.map(\.key) == [])
    }

    // MARK: Both sides as lines

    private static func lines(
        methods: [BusMethodDeclaration], signals: [BusSignalDeclaration], properties: [BusPropertyDeclaration]
    ) -> Members {
        func arguments(_ list: [BusArgument], direction: String?) -> String {
            list.map { (direction.map { $0 + " " } ?? "") + $0.signature + " " + $0.name }.joined(separator: ", ")
        }
        return Members(
            methods: methods.map { method in
                let all = [
                    arguments(method.inArguments, direction: "in"), arguments(method.outArguments, direction: "out"),
                ]
                return "method \(method.name)(\(all.filter { !$0.isEmpty }.joined(separator: ", ")))"
            }.sorted(),
            signals: signals.map { "signal \($0.name)(\(arguments($0.arguments, direction: nil)))" }.sorted(),
            properties: properties.map { property in
                let access = property.access == .readWrite ? "readwrite" : "read"
                let emits: String? =
                    switch property.changeSignal {
                    case .emits: nil
                    case .invalidates: "invalidates"
                    case .none: "false"
                    case .constant: "const"
                    }
                return "property \(property.name) \(property.signature) \(access) \(emits ?? "")"
            }.sorted())
    }

    /// `data/org.example.VoiceMemo.xml` in this checkout.
    private static let xmlURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("data/\(Contract.recorderInterface).xml")

    /// The XML read as lines for `interface`.
    private static func members(of interface: String) throws -> Members {
        let document = try XMLDocument(contentsOf: xmlURL, options: [])
        let nodes = try document.nodes(forXPath: "/node/interface[@name='\(interface)']")
        let element = try #require(nodes.first as? XMLElement, "no interface \(interface) in the XML")
        func attribute(_ element: XMLElement, _ key: String) -> String {
            element.attribute(forName: key)?.stringValue ?? ""
        }
        var members = Members()
        for child in element.children?.compactMap({ $0 as? XMLElement }) ?? [] {
            let name = attribute(child, "name")
            let arguments = child.elements(forName: "arg").map { argument in
                let direction = attribute(argument, "direction")
                let prefix = child.name == "method" ? (direction.isEmpty ? "in" : direction) + " " : ""
                return prefix + attribute(argument, "type") + " " + attribute(argument, "name")
            }.joined(separator: ", ")
            switch child.name {
            case "method": members.methods.append("method \(name)(\(arguments))")
            case "signal": members.signals.append("signal \(name)(\(arguments))")
            case "property":
                let emits = child.elements(forName: "annotation").first {
                    attribute($0, "name") == "org.freedesktop.DBus.Property.EmitsChangedSignal"
                }.map { attribute($0, "value") }
                members.properties.append(
                    "property \(name) \(attribute(child, "type")) \(attribute(child, "access")) \(emits ?? "")")
            default:
                Issue.record("unexpected element \(child.name ?? "?") in \(interface)")
            }
        }
        members.methods.sort()
        members.signals.sort()
        members.properties.sort()
        return members
    }
}
