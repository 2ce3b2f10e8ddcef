import Bus
import VoiceMemoCore

/// The names the public contract (`shared/spec/dbus-api.md`) fixes.
enum Contract {
    static let busName = BusName("org.example.VoiceMemo")
    static let recorderPath = ObjectPath("/org/example/VoiceMemo")
    static let memoParentPath = ObjectPath("/org/example/VoiceMemo/Memo")
    static let recorderInterface = InterfaceName("org.example.VoiceMemo")
    static let memoInterface = InterfaceName("org.example.VoiceMemo.Memo")

    /// The object path of memo `id` (ids are object-path-safe by construction).
    static func path(of memo: MemoReference?) -> ObjectPath {
        guard let memo else { return .root }
        return memoParentPath.appending(memo.id)
    }
}

extension BusError {
    /// The contract's error for a recorder failure, with the recorder's message.
    init(_ error: RecorderError) {
        let name: String
        switch error {
        case .invalidArgument: name = "InvalidArgument"
        case .notRecording: name = "NotRecording"
        case .busy: name = "Busy"
        case .noSuchMemo: name = "NoSuchMemo"
        case .audioServer, .deviceLost: name = "AudioServer"
        case .storage: name = "Storage"
        case .unsupported: name = "Unsupported"
        }
        self.init(ErrorName("org.example.VoiceMemo.Error." + name), error.message)
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
