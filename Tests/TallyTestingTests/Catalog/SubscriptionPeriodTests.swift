import Foundation
import TallyTesting
import Testing

extension CatalogTests {
    @Suite struct SubscriptionPeriodTests {
        /// A UTC instant from `yyyy-MM-ddTHH:mm:ssZ`.
        static func utc(_ text: String) throws -> Date {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            return try #require(formatter.date(from: text), "\(text)")
        }

        @Test(arguments: [
            ("P1W", 1, SubscriptionPeriod.Unit.week), ("P1M", 1, .month), ("P2M", 2, .month), ("P3M", 3, .month),
            ("P6M", 6, .month), ("P1Y", 1, .year), ("P3D", 3, .day), ("P2W", 2, .week), ("P12M", 12, .month), ("P1000D", 1000, .day),
        ])
        func readsXcodePeriods(text: String, value: Int, unit: SubscriptionPeriod.Unit) throws {
            let period = try #require(SubscriptionPeriod(iso8601: text))
            #expect(period.value == value)
            #expect(period.unit == unit)
            #expect(period.iso8601 == text)
        }

        @Test(arguments: [
            "", "P", "P1", "1M", "M", "p1m", "P1m", "P0M", "P01M", "P-1M", "P+1M", "P1.5M", "P1M2D", "PT1H", "P1H", "P1001D", "P99999Y", " P1M", "P1M ", "P١M",
        ])
        func rejectsAnythingElse(text: String) {
            #expect(SubscriptionPeriod(iso8601: text) == nil)
        }

        @Test func encodesAsItsISO8601Text() throws {
            let period = SubscriptionPeriod(value: 2, unit: .week)
            let data = try JSONEncoder().encode([period])
            #expect(String(decoding: data, as: UTF8.self) == "[\"P2W\"]")
            #expect(try JSONDecoder().decode([SubscriptionPeriod].self, from: data) == [period])
            #expect(throws: DecodingError.self) { try JSONDecoder().decode([SubscriptionPeriod].self, from: Data("[\"P1Q\"]".utf8)) }
        }

        @Test func aMonthFromTheThirtyFirstOfJanuaryEndsOnTheLastDayOfFebruary() throws {
            let monthly = SubscriptionPeriod(value: 1, unit: .month)
            #expect(monthly.advance(try Self.utc("2025-01-31T10:15:00Z")) == (try Self.utc("2025-02-28T10:15:00Z")))
            #expect(monthly.advance(try Self.utc("2024-01-31T10:15:00Z")) == (try Self.utc("2024-02-29T10:15:00Z")), "leap year")
        }

        @Test func countingFromTheStartKeepsTheDayOfTheMonth() throws {
            let monthly = SubscriptionPeriod(value: 1, unit: .month)
            let start = try Self.utc("2025-01-31T00:00:00Z")
            #expect(monthly.advance(start, times: 2) == (try Self.utc("2025-03-31T00:00:00Z")))
            #expect(monthly.advance(start, times: 3) == (try Self.utc("2025-04-30T00:00:00Z")))
            #expect(monthly.advance(start, times: 0) == start)
        }

        @Test func yearsAcrossLeapDays() throws {
            let yearly = SubscriptionPeriod(value: 1, unit: .year)
            #expect(yearly.advance(try Self.utc("2024-02-29T12:00:00Z")) == (try Self.utc("2025-02-28T12:00:00Z")))
            #expect(yearly.advance(try Self.utc("2024-02-29T12:00:00Z"), times: 4) == (try Self.utc("2028-02-29T12:00:00Z")))
            #expect(yearly.advance(try Self.utc("2023-03-01T00:00:00Z")) == (try Self.utc("2024-03-01T00:00:00Z")))
        }

        @Test func aWeekIsSevenDaysOfUTCWhateverTheLocalClocksDo() throws {
            // 9 March 2025 is the start of daylight saving time in the United States; UTC has none.
            let start = try Self.utc("2025-03-08T12:00:00Z")
            let end = SubscriptionPeriod(value: 1, unit: .week).advance(start)
            #expect(end == (try Self.utc("2025-03-15T12:00:00Z")))
            #expect(end.timeIntervalSince(start) == 7 * 86_400)
            #expect(SubscriptionPeriod(value: 2, unit: .week).advance(start) == (try Self.utc("2025-03-22T12:00:00Z")))
        }

        @Test func threeDaysCrossTheYearEnd() throws {
            let threeDays = SubscriptionPeriod(value: 3, unit: .day)
            #expect(threeDays.advance(try Self.utc("2024-12-30T23:59:59Z")) == (try Self.utc("2025-01-02T23:59:59Z")))
            #expect(threeDays.advance(try Self.utc("2024-02-27T00:00:00Z")) == (try Self.utc("2024-03-01T00:00:00Z")), "29 February counts")
        }
    }
}
