/// The order statistics the benchmark table reports.
extension Array where Element == Double {
    /// The middle value (the mean of the two middle values for an even count); 0 when empty.
    var median: Double { percentile(50) }

    /// The mean; 0 when empty. For CPU figures of equal windows it is the pooled figure: the
    /// kernel counts CPU time in 10 ms ticks, about 7 % of a 20 s window of a recorder, so
    /// pooling three runs resolves a 10 % difference where one run's value cannot.
    var mean: Double { isEmpty ? 0 : reduce(0, +) / Double(count) }

    /// The `p`th percentile by linear interpolation between closest ranks; 0 when empty.
    func percentile(_ p: Double) -> Double {
        guard !isEmpty else { return 0 }
        let sorted = self.sorted()
        let rank = p / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - Double(lower))
    }
}

extension Duration {
    /// The duration in milliseconds, for the table.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }
}
