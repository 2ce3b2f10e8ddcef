import Dispatch

/// A value that travels through other threads but is used only on one serial queue: a
/// bus call's completion handed to a worker and called back on the daemon's queue.
///
/// `@unchecked Sendable`: the value is only ever read on `queue`, which `value` checks, so
/// whatever it captures is never used on two threads at once.
struct QueueBound<Value>: @unchecked Sendable {
    /// The queue the value belongs to.
    let queue: DispatchQueue
    private let boundValue: Value

    /// Binds `value`, made on `queue`, to it.
    init(_ value: Value, to queue: DispatchQueue) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.queue = queue
        boundValue = value
    }

    /// The value; only on `queue`.
    var value: Value {
        dispatchPrecondition(condition: .onQueue(queue))
        return boundValue
    }
}
