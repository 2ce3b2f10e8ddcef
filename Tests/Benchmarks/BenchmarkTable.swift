import Foundation

/// The benchmark's result: one row per figure, voicememod's median beside the baseline's
/// from the same run (parecord unless the figure names another), their ratio and the
/// issue's target, rendered as Markdown.
struct BenchmarkTable {
    /// One figure.
    struct Row {
        /// What is measured, with its unit.
        var figure: String
        /// voicememod's value.
        var voicememod: Double
        /// The baseline's value from the same run, if the figure has one.
        var baseline: Double?
        /// The target, e.g. "≤ 1.0× parecord" or "< 50"; empty if the issue sets none.
        var target: String
        /// Whether the target is met; `nil` where there is no target.
        var isMet: Bool?

        /// A row with `target` as text, and whether it `isMet`; neither where the issue sets none.
        init(
            figure: String, voicememod: Double, baseline: Double? = nil, target: String = "", isMet: Bool? = nil
        ) {
            self.figure = figure
            self.voicememod = voicememod
            self.baseline = baseline
            self.target = target
            self.isMet = isMet
        }

        /// A row held to `bound`.
        init(figure: String, voicememod: Double, baseline: Double? = nil, bound: Bound) {
            self.init(
                figure: figure, voicememod: voicememod, baseline: baseline, target: bound.description,
                isMet: bound.isMet(by: voicememod))
        }

        /// voicememod ÷ baseline, if both are there and the baseline is not zero.
        var ratio: Double? {
            guard let baseline, baseline != 0 else { return nil }
            return voicememod / baseline
        }
    }

    /// An upper bound a figure is held to: below it, or at most it.
    enum Bound: CustomStringConvertible {
        case below(Double)
        case atMost(Double)
        case atLeast(Double)

        /// Whether `value` is within the bound.
        func isMet(by value: Double) -> Bool {
            switch self {
            case .below(let limit): value < limit
            case .atMost(let limit): value <= limit
            case .atLeast(let limit): value >= limit
            }
        }

        /// The target column's text, e.g. "< 50", "≤ 0.5" or "≥ 4": a limit as the issue writes it.
        var description: String {
            switch self {
            case .below(let limit): "< \(Self.text(of: limit))"
            case .atMost(let limit): "≤ \(Self.text(of: limit))"
            case .atLeast(let limit): "≥ \(Self.text(of: limit))"
            }
        }

        private static func text(of limit: Double) -> String {
            limit == limit.rounded() ? String(Int(limit)) : String(limit)
        }
    }

    /// The section headings and their rows, in order.
    private(set) var sections: [(title: String, rows: [Row])] = []
    /// Lines printed under the table: what the figures mean and how they were taken.
    var notes: [String] = []

    /// Starts a new section; rows added afterwards belong to it.
    mutating func beginSection(_ title: String) {
        sections.append((title, []))
    }

    /// Adds a row to the current section.
    mutating func add(_ row: Row) {
        if sections.isEmpty { beginSection("") }
        sections[sections.count - 1].rows.append(row)
    }

    /// Every row, in order.
    var rows: [Row] { sections.flatMap(\.rows) }

    /// The table, the machine it ran on and the notes, as Markdown.
    func markdown(header: String) -> String {
        var lines = [header, "", "| figure | voicememod | baseline | ratio | target |", "|---|---:|---:|---:|---|"]
        for section in sections {
            if !section.title.isEmpty { lines.append("| **\(section.title)** | | | | |") }
            for row in section.rows {
                let verdict = row.isMet.map { $0 ? " ✓" : " ✗" } ?? ""
                lines.append(
                    "| \(row.figure) | \(Self.format(row.voicememod)) | \(row.baseline.map(Self.format) ?? "—") | "
                        + "\(row.ratio.map { String(format: "%.2f×", $0) } ?? "—") | \(row.target)\(verdict) |")
            }
        }
        return (lines + [""] + notes.map { "- \($0)" }).joined(separator: "\n") + "\n"
    }

    /// Three significant digits, without exponent notation.
    static func format(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 100 || value == value.rounded() && magnitude >= 10 { return String(format: "%.0f", value) }
        if magnitude >= 10 { return String(format: "%.1f", value) }
        if magnitude >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3f", value)
    }
}
