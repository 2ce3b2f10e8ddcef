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
