import TallyTesting
import Testing

extension CatalogTests {
    @Suite struct TimeRateTests {
        static let xcodeRawValues: [(String, Int)] = [
            ("realTime", 0), ("oneHourIsOneDay", 1), ("thirtyMinutesIsOneDay", 2), ("fiveMinutesIsOneDay", 3),
            ("oneMinuteIsOneDay", 4), ("thirtySecondsIsOneDay", 5), ("oneSecondIsOneDay", 6),
            ("monthlyRenewalEveryHour", 10), ("monthlyRenewalEveryThirtyMinutes", 11), ("monthlyRenewalEveryFifteenMinutes", 12),
            ("monthlyRenewalEveryFiveMinutes", 13), ("monthlyRenewalEveryThirtySeconds", 15),
            ("oneRenewalEveryFifteenMinutes", 1000), ("oneRenewalEveryFiveMinutes", 1001), ("oneRenewalEveryMinute", 1002),
            ("oneRenewalEveryThirtySeconds", 1003), ("oneRenewalEveryTenSeconds", 1004), ("oneRenewalEveryTwoSeconds", 1005),
        ]

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        static func period(_ text: String) -> SubscriptionPeriod { SubscriptionPeriod(iso8601: text)! }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test func namesAndRawValuesAreXcodes() throws {
            #expect(TimeRate.allCases.map(\.rawValue) == Self.xcodeRawValues.map(\.1))
            for (name, raw) in Self.xcodeRawValues {
                let rate = try #require(TimeRate(rawValue: raw))
                #expect(rate.name == name)
                #expect(TimeRate(name: name) == rate)
            }
            #expect(TimeRate.monthlyRenewalEveryThirtySeconds.rawValue == 15)
            #expect(TimeRate.oneRenewalEveryTwoSeconds.rawValue == 1005)
            #expect(TimeRate.oneMinuteIsOneDay.isDeprecated && !TimeRate.realTime.isDeprecated)
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test(arguments: [
            "monthlyRenewalEveryThirtySeconds", "monthlyrenewaleverythirtyseconds", "MONTHLYRENEWALEVERYTHIRTYSECONDS",
            "monthly-renewal-every-thirty-seconds", "Monthly-Renewal-Every-Thirty-Seconds", "monthly_renewal_every_thirty_seconds",
            "15", " 15 ",
        ])
        func readsCaseNamesInAnySpellingAndRawNumbers(text: String) {
            #expect(TimeRate(name: text) == .monthlyRenewalEveryThirtySeconds)
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test(arguments: ["", "-", "fast", "7", "14", "999", "1006", "monthlyRenewalEveryTwoSeconds", "real time please"])
        func rejectsUnknownNamesAndNumbers(text: String) {
            #expect(TimeRate(name: text) == nil)
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test func unknownRawValuesAreNotRates() {
            for raw in [-1, 7, 9, 14, 16, 999, 1006] {
                #expect(TimeRate(rawValue: raw) == nil, "\(raw)")
            }
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test func realTimeUsesTheCalendar() {
            for text in ["P1W", "P1M", "P1Y", "P3D"] {
                #expect(TimeRate.realTime.renewalInterval(for: Self.period(text)) == nil)
                #expect(TimeRate.realTime.billingWindows(for: Self.period(text)) == nil)
            }
            #expect(TimeRate.realTimeGraceDays(for: Self.period("P1W")) == 6)
            #expect(TimeRate.realTimeGraceDays(for: Self.period("P1M")) == 16)
            #expect(TimeRate.realTimeGraceDays(for: Self.period("P1Y")) == 16)
            #expect(TimeRate.realTimeBillingRetryDays == 60)
        }

        /// Apple's tables: weekly, monthly, bimonthly, quarterly, semiannually, annually, in seconds.
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test(arguments: [
            (TimeRate.monthlyRenewalEveryHour, [900, 3600, 7200, 10_800, 21_600, 43_200]),
            (TimeRate.monthlyRenewalEveryThirtyMinutes, [600, 1800, 3600, 5400, 10_800, 21_600]),
            (TimeRate.monthlyRenewalEveryFifteenMinutes, [300, 900, 1800, 2700, 5400, 10_800]),
            (TimeRate.monthlyRenewalEveryFiveMinutes, [180, 300, 600, 900, 1800, 3600]),
            (TimeRate.monthlyRenewalEveryThirtySeconds, [10, 30, 60, 90, 180, 360]),
        ])
        func monthlyRatesFollowApplesTables(rate: TimeRate, seconds: [Int]) {
            let periods = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"].map(Self.period)
            #expect(periods.map { rate.renewalInterval(for: $0) } == seconds.map { .seconds($0) })
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test func dayPeriodsUnderMonthlyRatesAreSeventhsOfAWeek() {
            #expect(TimeRate.monthlyRenewalEveryFiveMinutes.renewalInterval(for: Self.period("P3D")) == .seconds(540) / 7)
            #expect(TimeRate.monthlyRenewalEveryThirtySeconds.renewalInterval(for: Self.period("P7D")) == .seconds(10))
            #expect(TimeRate.monthlyRenewalEveryHour.renewalInterval(for: Self.period("P2W")) == .seconds(1800))
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test(arguments: [
            (TimeRate.oneRenewalEveryFifteenMinutes, 900), (.oneRenewalEveryFiveMinutes, 300), (.oneRenewalEveryMinute, 60),
            (.oneRenewalEveryThirtySeconds, 30), (.oneRenewalEveryTenSeconds, 10), (.oneRenewalEveryTwoSeconds, 2),
        ])
        func fixedRatesRenewEveryPeriodAtTheirInterval(rate: TimeRate, seconds: Int) {
            for text in ["P3D", "P1W", "P1M", "P6M", "P1Y"] {
                #expect(rate.renewalInterval(for: Self.period(text)) == .seconds(seconds), "\(text)")
                #expect(rate.billingWindows(for: Self.period(text)) == .init(gracePeriod: .seconds(seconds), billingRetryPeriod: .seconds(2 * seconds)))
            }
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test func deprecatedRatesScaleADay() {
            #expect(TimeRate.oneMinuteIsOneDay.renewalInterval(for: Self.period("P1W")) == .seconds(7 * 60))
            #expect(TimeRate.oneMinuteIsOneDay.renewalInterval(for: Self.period("P1M")) == .seconds(30 * 60))
            #expect(TimeRate.oneSecondIsOneDay.renewalInterval(for: Self.period("P1Y")) == .seconds(365))
            #expect(TimeRate.oneHourIsOneDay.renewalInterval(for: Self.period("P3D")) == .seconds(3 * 3600))
            #expect(TimeRate.oneSecondIsOneDay.billingWindows(for: Self.period("P1W")) == .init(gracePeriod: .seconds(6), billingRetryPeriod: .seconds(60)))
            #expect(
                TimeRate.thirtySecondsIsOneDay.billingWindows(for: Self.period("P1M"))
                    == .init(gracePeriod: .seconds(16 * 30), billingRetryPeriod: .seconds(60 * 30)))
        }

        /// Apple's tables: grace for weekly, grace for the others, billing retry, in seconds.
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        @Test(arguments: [
            (TimeRate.monthlyRenewalEveryHour, 12 * 60 + 51, 30 * 60, 2 * 3600),
            (TimeRate.monthlyRenewalEveryThirtyMinutes, 8 * 60 + 34, 15 * 60, 3600),
            (TimeRate.monthlyRenewalEveryFifteenMinutes, 4 * 60 + 17, 7 * 60 + 30, 30 * 60),
            (TimeRate.monthlyRenewalEveryFiveMinutes, 2 * 60 + 34, 2 * 60 + 30, 10 * 60),
            (TimeRate.monthlyRenewalEveryThirtySeconds, 9, 15, 60),
        ])
        func graceAndRetryFollowApplesTables(rate: TimeRate, weeklyGrace: Int, grace: Int, retry: Int) {
            #expect(rate.billingWindows(for: Self.period("P1W")) == .init(gracePeriod: .seconds(weeklyGrace), billingRetryPeriod: .seconds(retry)))
            for text in ["P1M", "P2M", "P3M", "P6M", "P1Y"] {
                #expect(rate.billingWindows(for: Self.period(text)) == .init(gracePeriod: .seconds(grace), billingRetryPeriod: .seconds(retry)), "\(text)")
            }
        }
    }
}
