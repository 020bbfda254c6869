/// The overview's bar chart as values for an SVG template: one pair of bars (purchases,
/// refunds) per day, scaled to the largest, with a date under every few days. Drawn by the
/// server, so the page needs no script.
struct ConsoleChart {
    let width = 900
    let height = 200
    /// The y of the axis; the dates go below it.
    let base = 180

    func view(_ days: [ConsoleOverview.Day], language: ConsoleText.Language) -> [String: Any] {
        let maximum = max(1, days.map { max($0.purchases, $0.refunds) }.max() ?? 1)
        let slot = Double(width) / Double(max(1, days.count))
        let barWidth = max(1.0, slot * 0.4)
        let usable = Double(base - 16)
        var bars: [[String: Any]] = []
        var ticks: [[String: Any]] = []
        let every = max(1, Int((Double(days.count) / 8).rounded(.up)))
        for (index, day) in days.enumerated() {
            let left = Double(index) * slot + slot * 0.1
            let label = ConsoleFormat.day(day.start)
            for (offset, kind, value) in [(0.0, "purchase", day.purchases), (barWidth, "refund", day.refunds)] {
                let barHeight = Double(value) / Double(maximum) * usable
                bars.append([
                    "x": Self.number(left + offset), "y": Self.number(Double(base) - barHeight), "w": Self.number(barWidth),
                    "h": Self.number(barHeight), "kind": kind,
                    "label": "\(label): \(value) \(ConsoleText.text(kind == "purchase" ? "purchases" : "refunds", language))",
                ])
            }
            if index % every == 0 { ticks.append(["x": Self.number(left), "y": String(base + 14), "label": label]) }
        }
        return ["width": width, "height": height, "base": base, "bars": bars, "ticks": ticks, "maximum": maximum]
    }

    /// One decimal place is enough on a 900-unit-wide drawing.
    static func number(_ value: Double) -> String { String((value * 10).rounded() / 10) }
}
