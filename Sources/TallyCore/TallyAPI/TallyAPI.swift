public import Foundation

/// JSON conventions of the Tally server API: snake_case keys, ISO 8601 dates with
/// fractional seconds, integers for every amount.
public enum TallyAPI: Sendable {
    /// An encoder for Tally API bodies.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(timestamp(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder for Tally API bodies.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = JSONKeys.fromSnakeCase
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = date(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        return decoder
    }

    /// `2026-01-01T00:00:00.000Z`: milliseconds, UTC, the nearest millisecond.
    public static func timestamp(_ date: Date) -> String {
        if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
            return millisecond(date).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        return formatterTimestamp(date)
    }

    /// Parses an ISO 8601 date with or without fractional seconds.
    public static func date(_ text: String) -> Date? {
        if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
            if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
            return try? Date.ISO8601FormatStyle().parse(text)
        }
        return formatterDate(text)
    }

    // Below iOS 15 and macOS 12 there is no ISO8601FormatStyle; the formatter class writes and
    // reads the same text. A formatter per call: the class is not Sendable everywhere.

    /// ``timestamp(_:)`` with `ISO8601DateFormatter`, as systems older than iOS 15 and macOS 12 write it.
    package static func formatterTimestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: millisecond(date))
    }

    /// The date a quarter of a millisecond into its nearest millisecond: the format style cuts
    /// off what is below a millisecond and the formatter class rounds it, and both then write
    /// that millisecond (2026-03-01T00:00:00.123 is stored as .12299…, which one would cut to .122).
    private static func millisecond(_ date: Date) -> Date {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        return Date(timeIntervalSince1970: (milliseconds + 0.25) / 1000)
    }

    /// ``date(_:)`` with `ISO8601DateFormatter`, as systems older than iOS 15 and macOS 12 read it.
    package static func formatterDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
