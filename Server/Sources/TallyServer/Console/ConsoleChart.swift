import Foundation

/// The console's charts as values for an SVG template: bars side by side or lines, one slot
/// per day, scaled to the largest value, with a date under every few days. Drawn by the
/// server, so the pages need no script.
struct ConsoleChart {
    let width = 900
    let height = 200
    /// The y of the axis; the dates go below it.
    let base = 180

    /// One figure drawn over the days: its CSS class and how a value reads in a bar's or a
    /// point's title.
    struct Series {
        let kind: String
        let values: [Int64]
        let label: (Int64) -> String
    }

    /// The overview's chart: a purchases bar and a refunds bar per day.
    func view(_ days: [ConsoleOverview.Day], language: ConsoleText.Language) -> [String: Any] {
        bars(
            days.map(\.start),
            [
                Series(kind: "purchase", values: days.map(\.purchases)) { "\($0) \(ConsoleText.text("purchases", language))" },
                Series(kind: "refund", values: days.map(\.refunds)) { "\($0) \(ConsoleText.text("refunds", language))" },
            ])
    }

    /// A bar per series per day, side by side; `maximum` is the largest value as `axis` writes it.
    func bars(_ days: [Date], _ series: [Series], axis: (Int64) -> String = { String($0) }) -> [String: Any] {
        let maximum = max(1, series.flatMap(\.values).max() ?? 1)
        let slot = Double(width) / Double(max(1, days.count))
        let barWidth = max(1.0, slot * 0.8 / Double(max(1, series.count)))
        let usable = Double(base - 16)
        var bars: [[String: Any]] = []
        for (index, day) in days.enumerated() {
            let left = Double(index) * slot + slot * 0.1
            for (offset, line) in series.enumerated() {
                let value = line.values[index]
                let barHeight = Double(value) / Double(maximum) * usable
                bars.append([
                    "x": Self.number(left + Double(offset) * barWidth), "y": Self.number(Double(base) - barHeight), "w": Self.number(barWidth),
                    "h": Self.number(barHeight), "kind": line.kind, "label": "\(ConsoleFormat.day(day)): \(line.label(value))",
                ])
            }
        }
        return [
            "width": width, "height": height, "base": base, "bars": bars, "ticks": ticks(days),
            "maximum": axis(maximum),
        ]
    }

    /// A line per series through the middle of each day's slot; each point has its title.
    func lines(_ days: [Date], _ series: [Series], axis: (Int64) -> String = { String($0) }) -> [String: Any] {
        let maximum = max(1, series.flatMap(\.values).max() ?? 1)
        let slot = Double(width) / Double(max(1, days.count))
        let usable = Double(base - 16)
        var lines: [[String: Any]] = []
        for line in series {
            var points: [[String: Any]] = []
            for (index, day) in days.enumerated() {
                let value = line.values[index]
                points.append([
                    "x": Self.number(Double(index) * slot + slot / 2), "y": Self.number(Double(base) - Double(value) / Double(maximum) * usable),
                    "label": "\(ConsoleFormat.day(day)): \(line.label(value))",
                ])
            }
            lines.append(["kind": line.kind, "points": points.map { "\($0["x"]!),\($0["y"]!)" }.joined(separator: " "), "dots": points])
        }
        return [
            "width": width, "height": height, "base": base, "lines": lines, "ticks": ticks(days),
            "maximum": axis(maximum),
        ]
    }

    /// A date under about eight of the days.
    func ticks(_ days: [Date]) -> [[String: Any]] {
        let slot = Double(width) / Double(max(1, days.count))
        let every = max(1, Int((Double(days.count) / 8).rounded(.up)))
        return days.enumerated().filter { $0.offset % every == 0 }.map { index, day in
            ["x": Self.number(Double(index) * slot + slot * 0.1), "y": String(base + 14), "label": ConsoleFormat.day(day)]
        }
    }

    /// One decimal place is enough on a 900-unit-wide drawing.
    static func number(_ value: Double) -> String { String((value * 10).rounded() / 10) }
}
