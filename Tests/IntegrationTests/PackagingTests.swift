import Foundation
import IntegrationSupport
import VoiceMemoContract
import XCTest

/// Issue 28, shipped like Linux software: one version everywhere, AppStream metadata that
/// validates, completions for bash, zsh and fish that offer every command and option of the
/// CLI's own table, and a Debian package that installs, activates, records and purges clean.
final class PackagingTests: IntegrationTestCase {
    override class var launchesDaemon: Bool { false }

    private static func data(_ name: String) -> String { Checkout.root.appendingPathComponent("data/\(name)").path }

    /// Runs `program` with no session bus at all, so an answer proves none was needed.
    private func runWithoutBus(_ program: String, _ arguments: [String]) throws -> CommandOutput {
        var environment = fixture.session.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bus"
        environment["PULSE_SERVER"] = "unix:/nonexistent/native"
        return try ChildProcess.run(program, arguments, environment: environment, timeout: .seconds(10))
    }

    // MARK: The version

    func testBothBinariesPrintTheReleaseWithoutTheBusAndTheMetainfoNamesIt() throws {
        for product in [try BuildProducts.voicememo(), try BuildProducts.voicememod()] {
            let output = try runWithoutBus(product.path, ["--version"])
            XCTAssertEqual(output.status, 0, "\(output)")
            XCTAssertEqual(output.stdout, "\(product.lastPathComponent) \(Release.version)\n")
        }
        let refused = try runWithoutBus(try BuildProducts.voicememod().path, ["--record-now"])
        XCTAssertEqual(refused.status, 64, "an unknown argument is a usage error: \(refused)")
        XCTAssertTrue(refused.stderr.contains("--record-now"), refused.stderr)

        let metainfo = try String(contentsOfFile: Self.data("org.example.VoiceMemo.metainfo.xml"), encoding: .utf8)
        let newest = try XCTUnwrap(metainfo.firstMatch(of: /<release version="([^"]+)"/), "a <release>")
        XCTAssertEqual(String(newest.1), Release.version, "the newest <release> is the binaries' version")
    }

    func testTheMetainfoValidates() throws {
        let validation = try fixture.session.run(
            "appstreamcli", ["validate", "--no-net", Self.data("org.example.VoiceMemo.metainfo.xml")])
        XCTAssertEqual(validation.status, 0, "\(validation)")
        XCTAssertTrue(validation.stdout.contains("Validation was successful"), validation.stdout)
    }

    // MARK: Completions

    /// The CLI's own table, as its help prints it: each command with its options (`--help`
    /// always among them) and, for an option whose usage lists its values (`--channels 1|2`),
    /// those values.
    private struct CommandTable {
        var options: [String: Set<String>] = [:]
        var values: [String: [String: Set<String>]] = [:]
        var commands: Set<String> { Set(options.keys) }

        init(voicememo: URL) throws {
            let overview = try ChildProcess.run(voicememo.path, ["--help"], environment: [:], timeout: .seconds(10))
            let names = overview.stdout.split(separator: "\n").drop { $0 != "Commands:" }.dropFirst()
                .prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
            for name in names {
                let help = try ChildProcess.run(
                    voicememo.path, [name, "--help"], environment: [:], timeout: .seconds(10))
                options[name] = Set(help.stdout.matches(of: /--[a-z][a-z-]*/).map { String($0.0) } + ["--help"])
                for match in help.stdout.matches(of: /(--[a-z][a-z-]*) ([a-z0-9]+(?:\|[a-z0-9]+)+)/) {
                    values[name, default: [:]][String(match.1)] = Set(match.2.split(separator: "|").map(String.init))
                }
            }
        }
    }

    private func commandTable() throws -> CommandTable {
        let table = try CommandTable(voicememo: try BuildProducts.voicememo())
        XCTAssertGreaterThanOrEqual(table.commands.count, 14, "the table as --help prints it: \(table.commands)")
        XCTAssertEqual(table.values["record"]?["--format"], ["opus", "flac", "wav", "vorbis", "mp3"])
        return table
    }

    /// What fish offers for `line` (its completion file loaded, no user configuration).
    private func fishCompletions(_ line: String) throws -> Set<String> {
        let script = "source \(Self.data("voicememo.fish")); complete -C \"\(line)\""
        let output = try fixture.session.run("fish", ["--no-config", "-c", script])
        XCTAssertEqual(output.status, 0, "\(output)")
        return Set(output.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) })
    }

    func testFishOffersEveryCommandOptionAndValue() throws {
        let table = try commandTable()
        XCTAssertEqual(try fishCompletions("voicememo "), table.commands)
        for (command, options) in table.options {
            XCTAssertEqual(try fishCompletions("voicememo \(command) --"), options, command)
            for (option, values) in table.values[command] ?? [:] {
                XCTAssertEqual(try fishCompletions("voicememo \(command) \(option) "), values, "\(command) \(option)")
            }
        }
    }

    /// What bash (with bash-completion) offers for `line`.
    private func bashCompletions(_ line: String) throws -> Set<String> {
        let script = """
            source /usr/share/bash-completion/bash_completion
            source \(Self.data("voicememo.bash-completion"))
            read -ra COMP_WORDS <<< "$1"
            [[ $1 == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )) COMP_LINE=$1 COMP_POINT=${#1}
            _voicememo
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let output = try fixture.session.run("bash", ["-c", script, "bash", line])
        XCTAssertEqual(output.status, 0, "\(output)")
        return Set(output.stdout.split(separator: "\n").map(String.init))
    }

    func testBashOffersEveryCommandOptionAndValue() throws {
        let table = try commandTable()
        XCTAssertEqual(try bashCompletions("voicememo "), table.commands.union(["--help", "--version"]))
        for (command, options) in table.options {
            XCTAssertEqual(try bashCompletions("voicememo \(command) --"), options, command)
            for (option, values) in table.values[command] ?? [:] {
                XCTAssertEqual(try bashCompletions("voicememo \(command) \(option) "), values, "\(command) \(option)")
            }
        }
    }

    /// zsh offers nothing to a script that is not a terminal, so its file is read: each
    /// command is described, each option is in its command's branch with its values, and
    /// zsh parses the file and `compinit` binds it to `voicememo`.
    func testZshDescribesEveryCommandOptionAndValue() throws {
        let table = try commandTable()
        let path = Self.data("voicememo.zsh-completion")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let described = Set(text.matches(of: /^\s+'([a-z]+):/.anchorsMatchLineEndings()).map { String($0.1) })
        XCTAssertEqual(described, table.commands)
        for (command, options) in table.options where options != ["--help"] {
            let branch = try XCTUnwrap(
                text.firstMatch(of: try Regex("\\n\\s+\(command)\\)([\\s\\S]*?);;")), "a branch for \(command)")
            let offered = Set(
                String(branch.output[1].substring ?? "").matches(of: /(--[a-z][a-z-]*)\[/).map { String($0.1) })
            XCTAssertEqual(offered, options, command)
            for (option, values) in table.values[command] ?? [:] {
                let spec = try XCTUnwrap(
                    String(branch.output[1].substring ?? "").firstMatch(
                        of: try Regex("'\(option)\\[[^']*:\\(([^)]*)\\)'")),
                    "\(command) \(option) lists its values")
                XCTAssertEqual(
                    Set((spec.output[1].substring ?? "").split(separator: " ").map(String.init)), values,
                    "\(command) \(option)")
            }
        }

        let directory = fixture.session.root.appendingPathComponent("zsh-functions")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: directory.appendingPathComponent("_voicememo").path)
        let script = """
            fpath=(\(directory.path) $fpath); autoload -U compinit
            compinit -u -d \(directory.path)/.zcompdump; print -r -- $_comps[voicememo]
            """
        let bound = try fixture.session.run("zsh", ["-f", "-c", script])
        XCTAssertEqual(bound.stdout, "_voicememo\n", "\(bound)")
        XCTAssertEqual(try fixture.session.run("zsh", ["-n", path]).status, 0, "zsh parses it")
    }

    // MARK: The manual

    /// The words of a piece of a man page: commands, option names (`--format`) and values.
    private static func words(_ text: some StringProtocol) -> Set<String> {
        Set(String(text).matches(of: /(?:--)?[a-z][a-z-]*/).map { String($0.0) })
    }

    /// voicememo(1) has an entry under COMMANDS for each command of the CLI's own table, and
    /// each entry names all of its command's options.
    func testTheManPageDescribesEveryCommandWithItsOptions() throws {
        let table = try commandTable()
        let page = try String(contentsOfFile: Self.data("voicememo.1"), encoding: .utf8)
            .replacing("\\-", with: "-").replacing(/\\f[BIRP]/, with: "")
        let section = try XCTUnwrap(page.firstMatch(of: /\n\.SH COMMANDS\n([\s\S]*?)\n\.SH[ ]/), "COMMANDS").1
        var described: [String: Set<String>] = [:]
        for entry in section.split(separator: ".TP\n") {
            let named = Self.words(entry.prefix { $0 != "\n" }).intersection(table.commands)
            for command in named { described[command, default: []].formUnion(Self.words(entry)) }
        }
        XCTAssertEqual(Set(described.keys), table.commands, "an entry for each command")
        for (command, options) in table.options {
            let missing = options.subtracting(["--help"]).subtracting(described[command] ?? [])
            XCTAssertEqual(missing, [], "options of \(command) that voicememo(1) does not name")
        }
    }

    /// Both man pages render without a warning from groff at its strictest (`man --warnings`
    /// and lintian read them so), and neither they nor the README name an issue: user
    /// documentation says what is, and git log keeps how it came to be.
    func testTheManPagesRenderWithoutWarningsAndTheDocumentationNamesNoIssue() throws {
        for page in ["voicememo.1", "voicememod.1"] {
            let output = try fixture.session.run("groff", ["-ww", "-man", "-z", Self.data(page)])
            XCTAssertEqual(output.status, 0, "\(page): \(output)")
            XCTAssertEqual(output.stderr, "", "groff -ww -man -z \(page)")
        }
        let documents = ["README.md", "data/voicememo.1", "data/voicememod.1"]
        for document in documents {
            let text = try String(
                contentsOf: Checkout.root.appendingPathComponent(document), encoding: .utf8)
            let issues = text.matches(of: /(?i)\bissues?\s+#?\d+/).map { String($0.0) }
            XCTAssertEqual(issues, [], "\(document) names an issue")
        }
    }

    // MARK: The Debian package

    /// What `dpkg -L` must list: the binaries, activation, the user unit, icons, metainfo,
    /// man pages and completions.
    private static let packagedFiles = [
        "/usr/bin/voicememo", "/usr/bin/voicememod",
        "/usr/share/dbus-1/services/\(Contract.busName).service",
        "/usr/lib/systemd/user/voicememo.service",
        "/usr/libexec/voicememo/voicememo-transcriber",
        "/usr/share/icons/hicolor/scalable/status/voicememo-recording.svg",
        "/usr/share/icons/hicolor/scalable/status/voicememo-idle-symbolic.svg",
        "/usr/share/metainfo/org.example.VoiceMemo.metainfo.xml",
        "/usr/share/man/man1/voicememo.1.gz", "/usr/share/man/man1/voicememod.1.gz",
        "/usr/share/bash-completion/completions/voicememo",
        "/usr/share/zsh/vendor-completions/_voicememo",
        "/usr/share/fish/vendor_completions.d/voicememo.fish",
        "/usr/share/doc/voicememo/copyright",
        "/usr/share/gnome-shell/extensions/voicememo@example.org/metadata.json",
        "/usr/share/gnome-shell/extensions/voicememo@example.org/extension.js",
        "/usr/share/gnome-shell/extensions/voicememo@example.org/schemas/gschemas.compiled",
    ]
    /// Where `deb-systemd-helper --user enable` puts the unit for every new session.
    private static let enabledUnit = "/etc/systemd/user/default.target.wants/voicememo.service"

    /// Runs `command` as the machine's administrator (installing a package needs root; CI runs as root).
    private func administer(_ command: String, _ arguments: [String], timeout: Duration = .seconds(120)) throws
        -> CommandOutput
    {
        let (program, all) = getuid() == 0 ? (command, arguments) : ("sudo", ["-n", command] + arguments)
        return try ChildProcess.run(program, all, environment: ProcessInfo.processInfo.environment, timeout: timeout)
    }

    func testTheDebianPackageInstallsActivatesRecordsAndPurgesClean() throws {
        let build = try ChildProcess.run(
            "make", ["--no-print-directory", "-C", Checkout.root.path, "deb"],
            environment: ProcessInfo.processInfo.environment, timeout: .seconds(1_500))
        XCTAssertEqual(build.status, 0, "make deb (lintian included): \(build)")
        let lintian = build.stdout.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        XCTAssertEqual(lintian, [], "lintian finds no error or warning")
        let architecture = try fixture.session.run("dpkg", ["--print-architecture"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let package = Checkout.root.appendingPathComponent(".build/voicememo_\(Release.version)_\(architecture).deb")

        let install = try administer("dpkg", ["-i", package.path])
        defer { _ = try? administer("dpkg", ["--purge", "voicememo"]) }
        XCTAssertEqual(install.status, 0, "\(install)")
        let listed = try fixture.session.run("dpkg", ["-L", "voicememo"])
        let files = Set(listed.stdout.split(separator: "\n").map(String.init))
        for file in Self.packagedFiles {
            XCTAssertTrue(files.contains(file), "dpkg -L lists \(file)")
        }
        XCTAssertNotNil(
            try? FileManager.default.destinationOfSymbolicLink(atPath: Self.enabledUnit),
            "the user unit is enabled for new sessions")
        let version = try runWithoutBus("/usr/bin/voicememod", ["--version"])
        XCTAssertEqual(version.stdout, "voicememod \(Release.version)\n", "\(version)")

        try assertTheFirstCallActivatesADaemonThatRecords(services: URL(fileURLWithPath: "/usr/share/dbus-1/services"))

        let purge = try administer("dpkg", ["--purge", "voicememo"])
        XCTAssertEqual(purge.status, 0, "\(purge)")
        let left = files.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        XCTAssertEqual(left, [], "dpkg --purge leaves none of the package's files")
        XCTAssertNil(
            try? FileManager.default.destinationOfSymbolicLink(atPath: Self.enabledUnit), "nor the unit's enablement")
        let status = try fixture.session.run("dpkg-query", ["-W", "-f=${db:Status-Status}", "voicememo"])
        XCTAssertNotEqual(status.stdout, "installed", "\(status)")
    }
}
