public import Foundation

/// The length of a subscription period or of an offer's period, as ISO 8601 writes it in a
/// StoreKit configuration: `P1W`, `P1M`, `P2M`, `P3M`, `P6M`, `P1Y`, `P3D`, `P2W`.
///
/// It is a count of one calendar unit; dates move by calendar arithmetic in UTC on the
/// Gregorian calendar, as the App Store renews, so a month from 31 January is 28 (or 29)
/// February.
///
/// ```swift
/// let monthly = SubscriptionPeriod(iso8601: "P1M")!
/// let renewal = monthly.advance(purchaseDate)            // one month later
/// let third = monthly.advance(purchaseDate, times: 3)    // three months after purchase
/// ```
///
/// It encodes as its ISO 8601 text.
public struct SubscriptionPeriod: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How many units; at least 1.
    public var value: Int
    /// The calendar unit.
    public var unit: Unit

    /// A calendar unit of a period.
    public enum Unit: String, Sendable, Hashable, Codable, CaseIterable {
        /// A day (`D`).
        case day = "D"
        /// A week of seven days (`W`).
        case week = "W"
        /// A calendar month (`M`).
        case month = "M"
        /// A calendar year (`Y`).
        case year = "Y"
    }

    /// The largest count accepted from text; no App Store period comes near it.
    public static let maximumValue = 1_000

    /// Creates a period.
    /// - Parameters:
    ///   - value: how many units, from 1 to ``maximumValue``.
    ///   - unit: the unit.
    public init(value: Int, unit: Unit) {
        precondition((1...Self.maximumValue).contains(value), "a period counts 1 to \(Self.maximumValue) units")
        self.value = value
        self.unit = unit
    }

    /// Reads `P` followed by a positive count and one of `D`, `W`, `M`, `Y`, as Xcode writes
    /// periods. Combined forms (`P1M2D`), times (`PT1H`), zero, signs and lower case are rejected.
    /// - Parameter text: the ISO 8601 duration, e.g. `P1M`.
    /// - Returns: `nil` when `text` is not such a period.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes.first == UInt8(ascii: "P"),
            let unit = Unit(rawValue: String(decoding: bytes[(bytes.count - 1)...], as: UTF8.self))
        else { return nil }
        let digits = bytes[1..<(bytes.count - 1)]
        guard digits.count <= 4, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            digits.first != UInt8(ascii: "0"),
            let value = Int(String(decoding: digits, as: UTF8.self)),
            (1...Self.maximumValue).contains(value)
        else { return nil }
        self.init(value: value, unit: unit)
    }

    /// The ISO 8601 text, e.g. `P1M`.
    public var iso8601: String { "P\(value)\(unit.rawValue)" }

    /// The ISO 8601 text.
    public var description: String { iso8601 }

    /// The date `times` periods after `date`, by calendar arithmetic in UTC (Gregorian).
    ///
    /// Counting from the same start keeps the day of the month: from 31 January, `times: 1`
    /// is 28 February and `times: 2` is 31 March, where advancing 28 February once more would
    /// give 28 March. Pass the original date and a count to follow a renewal schedule.
    /// - Parameters:
    ///   - date: the start.
    ///   - times: how many periods; 0 or more.
    /// - Returns: the end of the `times`-th period.
    public func advance(_ date: Date, times: Int = 1) -> Date {
        precondition(times >= 0, "a period advances forward only")
        let (count, overflow) = value.multipliedReportingOverflow(by: times)
        precondition(!overflow, "too many periods")
        var components = DateComponents()
        switch unit {
        case .day: components.day = count
        case .week: components.day = count * 7
        case .month: components.month = count
        case .year: components.year = count
        }
        guard let result = Self.utcCalendar.date(byAdding: components, to: date) else {
            preconditionFailure("\(iso8601) × \(times) from \(date) is outside the calendar")
        }
        return result
    }

    /// The Gregorian calendar in UTC.
    static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// Decodes the ISO 8601 text.
    /// - Throws: `DecodingError.dataCorrupted` when it is not a period.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let period = Self(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 period: \(text)")
        }
        self = period
    }

    /// Encodes the ISO 8601 text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}
