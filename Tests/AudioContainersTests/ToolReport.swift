import Foundation

/// What the command-line tools that read memos outside voicememo make of a file: ffprobe
/// (ffmpeg, and so most players) and sox.
enum ToolReport {
    /// ffprobe's container name and duration in seconds (`format_name`, `duration`).
    static func ffprobe(_ path: String) throws -> (format: String, duration: Double) {
        let lines = try run(
            "ffprobe", ["-v", "error", "-show_entries", "format=format_name,duration", "-of", "default=nw=1", path]
        ).split(separator: "\n")
        func value(_ key: String) -> String? {
            lines.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        return (value("format_name") ?? "", value("duration").flatMap(Double.init) ?? -1)
    }

    /// What `sox --i` reads from the header: frames per channel (`-s`) and seconds (`-D`).
    static func sox(_ path: String) throws -> (frames: Int, duration: Double) {
        let frames = try run("sox", ["--i", "-s", path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let duration = try run("sox", ["--i", "-D", path]).trimmingCharacters(in: .whitespacesAndNewlines)
        return (Int(frames) ?? -1, Double(duration) ?? -1)
    }

    /// Has ffmpeg rewrite `input` as `output` with `ffmpegOptions` (such as `-rf64 always`).
    static func convert(_ input: String, to output: String, ffmpegOptions: [String]) throws {
        _ = try run("ffmpeg", ["-v", "error", "-y", "-i", input] + ffmpegOptions + [output])
    }

    /// Runs `tool` (found on the PATH) and returns its standard output; throws when it fails.
    fileprivate static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The reports are a few lines: reading to the end before waiting cannot block the tool.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(command: ([tool] + arguments).joined(separator: " "), message: complaint)
        }
        return text
    }
}

/// A tool that exited with an error, and what it said.
struct ToolFailure: Error, CustomStringConvertible {
    let command: String
    let message: String
    var description: String { "\(command): \(message)" }
}

extension ToolReport {
    /// The tags ffprobe reads from a file, by ffprobe's name for each: the container's
    /// (`format_tags`) and the first stream's (`stream_tags`, where Ogg keeps its comments).
    static func ffprobeTags(_ path: String) throws -> [String: String] {
        let json = try run(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", path])
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
        var tags = (report["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        let streams = report["streams"] as? [[String: Any]] ?? []
        for (key, value) in streams.first?["tags"] as? [String: String] ?? [:] { tags[key] = value }
        return tags
    }
}
