/// Fragments read from the capture stream and not yet written, oldest first, in one
/// allocation made when pumping starts (the capture thread allocates nothing per fragment).
///
/// A recording pinned to a source keeps its newest audio back for a moment: when that
/// source vanishes, the server may move the stream to a stand-in before anyone hears of it,
/// and the stand-in's audio must still be droppable then.
final class HeldAudio {
    private let storage: UnsafeMutableRawBufferPointer
    private let fragmentBytes: Int
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

    /// The fragment appended last.
    var newest: UnsafeRawBufferPointer {
        precondition(count > 0)
        return UnsafeRawBufferPointer(slot((first + count - 1) % capacity))
    }

    /// The oldest fragment; valid until the next read into `next`.
    var oldest: UnsafeRawBufferPointer { UnsafeRawBufferPointer(slot(first)) }

    func removeOldest() {
        precondition(count > 0)
        first = (first + 1) % capacity
        count -= 1
    }

    func removeAll() {
        first = 0
        count = 0
    }

    private func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[(index * fragmentBytes)..<((index + 1) * fragmentBytes)])
    }
}
