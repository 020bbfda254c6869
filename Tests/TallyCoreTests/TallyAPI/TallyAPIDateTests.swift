import Foundation
import TallyCore
import Testing

/// API dates are written and read by `Date.ISO8601FormatStyle` where the system has it (iOS 15,
/// macOS 12) and by `ISO8601DateFormatter` below; both must write the same text and read the
/// same dates, or a device on iOS 14 and one on iOS 17 would disagree with the server.
@Suite struct TallyAPIDateTests {
    static let dates: [Date] = [
        Date(timeIntervalSince1970: 0),
        Date(timeIntervalSince1970: 1_772_323_200),  // 2026-03-01T00:00:00Z
        Date(timeIntervalSince1970: 1_772_323_200.123),
        Date(timeIntervalSince1970: 1_772_323_200.5),
        Date(timeIntervalSince1970: 1_772_323_259.999),
        Date(timeIntervalSince1970: 4_102_444_799.001),  // 2099-12-31T23:59:59.001Z
        Date(timeIntervalSince1970: 951_782_400.25),  // 2000-02-29T00:00:00.250Z
    ]

    @Test(arguments: dates)
    func bothFormattersWriteTheSameText(date: Date) {
        #expect(TallyAPI.formatterTimestamp(date) == TallyAPI.timestamp(date))
    }

    @Test(arguments: [
        (1_772_323_200.5, "2026-03-01T00:00:00.500Z"), (1_772_323_200.123, "2026-03-01T00:00:00.123Z"),
        (1_772_323_200.000_4, "2026-03-01T00:00:00.000Z"), (1_772_323_200.999_6, "2026-03-01T00:00:01.000Z"),
        (4_102_444_799.001, "2099-12-31T23:59:59.001Z"),
    ])
    func timestampsAreTheNearestMillisecondInUTC(seconds: Double, text: String) {
        #expect(TallyAPI.timestamp(Date(timeIntervalSince1970: seconds)) == text)
        #expect(TallyAPI.formatterTimestamp(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test(arguments: [
        "2026-03-01T00:00:00.000Z", "2026-03-01T00:00:00Z", "2026-03-01T00:00:00.5Z", "2026-03-01T00:00:00.123Z",
        "2026-03-01T02:00:00+02:00", "2026-03-01T02:00:00.250+02:00", "2000-02-29T23:59:59.999Z",
    ])
    func bothParsersReadTheSameDate(text: String) throws {
        let modern = try #require(TallyAPI.date(text))
        let fallback = try #require(TallyAPI.formatterDate(text))
        // The same instant, give or take the last bits of a Double (well under a microsecond).
        #expect(abs(modern.timeIntervalSince(fallback)) < 0.000_001, "\(text): \(modern) vs \(fallback)")
        #expect(TallyAPI.timestamp(modern) == TallyAPI.formatterTimestamp(fallback))
    }

    /// The API writes milliseconds; finer digits from elsewhere are read to within a millisecond
    /// (the formatter class keeps milliseconds only).
    @Test(arguments: ["2026-03-01T00:00:00.123456Z", "2026-03-01T00:00:00.999999Z", "2026-03-01T00:00:00.0001Z"])
    func finerThanMillisecondsIsReadToTheMillisecond(text: String) throws {
        let modern = try #require(TallyAPI.date(text))
        let fallback = try #require(TallyAPI.formatterDate(text))
        #expect(abs(modern.timeIntervalSince(fallback)) < 0.001, "\(text): \(modern) vs \(fallback)")
    }

    @Test(arguments: ["", "2026-03-01", "2026-03-01 00:00:00Z", "yesterday", "2026-13-01T00:00:00Z", "2026-03-01T00:00:00"])
    func bothParsersRefuseTheSameText(text: String) {
        #expect(TallyAPI.date(text) == nil)
        #expect(TallyAPI.formatterDate(text) == nil)
    }

    @Test(arguments: dates)
    func whatOneWritesTheOtherReads(date: Date) throws {
        let written = TallyAPI.timestamp(date)
        let modern = try #require(TallyAPI.date(TallyAPI.formatterTimestamp(date)))
        let fallback = try #require(TallyAPI.formatterDate(written))
        #expect(abs(modern.timeIntervalSince(date)) <= 0.000_5)
        #expect(abs(fallback.timeIntervalSince(date)) <= 0.000_5)
        #expect(TallyAPI.timestamp(modern) == written)
        #expect(TallyAPI.formatterTimestamp(fallback) == written)
    }
}
