/// A waveform drawn with the eight Unicode block elements, one character per peak, as
/// `voicememo list` shows each memo on a terminal.
public enum Sparkline {
    /// Lowest to highest.
    public static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One block per value (0…1; outside that range clamps): silence is the lowest block,
    /// so the line keeps its width and a quiet memo still shows.
    public static func line(_ peaks: [Double]) -> String {
        String(
            peaks.map { peak in
                let level = peak.isNaN ? 0 : min(max(peak, 0), 1)
                return blocks[min(blocks.count - 1, Int(level * Double(blocks.count)))]
            })
    }
}
