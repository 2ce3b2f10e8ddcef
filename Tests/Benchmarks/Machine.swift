import Foundation

/// The machine a benchmark ran on, as the README quotes it.
enum Machine {
    /// E.g. "2 × AMD EPYC, Linux 6.1.0-18-amd64".
    static var summary: String {
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        return "\(ProcessInfo.processInfo.activeProcessorCount) × \(model), Linux \(release)"
    }
}
