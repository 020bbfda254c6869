/// A day of the proleptic Gregorian calendar as year, month and day, and as days since
/// 1970-01-01: Howard Hinnant's `civil_from_days` and `days_from_civil`, integer arithmetic
/// with no `Calendar`, for code that turns many days into dates (receipts, JSON output, the
/// metrics' months).
///
/// ```swift
/// CivilDate(daysSince1970: 19_876)                 // 2024-06-02
/// CivilDate(year: 2024, month: 6, day: 2).daysSince1970   // 19_876
/// ```
public struct CivilDate: Sendable, Hashable {
    /// The year; before year 1 it counts on through 0 and below, as ISO 8601 does.
    public let year: Int
    /// The month, 1 to 12.
    public let month: Int
    /// The day of the month, from 1.
    public let day: Int

    /// A date from its parts, taken as given (a day past the month's end runs on into the next).
    /// - Parameters:
    ///   - year: the year.
    ///   - month: the month, 1 to 12.
    ///   - day: the day of the month.
    @inlinable public init(year: Int, month: Int, day: Int) {
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// The day `days` days after 1970-01-01 (before it when negative).
    /// - Parameter days: days since 1970-01-01.
    @inlinable public init(daysSince1970 days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date (negative before it).
    @inlinable public var daysSince1970: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
