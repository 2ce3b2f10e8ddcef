import Bus

#if canImport(Glibc)
    import Glibc
#endif

/// Shows a folder in the user's file manager: `org.freedesktop.FileManager1.ShowFolders`
/// when a file manager serves it, else the desktop portal's `OpenURI.OpenFile` (which
/// works inside a sandbox too); with neither on the bus, one log line says so.
///
/// Asks the bus who is there first (without blocking the queue), so a missing service is
/// never activated by accident. Lives on the daemon's queue.
struct FolderOpener {
    let connection: BusConnection

    static let fileManager = BusName("org.freedesktop.FileManager1")
    static let portal = BusName("org.freedesktop.portal.Desktop")

    func show(_ path: String) {
        hasOwner(Self.fileManager) { hasFileManager in
            if hasFileManager {
                connection.callWithoutReply(
                    destination: Self.fileManager, path: ObjectPath("/org/freedesktop/FileManager1"),
                    interface: InterfaceName("org.freedesktop.FileManager1"), member: MemberName("ShowFolders"),
                    arguments: [.stringArray([Self.fileURI(path)]), .string("")])
                return
            }
            hasOwner(Self.portal) { hasPortal in
                let descriptor = hasPortal ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
                guard descriptor >= 0 else {
                    Log.warning(
                        "no file manager (org.freedesktop.FileManager1) or desktop portal on the bus to open \(path)")
                    return
                }
                connection.callWithoutReply(
                    destination: Self.portal, path: ObjectPath("/org/freedesktop/portal/desktop"),
                    interface: InterfaceName("org.freedesktop.portal.OpenURI"), member: MemberName("OpenFile"),
                    arguments: [
                        .string(""), .unixFileDescriptor(UnixFileDescriptor(adopting: descriptor)),
                        .stringDictionary([:]),
                    ])
            }
        }
    }

    private func hasOwner(_ name: BusName, _ answer: @escaping (Bool) -> Void) {
        connection.call(
            destination: .bus, path: .bus, interface: .bus, member: MemberName("NameHasOwner"),
            arguments: [.string(name.rawValue)]
        ) { result in
            answer((try? result.get().first?.boolean) == true)
        }
    }

    /// A `file://` URI with everything but unreserved characters and `/` percent-encoded.
    static func fileURI(_ path: String) -> String {
        var uri = "file://"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                uri.append(Character(UnicodeScalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                uri += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return uri
    }
}
