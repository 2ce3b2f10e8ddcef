import Dispatch

/// A GetManagedObjects reply kept after it was sent, so the next listings of the same
/// manager are copies of it rather than thousands of objects marshalled again: 10,000
/// memos cost the daemon some 120 ms of CPU per listing, a copy a few.
///
/// Kept only a while (`lifetime` after the last listing it answered): the reply is as
/// large as the listing (3.5 MB for 10,000 memos), which an idle daemon should not hold.
/// The server drops it as soon as anything it lists changes.
///
/// Lives on the server's queue, like the server; its timer fires there.
final class KeptListing {
    /// How long a kept reply outlives the last listing it answered. Listings come in bursts
    /// (the shell extension, the tray and a CLI starting together; a client listing again
    /// after a reconnect; a script polling every few seconds), each a few seconds apart:
    /// half a minute covers them, and the idle daemon is back to its size half a minute after.
    static let lifetime: Duration = .seconds(30)

    /// The reply that was sent; each later answer is its copy, addressed anew.
    let reply: Message
    /// The revision of each listed family when the reply was made (see `BusObjectFamily.revision`).
    let familyRevisions: [ObjectPath: Int]
    /// Drops the kept reply once it has answered nothing for `lifetime`.
    private let expiry: DispatchSourceTimer

    /// Keeps `reply` until `lifetime` passes without `renew()`, when `onExpiry` runs on `queue`.
    init(
        reply: Message, familyRevisions: [ObjectPath: Int], queue: DispatchQueue,
        onExpiry: @escaping (KeptListing) -> Void
    ) {
        self.reply = reply
        self.familyRevisions = familyRevisions
        expiry = DispatchSource.makeTimerSource(queue: queue)
        expiry.setEventHandler { [weak self] in
            if let self { onExpiry(self) }
        }
        renew()
        expiry.activate()
    }

    deinit {
        expiry.cancel()
    }

    /// Counts `lifetime` again from now: the reply just answered a listing.
    func renew() {
        expiry.schedule(deadline: .now() + .milliseconds(Int(Self.lifetime / .milliseconds(1))))
    }
}

extension BusObjectServer {
    /// How long a GetManagedObjects reply is kept after the last listing it answered, so
    /// a measurement can wait for it to be dropped.
    public static var keptListingLifetime: Duration { KeptListing.lifetime }
}
