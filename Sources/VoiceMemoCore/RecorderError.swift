/// Why a recorder request failed, in the contract's terms; each case's message tells a
/// person what to do next.
public enum RecorderError: Error, Equatable, Sendable {
    /// A request argument is malformed or out of range.
    case invalidArgument(String)
    /// An option's value is not of the kind its key takes: an invalid argument, kept
    /// structured so that the adapter that decoded the value can name the types as its
    /// client spells them.
    case wrongOptionType(key: String, expected: OptionKind, got: OptionValue)
    /// The request needs an open recording and there is none.
    case notRecording(String)
    /// Another recording or playback is in the way.
    case busy(String)
    /// The named memo does not exist.
    case noSuchMemo(String)
    /// The audio server refused or failed.
    case audioServer(String)
    /// The device being recorded went away while the server stayed.
    case deviceLost(String)
    /// The memo directory or a memo file could not be written.
    case storage(String)
    /// The combination asked for is valid alone but cannot be recorded.
    case unsupported(String)
    /// A part the request needs is not installed (the transcription engine); the message
    /// names the command that installs it.
    case notAvailable(String)

    /// The human-readable explanation.
    public var message: String {
        switch self {
        case .invalidArgument(let message), .notRecording(let message), .busy(let message),
            .noSuchMemo(let message), .audioServer(let message), .deviceLost(let message), .storage(let message),
            .unsupported(let message), .notAvailable(let message):
            message
        case .wrongOptionType(let key, let expected, let value):
            "option '\(key)' must be \(expected); got \(value.kind?.description ?? "another type")"
        }
    }
}

extension RecorderError: CustomStringConvertible {
    public var description: String { message }
}
