import Foundation
import TallyCore
import Testing

/// Days since 1970 and calendar dates, both ways, against Foundation's Gregorian calendar.
@Suite struct CivilDateTests {
    @Test(arguments: [
        (0, 1970, 1, 1), (-1, 1969, 12, 31), (59, 1970, 3, 1), (19_876, 2024, 6, 2),
        (11_016, 2000, 2, 29), (-719_468, 0, 3, 1), (2_932_896, 9999, 12, 31),
    ])
    func knownDays(days: Int, year: Int, month: Int, day: Int) {
        #expect(CivilDate(daysSince1970: days) == CivilDate(year: year, month: month, day: day))
        #expect(CivilDate(year: year, month: month, day: day).daysSince1970 == days)
    }

    /// Every day from 1900 to 2100 agrees with Foundation's calendar and comes back to itself.
    @Test func everyDayOfTwoCenturiesAgreesWithTheCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for days in -25_567...47_482 {
            let date = CivilDate(daysSince1970: days)
            let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            #expect([date.year, date.month, date.day] == [parts.year, parts.month, parts.day])
            #expect(date.daysSince1970 == days)
        }
    }
}
