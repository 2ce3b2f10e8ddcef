import Foundation
import Testing
import VoiceMemoContract

/// Keeps the contract's member names spelled once: outside `Sources/VoiceMemoContract`, no
/// string literal in `Sources/` or `Tests/` equals the name of a member of either contract
/// interface, so a renamed member cannot compile on one side and break at run time on the
/// other. Tests that spell names on purpose say so below.
@Suite("Contract member names are spelled once")
struct MemberLiteralTests {
    /// Literals that are another interface's members or values, which happen to share a
    /// name with one of the contract's: file name, literal.
    private static let otherInterfaces: Set<[String]> = [
        // org.mpris.MediaPlayer2.Player's methods and PlaybackStatus values.
        ["MediaPlayerService.swift", "Play"], ["MediaPlayerService.swift", "Pause"],
        ["MediaPlayerService.swift", "Stop"], ["MediaPlayerView.swift", "Playing"],
        // org.kde.StatusNotifierItem's properties.
        ["StatusNotifierItemService.swift", "Id"], ["StatusNotifierItemService.swift", "Title"],
        // The tray menu's labels, as a user reads and clicks them, and the item's Id.
        ["TrayItemTests.swift", "Record"], ["TrayItemTests.swift", "Pause"], ["TrayItemTests.swift", "Resume"],
        ["TrayItemTests.swift", "Stop"], ["TrayItemTests.swift", "Cancel"], ["TrayItemTests.swift", "Id"],
        ["PanelTests.swift", "Record"], ["PanelTests.swift", "Stop"],
        // The GNOME Shell indicator's menu labels.
        ["GnomeShellTests.swift", "Record"], ["GnomeShellTests.swift", "Pause"], ["GnomeShellTests.swift", "Resume"],
        ["GnomeShellTests.swift", "Stop"], ["GnomeShellTests.swift", "Cancel"],
        // MPRIS PlaybackStatus values.
        ["DesktopIntegrationTests.swift", "Playing"], ["PlaybackRateAcceptanceTests.swift", "Playing"],
        ["MediaPlayerViewTests.swift", "Playing"],
        // A .trashinfo file's key.
        ["TrashAcceptanceTests.swift", "Path"],
    ]

    /// Tests whose point is to spell the names as a client would, right and wrong: file name,
    /// and why.
    private static let spellsNamesOnPurpose: [String: String] = [
        "HostileInputTests.swift": "its fuzzer sends member names as strings, real ones and made-up ones",
        "RecorderPropertyTests.swift": "it checks each property's spelling against the contract's",
        "MemberLiteralTests.swift": "its own sample of the scan",
    ]

    @Test func noSourceOutsideTheContractSpellsAMemberName() throws {
        let names = Set(
            RecorderMember.methods.map(\.name.rawValue) + RecorderMember.signals.map(\.name.rawValue)
                + RecorderMember.properties.map(\.name) + MemoMember.methods.map(\.name.rawValue)
                + MemoMember.signals.map(\.name.rawValue) + MemoMember.properties.map(\.name))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var found: [String] = []
        for folder in ["Sources", "Tests"] {
            let directory = root.appendingPathComponent(folder)
            let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("VoiceMemoContract/") }.sorted()
            #expect(files.count > 50, "the scan sees \(folder)")
            for file in files {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                let fileName = String(file.split(separator: "/").last!)
                guard Self.spellsNamesOnPurpose[fileName] == nil else { continue }
                for (number, literal) in Self.stringLiterals(in: text)
                where names.contains(literal) && !Self.otherInterfaces.contains([fileName, literal]) {
                    found.append("\(folder)/\(file):\(number): \"\(literal)\"")
                }
            }
        }
        #expect(found.isEmpty, "use RecorderMember or MemoMember instead of:\n\(found.joined(separator: "\n"))")
    }

    @Test func theScanFindsLiteralsAndSkipsComments() {
        let text = """
            // "Record" in a comment
            call("Record") // "Stop"
            print("time \\(x ? "Pause" : "a")")
            let usage = \"\"\"
                Cancel
                \"\"\"
            """
        #expect(Self.stringLiterals(in: text).map(\.literal) == ["Record", "Pause", "a"])
    }

    /// The simple string literals (those without interpolations) on each line of Swift
    /// `text`, with their line numbers; comments and multi-line string literals are skipped.
    static func stringLiterals(in text: String) -> [(line: Int, literal: String)] {
        var literals: [(line: Int, literal: String)] = []
        var inMultiLineLiteral = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.contains("\"\"\"") {
                inMultiLineLiteral.toggle()
                continue
            }
            if inMultiLineLiteral || line.drop(while: { $0 == " " }).hasPrefix("//") { continue }
            literals += lexLiterals(Array(line)).map { (index + 1, $0) }
        }
        return literals
    }

    /// One line's literals: a string ends at its closing quote, an interpolation in it at
    /// the parenthesis that closes it, and code at a `//` comment.
    private static func lexLiterals(_ characters: [Character]) -> [String] {
        enum Context {
            case code(parentheses: Int)
            case string(text: String, isInterpolated: Bool)
        }
        var stack: [Context] = [.code(parentheses: 0)]
        var literals: [String] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            switch stack.removeLast() {
            case .code(let parentheses):
                if character == "/" && next == "/" { return literals }
                if character == "\"" {
                    stack.append(.code(parentheses: parentheses))
                    stack.append(.string(text: "", isInterpolated: false))
                } else if character == "(" {
                    stack.append(.code(parentheses: parentheses + 1))
                } else if character == ")" && parentheses == 1 && stack.count > 1 {
                    // The end of an interpolation: back in the string around it.
                } else {
                    stack.append(.code(parentheses: character == ")" ? max(parentheses - 1, 0) : parentheses))
                }
            case .string(let text, let isInterpolated):
                if character == "\\" && next == "(" {
                    stack.append(.string(text: text, isInterpolated: true))
                    stack.append(.code(parentheses: 1))
                    index += 1
                } else if character == "\\" {
                    stack.append(
                        .string(text: text + String(character) + String(next ?? " "), isInterpolated: isInterpolated))
                    index += 1
                } else if character == "\"" {
                    if !isInterpolated { literals.append(text) }
                } else {
                    stack.append(.string(text: text + String(character), isInterpolated: isInterpolated))
                }
            }
            index += 1
            if stack.isEmpty { stack = [.code(parentheses: 0)] }
        }
        return literals
    }
}
