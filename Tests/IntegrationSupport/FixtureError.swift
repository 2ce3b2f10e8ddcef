import Foundation

/// Why the integration fixture could not do what a test asked of it.
///
/// Every case reads as a complete sentence, so a failing test explains itself
/// without the reader having to open the fixture's source.
package enum FixtureError: Error, CustomStringConvertible {
    /// A program the fixture runs is not installed; install `debianPackage`.
    case missingExecutable(String, debianPackage: String?)
    /// A product of this package's build is missing from the build directory.
    case missingBuildProduct(String, searched: String, overrideVariable: String)
    /// A condition polled by `waitUntil` did not become true in time.
    case timedOut(waitingUntil: String, after: Duration)
    /// A short command exited unsuccessfully.
    case commandFailed(command: String, output: CommandOutput)
    /// A long-running child ended while the fixture still needed it.
    case exitedEarly(String, termination: ChildProcess.Termination, log: String)
    /// A server did not become ready; `log` is what it printed.
    case startupFailed(String, reason: String, log: String)
    /// A system call failed.
    case systemCallFailed(String, errno: Int32)
    /// `VOICEMEMO_TEST_SERVER` names a server the fixture does not know.
    case unknownAudioServer(String)
    /// The daemon answered, but not as expected; the expectation, e.g. "State is a string".
    case unexpectedReply(String)

    package var description: String {
        switch self {
        case .missingExecutable(let path, nil) where path.contains("/"):
            return "'\(path)' is not an executable file"
        case .missingExecutable(let name, let package):
            return "'\(name)' was not found on PATH, /usr/bin or /usr/sbin"
                + (package.map { "; install the Debian package '\($0)' (apt-get install \($0))" } ?? "")
        case .missingBuildProduct(let name, let searched, let variable):
            return "'\(name)' was not found at \(searched); build it with "
                + "'swift build --product \(name)' or set \(variable) to its path"
        case .timedOut(let condition, let timeout):
            return "timed out after \(timeout) waiting until \(condition)"
        case .commandFailed(let command, let output):
            return "'\(command)' failed with status \(output.status): \(output.stderr)\(output.stdout)"
        case .exitedEarly(let name, let termination, let log):
            return "\(name) \(termination) while the fixture still needed it; its log:\n\(log)"
        case .startupFailed(let name, let reason, let log):
            return "\(name) did not start: \(reason); its log:\n\(log)"
        case .systemCallFailed(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .unknownAudioServer(let name):
            return "VOICEMEMO_TEST_SERVER=\(name) is not one of: "
                + AudioServerKind.allCases.map(\.rawValue).joined(separator: ", ")
        case .unexpectedReply(let expectation):
            return "the daemon's answer broke the expectation that \(expectation)"
        }
    }
}
