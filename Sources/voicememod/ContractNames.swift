import Bus
import VoiceMemoContract
import VoiceMemoCore

extension Contract {
    /// The object path of `memo`, or `/` for none (the contract's "no memo").
    static func path(of memo: MemoReference?) -> ObjectPath {
        guard let memo else { return .root }
        return memoPath(id: memo.id)
    }
}

extension BusError {
    /// The contract's error for a recorder failure, with the recorder's message.
    init(_ error: RecorderError) {
        let reason: ContractError =
            switch error {
            case .invalidArgument: .invalidArgument
            case .notRecording: .notRecording
            case .busy: .busy
            case .noSuchMemo: .noSuchMemo
            case .audioServer, .deviceLost: .audioServer
            case .storage: .storage
            case .unsupported: .unsupported
            }
        self.init(reason.name, error.message)
    }
}

extension OptionValue {
    /// The option as the recorder validates it; containers keep only their signature.
    init(_ value: BusValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .uint32(let number): self = .uint32(number)
        case .int64(let number): self = .int64(number)
        case .double(let number): self = .double(number)
        case .boolean(let flag): self = .boolean(flag)
        default: self = .other(signature: value.signature)
        }
    }
}
