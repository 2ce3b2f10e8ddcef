import Bus
import VoiceMemoCore

extension BusError {
    /// The contract's error for a recorder failure, with the recorder's message; a wrong
    /// option type is worded with D-Bus signatures and the `busctl` spelling that fixes it.
    public init(_ error: RecorderError) {
        let reason: ContractError =
            switch error {
            case .invalidArgument, .wrongOptionType: .invalidArgument
            case .notRecording: .notRecording
            case .busy: .busy
            case .noSuchMemo: .noSuchMemo
            case .audioServer, .deviceLost: .audioServer
            case .storage: .storage
            case .unsupported: .unsupported
            case .notAvailable: .notAvailable
            }
        let message =
            switch error {
            case .wrongOptionType(let key, let expected, let value):
                "option '\(key)' must be of type '\(expected.signature)'; got '\(value.signature)' (busctl: \(key) \(expected.signature) …)"
            default: error.message
            }
        self.init(reason.name, message)
    }
}
