import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A file descriptor received over the bus (D-Bus type `h`), such as logind's inhibitor
/// lock: the descriptor is closed by `close()` or, at the latest, when the object goes away.
///
/// Thread-safe: the descriptor is swapped out atomically, so it is closed exactly once.
public final class UnixFileDescriptor: Sendable, Equatable, CustomStringConvertible {
    private let storage: Atomic<Int32>

    /// Takes ownership of `descriptor`, which must be open.
    public init(adopting descriptor: Int32) {
        precondition(descriptor >= 0, "invalid file descriptor \(descriptor)")
        storage = Atomic(descriptor)
    }

    deinit {
        close()
    }

    /// The descriptor, or `nil` once closed.
    public var descriptor: Int32? {
        let value = storage.load(ordering: .acquiring)
        return value >= 0 ? value : nil
    }

    /// Closes the descriptor; later calls do nothing. For a lock held by the descriptor,
    /// this is the release.
    public func close() {
        let descriptor = storage.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
    }

    /// Two values are equal only if they are the same owner.
    public static func == (lhs: UnixFileDescriptor, rhs: UnixFileDescriptor) -> Bool { lhs === rhs }

    /// `fd 7`, or `fd closed`.
    public var description: String { descriptor.map { "fd \($0)" } ?? "fd closed" }
}
