/// The bytes of the fragments read from a capture stream and not yet written, oldest first,
/// in one allocation made when pumping starts. How many are held, and why, is the
/// `CapturePolicy`'s business; this only keeps them.
final class HeldAudio {
    private let storage: UnsafeMutableRawBufferPointer
    /// Bytes per fragment.
    let fragmentBytes: Int
    /// How many fragments fit.
    let capacity: Int
    private var first = 0
    /// How many fragments are held.
    private(set) var count = 0

    /// Room for `capacity` fragments of `fragmentBytes` each.
    init(capacity: Int, fragmentBytes: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.fragmentBytes = fragmentBytes
        storage = .allocate(byteCount: capacity * fragmentBytes, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Where the next read goes; `append()` then holds it.
    var next: UnsafeMutableRawBufferPointer {
        precondition(count < capacity, "write out a fragment before reading another")
        return slot((first + count) % capacity)
    }

    /// Holds the fragment just read into `next`.
    func append() {
        count += 1
    }

    /// The oldest fragment; valid until the next read into `next`.
    var oldest: UnsafeRawBufferPointer { UnsafeRawBufferPointer(slot(first)) }

    /// Forgets the `count` oldest fragments (one by default).
    func removeOldest(_ count: Int = 1) {
        precondition(count <= self.count)
        first = (first + count) % capacity
        self.count -= count
    }

    private func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[(index * fragmentBytes)..<((index + 1) * fragmentBytes)])
    }
}
