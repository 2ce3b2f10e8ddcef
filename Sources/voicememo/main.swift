import Bus
import VoiceMemoContract

#if canImport(Glibc)
    import Glibc
#endif

// voicememo: the command-line client of the voicememod recorder daemon.

/// Exit statuses from sysexits.h, as shells and scripts expect.
enum ExitStatus {
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let unavailable: Int32 = 69
}

let overview = """
    voicememo: record voice memos through the voicememod daemon.

    Usage: voicememo <command> [options]

    Commands:
    \(subcommands.map { "  " + $0.name + String(repeating: " ", count: max(1, 9 - $0.name.count)) + $0.abstract }.joined(separator: "\n"))

    Run 'voicememo <command> --help' for a command's options, 'voicememo --version' for the release.
    """

func fail(_ status: Int32, _ message: String) -> Never {
    fputs("voicememo: \(message)\n", standardError)
    exit(status)
}

var words = Array(CommandLine.arguments.dropFirst())
guard let name = words.first else { fail(ExitStatus.usage, "missing command\n\n" + overview) }
words.removeFirst()
if name == "--help" || name == "-h" || name == "help" {
    print(overview)
    exit(0)
}
if name == "--version" {
    print("voicememo \(Release.version)")
    exit(0)
}
guard let command = subcommands.first(where: { $0.name == name }) else {
    fail(ExitStatus.usage, "unknown command '\(name)'\n\n" + overview)
}
if words.contains("--help") || words.contains("-h") {
    print(command.help)
    exit(0)
}

let parsed: any Subcommand
do {
    parsed = try command.init(words)
} catch {
    fail(ExitStatus.usage, "\(error.message)\nUsage: voicememo \(command.usage)")
}

do {
    try parsed.run(try RecorderClient.connect())
} catch {
    switch error.name.rawValue {
    case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
        fail(
            ExitStatus.unavailable,
            "the voicememod daemon is not running; start it with 'voicememod &' or 'systemctl --user start voicememo'")
    case "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.FileNotFound",
        "org.freedesktop.DBus.Error.NotSupported":
        fail(ExitStatus.unavailable, "cannot reach the session bus: \(error.message)")
    default:
        fail(ExitStatus.failure, error.message)
    }
}
