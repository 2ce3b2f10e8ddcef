import FoundationEssentials

/// Turns a file-system error into the few words a person needs ("Permission denied").
enum FileSystemFailure {
    static func reason(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError, let underlying = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
            return String(describing: underlying.code)
        }
        return String(describing: error)
    }
}
