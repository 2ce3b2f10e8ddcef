/// How long a recording whose input is lost waits between attempts to open a new stream:
/// 100 ms, doubling to at most a second, so a server back in a moment is found in a moment
/// and one that stays away costs a wake-up a second.
public struct ReconnectBackoff: Equatable, Sendable {
    public static let first = 0.1
    public static let longest = 1.0
    private var next = first

    public init() {}

    /// The pause before the next attempt, in seconds.
    public mutating func nextPause() -> Double {
        defer { next = min(next * 2, Self.longest) }
        return next
    }
}
