import Foundation
import NIOConcurrencyHelpers

/// Counters and latency histograms, exposed in Prometheus text format at `/metrics`.
///
/// Small and local to one server instance (no global bootstrap), so that tests build as
/// many servers as they like. Thread-safe with a lock: an update is a dictionary write.
public final class Metrics: Sendable {
    private struct State {
        var counters: [Key: Int64] = [:]
        var histograms: [Key: Histogram] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let help: [String: (type: String, text: String)]

    /// Latency buckets in seconds.
    static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    /// A series: its name and labels as given. The labels are rendered only for `/metrics`, not
    /// at each update, which every request makes three of.
    struct Key: Hashable {
        let name: String
        let labels: [String: String]
    }

    struct Histogram {
        var counts = [Int64](repeating: 0, count: Metrics.buckets.count)
        var sum: Double = 0
        var count: Int64 = 0

        mutating func record(_ seconds: Double) {
            for (index, bound) in Metrics.buckets.enumerated() where seconds <= bound { counts[index] += 1 }
            sum += seconds
            count += 1
        }
    }

    /// An empty registry with the server's metric families described.
    public init() {
        help = [
            "tally_http_requests_total": ("counter", "HTTP requests by route, method and status."),
            "tally_http_request_duration_seconds": ("histogram", "HTTP request latency by route and method."),
            "tally_grants_total": ("counter", "Units granted by purchases, by currency."),
            "tally_spends_total": ("counter", "Units spent, by currency."),
            "tally_verification_failures_total": ("counter", "Signed data refused, by verification code."),
            "tally_notifications_total": ("counter", "App Store notifications received, by type and outcome."),
            "tally_events_total": ("counter", "Events committed by this instance, by type."),
            "tally_webhook_attempts_total": ("counter", "Webhook delivery attempts, by outcome (delivered, failed)."),
        ]
    }

    /// Adds `value` to a counter.
    public func increment(_ name: String, _ labels: [String: String] = [:], by value: Int64 = 1) {
        let key = Key(name: name, labels: labels)
        state.withLockedValue { $0.counters[key, default: 0] += value }
    }

    /// Records one observation of a histogram, in seconds.
    public func observe(_ name: String, _ labels: [String: String] = [:], seconds: Double) {
        let key = Key(name: name, labels: labels)
        state.withLockedValue {
            // In place: a copy out of the dictionary would copy the bucket counts on every observation.
            $0.histograms[key, default: Histogram()].record(seconds)
        }
    }

    /// A counter's current value.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Int64 {
        let key = Key(name: name, labels: labels)
        return state.withLockedValue { $0.counters[key] ?? 0 }
    }

    /// Everything, in the Prometheus text exposition format.
    public func exposition() -> String {
        let (counters, histograms) = state.withLockedValue { ($0.counters, $0.histograms) }
        var lines: [String] = []
        let names = Set(counters.keys.map(\.name)).union(histograms.keys.map(\.name)).sorted()
        for name in names {
            if let (type, text) = help[name] {
                lines.append("# HELP \(name) \(text)")
                lines.append("# TYPE \(name) \(type)")
            }
            for (key, value) in counters where key.name == name {
                lines.append("\(name)\(Self.braces(Self.render(key.labels))) \(value)")
            }
            for (key, histogram) in histograms where key.name == name {
                let labels = Self.render(key.labels)
                for (index, bound) in Self.buckets.enumerated() {
                    lines.append("\(name)_bucket\(Self.braces(labels + ["le=\"\(bound)\""])) \(histogram.counts[index])")
                }
                lines.append("\(name)_bucket\(Self.braces(labels + ["le=\"+Inf\""])) \(histogram.count)")
                lines.append("\(name)_sum\(Self.braces(labels)) \(histogram.sum)")
                lines.append("\(name)_count\(Self.braces(labels)) \(histogram.count)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func render(_ labels: [String: String]) -> [String] {
        var rendered = labels.map { $0.key + "=\"" + escape($0.value) + "\"" }
        if rendered.count > 1 { rendered.sort() }
        return rendered
    }

    /// A label value with `\`, `"` and line feeds escaped, as the text format requires; values
    /// without them (nearly all) are returned as they are.
    private static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") }) else {
            return value
        }
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count + 4)
        for character in value.unicodeScalars {
            switch character {
            case "\\", "\"":
                escaped.unicodeScalars.append("\\")
                escaped.unicodeScalars.append(character)
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    private static func braces(_ labels: [String]) -> String {
        labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}"
    }
}
