import Foundation
import TallyCore
import Testing

/// One rounding for stored times: the millisecond a date falls in, and whole milliseconds
/// back unchanged.
@Suite struct EpochMillisecondsTests {
    static let base: TimeInterval = 1_772_323_200  // 2026-03-01T00:00:00Z

    @Test func aDateJustBeforeAMillisecondIsStillInThePreviousOne() {
        // 0.998 ms past the second: the nearest millisecond would be a time not yet come.
        #expect(EpochMilliseconds.of(Date(timeIntervalSince1970: Self.base + 0.000_998)) == 1_772_323_200_000)
        #expect(EpochMilliseconds.of(Date(timeIntervalSince1970: Self.base + 0.123_6)) == 1_772_323_200_123)
    }

    @Test func aDateLessThanAMicrosecondBelowAMillisecondIsThatMillisecond() {
        // What Double makes of a whole millisecond: a few tenths of a microsecond off it.
        #expect(EpochMilliseconds.of(Date(timeIntervalSince1970: Self.base + 0.000_999_6)) == 1_772_323_200_001)
    }

    @Test func aDateJustAfterAMillisecondIsInIt() {
        #expect(EpochMilliseconds.of(Date(timeIntervalSince1970: Self.base + 0.001_01)) == 1_772_323_200_001)
    }

    @Test func beforeNineteenSeventyRoundsDownToo() {
        #expect(EpochMilliseconds.of(Date(timeIntervalSince1970: -0.000_5)) == -1)
        #expect(EpochMilliseconds.of(Date(timeIntervalSince1970: -0.001)) == -1)
    }

    @Test func datesBeyondInt64AreClampedNotTrapped() {
        #expect(EpochMilliseconds.of(Date(timeIntervalSince1970: 1e300)) > 9_000_000_000_000_000_000)
        #expect(EpochMilliseconds.of(Date(timeIntervalSince1970: -1e300)) < -9_000_000_000_000_000_000)
        #expect(EpochMilliseconds.of(.distantFuture) == 64_092_211_200_000)
    }

    @Test(arguments: [0, 1, 999, 1_772_323_200_001, 1_772_323_200_123, 1_772_323_200_999, 4_102_444_799_999, -1, -999])
    func wholeMillisecondsComeBackUnchanged(milliseconds: Int64) {
        #expect(EpochMilliseconds.of(EpochMilliseconds.date(milliseconds)) == milliseconds)
    }

    /// Dates are held as seconds since 2001: for about a quarter of the milliseconds of a
    /// second in 1983, the date made from them reads back a hair below them (`.00099…`).
    @Test(arguments: [Int64(421_259_952_000), 1_772_323_200_000])
    func everyMillisecondOfASecondComesBackUnchanged(start: Int64) {
        let changed = (start..<start + 1_000).filter { EpochMilliseconds.of(EpochMilliseconds.date($0)) != $0 }
        #expect(changed.isEmpty)
    }

    @Test func aMonthAddedByTheCalendarToAMillisecondIsAWholeMillisecond() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let anchor = EpochMilliseconds.date(1_772_323_200_123)  // 2026-03-01T00:00:00.123Z
        let next = try #require(calendar.date(byAdding: .month, value: 1, to: anchor))
        #expect(EpochMilliseconds.of(next) == 1_772_323_200_123 + 31 * 86_400_000)
    }
}
