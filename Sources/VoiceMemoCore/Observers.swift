/// Everyone who wants to hear of one kind of event, in the order they asked. A second
/// listener adds itself rather than replacing the first, as a single callback slot would.
///
/// Listeners stay for the owner's lifetime (each holds what it needs weakly); used on the
/// owner's queue, like the owner.
public final class Observers<Event> {
    private var handlers: [(Event) -> Void] = []

    public init() {}

    /// Calls `handler` with every event from now on.
    public func observe(_ handler: @escaping (Event) -> Void) {
        handlers.append(handler)
    }

    /// Tells every listener of `event`.
    public func notify(_ event: Event) {
        for handler in handlers { handler(event) }
    }
}

extension Observers where Event == Void {
    /// Tells every listener that the thing happened.
    public func notify() { notify(()) }
}
