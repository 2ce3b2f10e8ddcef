import Foundation

/// This checkout, whose shipped files (`data/`, the Makefile) the tests read as they are.
package enum Checkout {
    /// The checkout's top folder.
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `custom/voicememo` block of the shipped `data/waybar-voicememo.jsonc`, read after
    /// dropping its `//` comment lines, as waybar's JSONC reader skips them.
    package static func waybarModule() throws -> [String: Any] {
        let text = try String(contentsOf: root.appendingPathComponent("data/waybar-voicememo.jsonc"), encoding: .utf8)
        let json = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        guard let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let module = root["custom/voicememo"] as? [String: Any]
        else {
            throw FixtureError.unexpectedReply("data/waybar-voicememo.jsonc holds a \"custom/voicememo\" object")
        }
        return module
    }
}
