import Foundation
import TallyCore
import Testing

@testable import TallyServer

/// The rules that turn one subscription's transactions into the rollups' changes
/// (docs/metrics.md), on hand-made histories with hand-computed answers.
@Suite struct SubscriptionPeriodsTests {
    static let day: Int64 = 86_400_000
    /// 2026-01-01T00:00:00Z.
    static let january: Int64 = 1_767_225_600_000

    static func period(
        _ id: String, start: Int64, days: Int64, price: Int64, product: String = "monthly", revokedAt: Int64? = nil,
        environment: String = "Production"
    ) -> MetricsTransaction {
        var transaction = MetricsTransaction(
            StoreTransaction(TransactionPayload(), kind: .autoRenewable, userID: nil, appUserID: nil), payload: TransactionPayload())
        transaction.transactionID = id
        transaction.originalTransactionID = "o1"
        transaction.productID = product
        transaction.environment = environment
        transaction.purchaseDate = start
        transaction.expiresDate = start + days * day
        transaction.price = price
        transaction.currency = "USD"
        transaction.revoked = revokedAt != nil
        transaction.revokedAt = revokedAt
        return transaction
    }

    /// The changes of one figure, by day index from 2026-01-01 (all products and currencies).
    static func figure(_ contributions: MetricContributions, _ figure: MetricFigure) -> [Int64: Int64] {
        var result: [Int64: Int64] = [:]
        for (key, value) in contributions.values where key.figure == figure && value != 0 {
            result[key.day - MetricContributions.day(january), default: 0] += value
        }
        return result.filter { $0.value != 0 }
    }

    @Test func aTrialThatConvertsAndRenewsOnceThenLapses() {
        // Trial 7 days from Jan 1, paid month at 9.99 from Jan 8, renewed Feb 8 (31 days), expires Mar 8 (28 days).
        let history = [
            Self.period("t1", start: Self.january, days: 7, price: 0),
            Self.period("t2", start: Self.january + 7 * Self.day, days: 31, price: 9_990),
            Self.period("t3", start: Self.january + 38 * Self.day, days: 28, price: 9_990),
        ]
        let changes = MetricContributions.of(history)
        #expect(Self.figure(changes, .trials) == [0: 1, 7: -1])
        #expect(Self.figure(changes, .trialStarted) == [0: 1])
        #expect(Self.figure(changes, .trialConverted) == [0: 1])
        // Active from Jan 8 to Mar 8: the renewal's −1 and +1 on Feb 8 cancel.
        #expect(Self.figure(changes, .active) == [7: 1, 66: -1])
        #expect(Self.figure(changes, .new) == [7: 1])
        #expect(Self.figure(changes, .renewed) == [38: 1])
        #expect(Self.figure(changes, .churned) == [66: 1])
        // A month's price × 12 a year.
        #expect(Self.figure(changes, .arr) == [7: 119_880, 66: -119_880])
        #expect(Self.figure(changes, .arrNew) == [7: 119_880])
        #expect(Self.figure(changes, .arrChurned) == [66: 119_880])
        // Paid from Jan 8 until Mar 8: still paid a month later (Feb 8), not two (Mar 8 is its
        // end): one paid run of span 1, on the day it began.
        let runs = changes.values.filter { $0.key.figure == .paidRun }
        #expect(runs.map { [$0.key.day - MetricContributions.day(Self.january), $0.key.span, $0.value] } == [[7, 1, 1]])
        // Revenue: two payments of 9.99 (and the trial's 0).
        #expect(Self.figure(changes, .revenue) == [7: 9_990, 38: 9_990])
        #expect(Self.figure(changes, .purchases) == [0: 1, 7: 1, 38: 1])
    }

    @Test func anUpgradeIsAnExpansionNotARenewalAndCutsThePeriodBefore() {
        // Monthly 9.99 from Jan 1; upgraded on Jan 11 to a yearly 99.99.
        let history = [
            Self.period("t1", start: Self.january, days: 31, price: 9_990),
            Self.period("t2", start: Self.january + 10 * Self.day, days: 365, price: 99_990, product: "yearly"),
        ]
        let changes = MetricContributions.of(history)
        #expect(Self.figure(changes, .active) == [0: 1, 375: -1])
        #expect(Self.figure(changes, .renewed).isEmpty)
        #expect(Self.figure(changes, .new) == [0: 1])
        // 119,880 a year before, 99,990 after: a contraction of 19,890 (a yearly plan is cheaper per month).
        #expect(Self.figure(changes, .arrContraction) == [10: 19_890])
        #expect(Self.figure(changes, .arr) == [0: 119_880, 10: 99_990 - 119_880, 375: -99_990])
    }

    @Test func aRefundEndsTheRunOnItsDayAndARenewalWithinBillingRetryIsNoChurn() {
        // Paid Jan 1 – Feb 1; billing retry; renewed Feb 11 (10 days later) until Mar 11, refunded on Feb 20.
        let history = [
            Self.period("t1", start: Self.january, days: 31, price: 9_990),
            Self.period("t2", start: Self.january + 41 * Self.day, days: 28, price: 9_990, revokedAt: Self.january + 50 * Self.day),
        ]
        let changes = MetricContributions.of(history)
        // A gap from Feb 1 to Feb 11, out of the active count, then active until the refund.
        #expect(Self.figure(changes, .active) == [0: 1, 31: -1, 41: 1, 50: -1])
        #expect(Self.figure(changes, .renewed) == [41: 1])
        #expect(Self.figure(changes, .churned) == [50: 1])
        #expect(Self.figure(changes, .refunds) == [50: 1])
        #expect(Self.figure(changes, .refunded) == [50: 9_990])
    }

    @Test func aReturnAfterMoreThanSixtyDaysIsANewRun() {
        let history = [
            Self.period("t1", start: Self.january, days: 31, price: 9_990),
            Self.period("t2", start: Self.january + 100 * Self.day, days: 30, price: 9_990),
        ]
        let changes = MetricContributions.of(history)
        #expect(Self.figure(changes, .new) == [0: 1, 100: 1])
        #expect(Self.figure(changes, .churned) == [31: 1, 130: 1])
        #expect(Self.figure(changes, .renewed).isEmpty)
    }

    @Test func familySharedCopiesCountNowhere() {
        var shared = Self.period("t1", start: Self.january, days: 31, price: 9_990)
        shared.familyShared = true
        #expect(MetricContributions.of([shared]).changes.isEmpty)
    }

    @Test func periodsPerYearAreApplesNearestDurationRealOrSandbox() {
        let minute: Int64 = 60_000
        #expect(SubscriptionPeriods.periodsPerYear(7 * Self.day) == 52)
        #expect(SubscriptionPeriods.periodsPerYear(28 * Self.day) == 12)
        #expect(SubscriptionPeriods.periodsPerYear(31 * Self.day) == 12)
        #expect(SubscriptionPeriods.periodsPerYear(92 * Self.day) == 4)
        #expect(SubscriptionPeriods.periodsPerYear(181 * Self.day) == 2)
        #expect(SubscriptionPeriods.periodsPerYear(366 * Self.day) == 1)
        #expect(SubscriptionPeriods.periodsPerYear(5 * minute) == 12)
        #expect(SubscriptionPeriods.periodsPerYear(60 * minute) == 1)
    }

    @Test func wholeMonthsCountFromTheSameDayAndTimeOrTheMonthsLastDay() {
        let hour: Int64 = 3_600_000
        let january31 = Self.january + 30 * Self.day + 10 * hour
        // 2026-02-28 10:00 is a month after 2026-01-31 10:00: a run paid past it lasted a month,
        // one that ends at it did not.
        let february28 = Self.january + 58 * Self.day
        #expect(SubscriptionPeriods.wholeMonths(from: january31, to: february28 + 10 * hour + 60_000) == 1)
        #expect(SubscriptionPeriods.wholeMonths(from: january31, to: february28 + 10 * hour) == 0)
        #expect(SubscriptionPeriods.wholeMonths(from: Self.january, to: Self.january + 365 * Self.day) == 11)
        #expect(SubscriptionPeriods.wholeMonths(from: Self.january, to: Self.january + 366 * Self.day) == 12)
    }
}

/// The first day of a day's month, by arithmetic, against Foundation's calendar.
@Suite struct MonthStartTests {
    @Test func everyDayFrom1960To2100FallsInTheMonthTheCalendarSays() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Every 13th day: all months, days of the month and leap years are met.
        for day in stride(from: Int64(-3_653), through: 47_482, by: 13) {
            let date = Date(timeIntervalSince1970: TimeInterval(day) * 86_400)
            let first = calendar.date(from: calendar.dateComponents([.year, .month], from: date))!
            #expect(MetricsStore.monthStart(day) == Int64(first.timeIntervalSince1970 / 86_400), "day \(day)")
        }
    }
}
