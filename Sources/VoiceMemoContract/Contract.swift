import Bus

/// The names the public contract (`data/org.example.VoiceMemo.xml`) fixes: bus name, paths
/// and interfaces; `RecorderMember` and `MemoMember` hold the interfaces' members. The
/// daemon, the CLI, the tests and the benchmark take them from here: nothing else spells them.
public enum Contract {
    /// The well-known name, which is also the application's id (its desktop entry and
    /// activation file are named after it, as freedesktop asks).
    public static let busName = BusName(base)
    public static let applicationID = base

    public static let recorderPath = ObjectPath("/org/example/VoiceMemo")
    /// The parent of every memo object; also the ObjectManager's root for them.
    public static let memoParentPath = recorderPath.appending("Memo")

    public static let recorderInterface = InterfaceName(base)
    public static let memoInterface = InterfaceName(base + ".Memo")

    /// The object path of the memo whose id is `id` (ids are object-path-safe by
    /// construction), or `/`, the contract's "no memo", for none.
    public static func memoPath(id: String?) -> ObjectPath {
        guard let id else { return .root }
        return memoParentPath.appending(id)
    }

    private static let base = "org.example.VoiceMemo"
}

/// The contract's error names, each a reason a client can act on.
public enum ContractError: String, CaseIterable, Sendable {
    case invalidArgument = "InvalidArgument"
    case notRecording = "NotRecording"
    case busy = "Busy"
    case noSuchMemo = "NoSuchMemo"
    case audioServer = "AudioServer"
    case storage = "Storage"
    case unsupported = "Unsupported"
    case notAvailable = "NotAvailable"

    /// The D-Bus error name, `org.example.VoiceMemo.Error.<Reason>`.
    public var name: ErrorName {
        ErrorName(Contract.recorderInterface.rawValue + ".Error." + rawValue)
    }
}
