import Foundation
import TallyCore
import TallyServer
import TallyTesting
import Testing

/// The figures of docs/metrics.md, worked out by hand for histories the simulated App Store
/// makes in production time, against what ``MetricsStore/report(_:)`` reports, on every backend.
///
/// Prices (milliunits a period): premium 14_990 a month, monthly 9_990 a month after a free week,
/// yearly 59_990 a year, weekly 2_990 a week. A period's monthly price is price × periods a year
/// ÷ 12, summed per year and divided once, rounded down. Purchases happen at 10:00 UTC, so a
/// period starting on a day covers the end of that day; every report is read after its window.
@Suite struct MetricsScenarioTests {
    typealias World = MetricsWorld

    // MARK: - Trials

    @Test(arguments: Backend.available)
    func aTrialThatBecomesPaidIsNewThatDayAndOneThatLapsesIsNeitherNewNorChurned(backend: Backend) async throws {
        let world = try await World(backend)
        let converts = try await world.customer()
        let lapses = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        // Both start the free week: 03-01T10:00 → 03-08T10:00, price 0.
        try await world.buy(converts, World.monthly)
        let trial = try await world.buy(lapses, World.monthly)
        #expect(trial.payload.price == 0)
        #expect(trial.payload.offerDiscountType == .freeTrial)
        try await world.advance(to: "2026-03-03T10:00:00Z")
        try await world.setAutoRenew(lapses, trial, false)
        // 03-08T10:00: one pays 9_990 for 03-08 → 04-08; the other's trial expires.
        try await world.advance(to: "2026-03-20T12:00:00Z")

        let report = try await world.metrics("2026-03-01", "2026-03-19")
        #expect(report.days.count == 19)
        // Two trials begin on 03-01 and cover the ends of 03-01 … 03-07 (7 days); none after.
        #expect(report.series(\.trialsStarted) == sparse(from: "2026-03-01", days: 19, ["2026-03-01": 2]))
        #expect(report.series(\.activeTrials) == runs((7, 2), (12, 0)))
        // The paid period covers the ends of 03-08 … 03-19 (12 days).
        #expect(report.series(\.activeSubscriptions) == runs((7, 0), (12, 1)))
        // A trial that became paid is a new paid run on its first paid day; the start of a trial is not.
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 19, ["2026-03-08": 1]))
        #expect(report.series(\.renewed) == runs((19, 0)))
        // A trial that ends unpaid ends no paid run.
        #expect(report.series(\.churned) == runs((19, 0)))

        // MRR: 9_990 × 12 ÷ 12 = 9_990 at the end; 0 at the start (03-01T00:00); all of it new.
        let mrr = report.mrr("USD")
        #expect(mrr.startMilliunits == 0)
        #expect(mrr.milliunits == 9_990)
        #expect(mrr.new == 9_990)
        #expect(mrr.expansion == 0)
        #expect(mrr.contraction == 0)
        #expect(mrr.churned == 0)

        // Trial cohort of March: 2 started, 1 followed within 60 days by a paid period.
        #expect(report.trials("2026-03").started == 2)
        #expect(report.trials("2026-03").converted == 1)
        // Retention of March: 1 paid run (began 03-08T10:00); k = 1 (04-08T10:00) is not reached,
        // so only k = 0, when every subscriber is paying.
        #expect(report.retention("2026-03").subscribers == 1)
        #expect(report.retention("2026-03").retained == [1])

        // Revenue: 9_990 on 03-08; the free weeks add no money.
        #expect(report.revenue("2026-03-08").purchases == 1)
        #expect(report.revenue("2026-03-08").milliunits == 9_990)
        #expect(report.revenue("2026-03-01").milliunits == 0)
        #expect(report.revenue.reduce(0) { $0 + $1.refunds } == 0)

        // A window from 03-05 carries what began before it: two trials on 03-05 … 03-07.
        let later = try await world.metrics("2026-03-05", "2026-03-19")
        #expect(later.series(\.activeTrials) == runs((3, 2), (12, 0)))
        #expect(later.series(\.trialsStarted) == runs((15, 0)))
        #expect(later.series(\.new) == sparse(from: "2026-03-05", days: 15, ["2026-03-08": 1]))
        #expect(later.mrr("USD").startMilliunits == 0)
        #expect(later.mrr("USD").milliunits == 9_990)
    }

    @Test(arguments: Backend.available)
    func aTrialConvertsOnlyWhenItsNextPeriodIsPaidWithin60DaysOfItsEnd(backend: Backend) async throws {
        let world = try await World(backend)
        let soon = try await world.customer()
        let late = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        // Both start the free week (03-01T10:00 → 03-08T10:00) and let it lapse.
        let soonTrial = try await world.buy(soon, World.monthly)
        let lateTrial = try await world.buy(late, World.monthly)
        try await world.advance(to: "2026-03-02T10:00:00Z")
        try await world.setAutoRenew(soon, soonTrial, false)
        try await world.setAutoRenew(late, lateTrial, false)
        // 20 days after the trial ended: paid, 03-28T10:00 → 04-28T10:00, renewed → 05-28T10:00.
        try await world.advance(to: "2026-03-28T10:00:00Z")
        #expect(try await world.buy(soon, World.monthly).payload.price == 9_990)
        // 70 days after: paid, 05-17T10:00 → 06-17T10:00.
        try await world.advance(to: "2026-05-17T10:00:00Z")
        #expect(try await world.buy(late, World.monthly).payload.price == 9_990)
        try await world.advance(to: "2026-05-20T12:00:00Z")

        // 03-01 … 05-19: 80 days.
        let report = try await world.metrics("2026-03-01", "2026-05-19")
        // Of March's 2 trials, only the one whose next period began within 60 days of its end converted.
        #expect(report.trials("2026-03").started == 2)
        #expect(report.trials("2026-03").converted == 1)
        #expect(report.series(\.activeTrials) == runs((7, 2), (73, 0)))
        // Each first payment begins a paid run.
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 80, ["2026-03-28": 1, "2026-05-17": 1]))
        #expect(report.series(\.renewed) == sparse(from: "2026-03-01", days: 80, ["2026-04-28": 1]))
        #expect(report.series(\.churned) == runs((80, 0)))
        // None 03-01 … 03-27 (27); one 03-28 … 05-16 (50); both 05-17 … 05-19 (3).
        #expect(report.series(\.activeSubscriptions) == runs((27, 0), (50, 1), (3, 2)))
        // 2 × 9_990.
        #expect(report.mrr("USD").new == 19_980)
        #expect(report.mrr("USD").milliunits == 19_980)
    }

    // MARK: - Plan changes

    @Test(arguments: Backend.available)
    func anUpgradeIsExpansionNotARenewalAndTheSubscriptionCountsOnce(backend: Backend) async throws {
        let world = try await World(backend)
        let customer = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        try await world.buy(customer, World.monthly)  // free week → paid 03-08T10:00 (9_990) → 04-08T10:00
        try await world.advance(to: "2026-03-15T10:00:00Z")
        // Premium is the higher level: Apple starts it at once, 03-15T10:00 → 04-15T10:00 at 14_990,
        // and the monthly period ends there.
        let upgrade = try await world.buy(customer, World.premium)
        #expect(upgrade.payload.purchaseDate == World.instant("2026-03-15T10:00:00Z"))
        try await world.advance(to: "2026-03-20T12:00:00Z")

        let report = try await world.metrics("2026-03-01", "2026-03-19")
        #expect(report.series(\.activeSubscriptions) == runs((7, 0), (12, 1)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 19, ["2026-03-08": 1]))
        // The upgrade begins before the period before it ended: a plan change, not a renewal.
        #expect(report.series(\.renewed) == runs((19, 0)))
        #expect(report.series(\.churned) == runs((19, 0)))

        // MRR: new 9_990 (the run began monthly); expansion 14_990 − 9_990 = 5_000;
        // end 0 + 9_990 + 5_000 = 14_990 (premium × 12 ÷ 12).
        let mrr = report.mrr("USD")
        #expect(mrr.startMilliunits == 0)
        #expect(mrr.new == 9_990)
        #expect(mrr.expansion == 5_000)
        #expect(mrr.contraction == 0)
        #expect(mrr.churned == 0)
        #expect(mrr.milliunits == 14_990)

        // Revenue: 9_990 on 03-08, 14_990 on 03-15.
        #expect(report.revenue("2026-03-08").milliunits == 9_990)
        #expect(report.revenue("2026-03-15").purchases == 1)
        #expect(report.revenue("2026-03-15").milliunits == 14_990)
        // One run, whatever its plans.
        #expect(report.retention("2026-03").subscribers == 1)
        #expect(report.trials("2026-03").started == 1)
        #expect(report.trials("2026-03").converted == 1)
    }

    @Test(arguments: Backend.available)
    func aDowngradeAtRenewalIsARenewalAndContraction(backend: Backend) async throws {
        let world = try await World(backend)
        let customer = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        try await world.buy(customer, World.premium)  // 03-01T10:00 → 04-01T10:00 at 14_990
        try await world.advance(to: "2026-03-10T10:00:00Z")
        // A lower level: takes effect at the next renewal, 04-01T10:00 → 05-01T10:00 at 9_990.
        try await world.buy(customer, World.monthly)
        try await world.advance(to: "2026-04-10T12:00:00Z")
        #expect(try await world.latest(customer, World.monthly).payload.purchaseDate == World.instant("2026-04-01T10:00:00Z"))

        // 03-01 … 04-09: 40 days.
        let report = try await world.metrics("2026-03-01", "2026-04-09")
        #expect(report.days.count == 40)
        #expect(report.series(\.activeSubscriptions) == runs((40, 1)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 40, ["2026-03-01": 1]))
        // The cheaper plan begins where the dearer one ended: a renewal.
        #expect(report.series(\.renewed) == sparse(from: "2026-03-01", days: 40, ["2026-04-01": 1]))
        #expect(report.series(\.churned) == runs((40, 0)))

        // MRR: new 14_990; contraction 14_990 − 9_990 = 5_000; end 0 + 14_990 − 5_000 = 9_990.
        let mrr = report.mrr("USD")
        #expect(mrr.startMilliunits == 0)
        #expect(mrr.new == 14_990)
        #expect(mrr.expansion == 0)
        #expect(mrr.contraction == 5_000)
        #expect(mrr.churned == 0)
        #expect(mrr.milliunits == 9_990)

        #expect(report.revenue("2026-03-01").milliunits == 14_990)
        #expect(report.revenue("2026-04-01").purchases == 1)
        #expect(report.revenue("2026-04-01").milliunits == 9_990)
        // Retention of March: 1 run. k = 1 is shown once every March run has had a month: from
        // 05-01 (the month after March, plus one), not yet.
        #expect(report.retention("2026-03").subscribers == 1)
        #expect(report.retention("2026-03").retained == [1])
        // A renewal starts no run: no April cohort.
        #expect(report.retention("2026-04").subscribers == 0)

        // A window from 03-15 (26 days) starts with premium's MRR and sees only the downgrade.
        let later = try await world.metrics("2026-03-15", "2026-04-09")
        #expect(later.series(\.activeSubscriptions) == runs((26, 1)))
        #expect(later.series(\.new) == runs((26, 0)))
        #expect(later.series(\.renewed) == sparse(from: "2026-03-15", days: 26, ["2026-04-01": 1]))
        // Start 14_990; end 14_990 − 5_000 = 9_990.
        #expect(later.mrr("USD").startMilliunits == 14_990)
        #expect(later.mrr("USD").new == 0)
        #expect(later.mrr("USD").contraction == 5_000)
        #expect(later.mrr("USD").churned == 0)
        #expect(later.mrr("USD").milliunits == 9_990)
        #expect(later.revenue("2026-03-01").purchases == 0)
        #expect(later.revenue("2026-04-01").milliunits == 9_990)

        // In May k = 1 is shown: still paying at 04-01T10:00 (the cheaper plan's start).
        try await world.advance(to: "2026-05-02T12:00:00Z")
        let may = try await world.metrics("2026-03-01", "2026-05-01")
        #expect(may.retention("2026-03").retained == [1, 1])
    }

    @Test(arguments: Backend.available)
    func aCrossgradeToTheYearlyPlanAtRenewalIsContractionEachFigureDividedOnItsOwn(backend: Backend) async throws {
        let world = try await World(backend)
        let customer = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        try await world.buy(customer, World.monthly)  // free week, then 9_990 from 03-08T10:00 → 04-08T10:00
        try await world.advance(to: "2026-03-20T10:00:00Z")
        // Another duration at the same level: from the next renewal, 04-08T10:00 → 2027-04-08T10:00 at 59_990.
        try await world.buy(customer, World.yearly)
        try await world.advance(to: "2026-04-10T12:00:00Z")
        #expect(try await world.latest(customer, World.yearly).payload.purchaseDate == World.instant("2026-04-08T10:00:00Z"))

        // 03-01 … 04-09: 40 days.
        let report = try await world.metrics("2026-03-01", "2026-04-09")
        #expect(report.series(\.activeSubscriptions) == runs((7, 0), (33, 1)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 40, ["2026-03-08": 1]))
        #expect(report.series(\.renewed) == sparse(from: "2026-03-01", days: 40, ["2026-04-08": 1]))
        #expect(report.series(\.churned) == runs((40, 0)))
        // Per year: new 9_990 × 12 = 119_880 → 9_990; contraction 119_880 − 59_990 = 59_890 →
        // 4_990 (59_890 ÷ 12 = 4_990.8, rounded down); end 59_990 → 4_999 (4_999.2). Each divided
        // on its own: 0 + 9_990 − 4_990 = 5_000, a milliunit from the end.
        let mrr = report.mrr("USD")
        #expect(mrr.startMilliunits == 0)
        #expect(mrr.new == 9_990)
        #expect(mrr.expansion == 0)
        #expect(mrr.contraction == 4_990)
        #expect(mrr.churned == 0)
        #expect(mrr.milliunits == 4_999)
        #expect(report.revenue("2026-04-08").milliunits == 59_990)
    }

    // MARK: - Refunds

    @Test(arguments: Backend.available)
    func aRefundEndsTheRunThatDayAndCountsOnTheRefundDay(backend: Backend) async throws {
        let world = try await World(backend)
        let renews = try await world.customer()
        let yearly = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        try await world.buy(renews, World.premium)  // 03-01T10:00 → 04-01T10:00, renewed → 05-01T10:00
        let year = try await world.buy(yearly, World.yearly)  // 03-01T10:00 → 2027-03-01T10:00 at 59_990
        try await world.advance(to: "2026-03-05T10:00:00Z")
        try await world.refund(yearly, year)  // the first (and only) period, refunded 03-05
        try await world.advance(to: "2026-04-05T10:00:00Z")
        let renewal = try await world.latest(renews, World.premium)
        #expect(renewal.payload.purchaseDate == World.instant("2026-04-01T10:00:00Z"))
        try await world.refund(renews, renewal)  // the current period, refunded 04-05
        try await world.advance(to: "2026-04-10T12:00:00Z")

        let report = try await world.metrics("2026-03-01", "2026-04-09")
        // Both on 03-01 … 03-04 (4 days); the monthly one alone 03-05 … 04-04 (31); none 04-05 … 04-09 (5).
        #expect(report.series(\.activeSubscriptions) == runs((4, 2), (31, 1), (5, 0)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 40, ["2026-03-01": 2]))
        #expect(report.series(\.renewed) == sparse(from: "2026-03-01", days: 40, ["2026-04-01": 1]))
        // Each run ends the day its current period is refunded.
        #expect(report.series(\.churned) == sparse(from: "2026-03-01", days: 40, ["2026-03-05": 1, "2026-04-05": 1]))

        // MRR per year: premium 14_990 × 12 = 179_880, yearly 59_990 × 1 = 59_990; together
        // 239_870 ÷ 12 = 19_989 (rounded down) new, and the same churned; end 0.
        let mrr = report.mrr("USD")
        #expect(mrr.startMilliunits == 0)
        #expect(mrr.new == 19_989)
        #expect(mrr.churned == 19_989)
        #expect(mrr.expansion == 0)
        #expect(mrr.contraction == 0)
        #expect(mrr.milliunits == 0)

        // Revenue on the purchase days (refunded or not): 14_990 + 59_990 = 74_980 on 03-01; 14_990 on 04-01.
        #expect(report.revenue("2026-03-01").purchases == 2)
        #expect(report.revenue("2026-03-01").milliunits == 74_980)
        #expect(report.revenue("2026-04-01").milliunits == 14_990)
        // Refunds on the refund days, at the refunded transactions' prices.
        #expect(report.revenue("2026-03-05").refunds == 1)
        #expect(report.revenue("2026-03-05").refundedMilliunits == 59_990)
        #expect(report.revenue("2026-03-05").purchases == 0)
        #expect(report.revenue("2026-04-05").refunds == 1)
        #expect(report.revenue("2026-04-05").refundedMilliunits == 14_990)

        // A window of 04-01 … 04-09: it starts with the monthly plan's 14_990 (the yearly one was
        // refunded on 03-05) and ends with nothing.
        let april = try await world.metrics("2026-04-01", "2026-04-09")
        #expect(april.series(\.activeSubscriptions) == runs((4, 1), (5, 0)))
        #expect(april.series(\.renewed) == sparse(from: "2026-04-01", days: 9, ["2026-04-01": 1]))
        #expect(april.series(\.churned) == sparse(from: "2026-04-01", days: 9, ["2026-04-05": 1]))
        #expect(april.mrr("USD").startMilliunits == 14_990)
        #expect(april.mrr("USD").new == 0)
        #expect(april.mrr("USD").churned == 14_990)
        #expect(april.mrr("USD").milliunits == 0)
        #expect(april.revenue("2026-03-05").refunds == 0)
        // Retention of March: 2 runs; k = 1 is not shown before 05-01.
        #expect(report.retention("2026-03").subscribers == 2)
        #expect(report.retention("2026-03").retained == [2])
        // In May: at k = 1 (04-01T10:00) the yearly run had ended (03-05), the monthly one was
        // paying (refunded only on 04-05).
        try await world.advance(to: "2026-05-02T12:00:00Z")
        let may = try await world.metrics("2026-03-01", "2026-05-01")
        #expect(may.retention("2026-03").retained == [2, 1])
    }

    @Test(arguments: Backend.available)
    func aReversedRefundOfTheCurrentPeriodTakesItsChurnAndRefundBack(backend: Backend) async throws {
        let world = try await World(backend)
        let customer = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        let first = try await world.buy(customer, World.premium)  // 03-01T10:00 → 04-01T10:00
        try await world.advance(to: "2026-03-10T10:00:00Z")
        try await world.refund(customer, first)
        try await world.advance(to: "2026-03-11T12:00:00Z")

        // Refunded: the run ends on 03-10; the refund counts that day.
        let refunded = try await world.metrics("2026-03-01", "2026-03-10")
        #expect(refunded.series(\.activeSubscriptions) == runs((9, 1), (1, 0)))
        #expect(refunded.series(\.churned) == sparse(from: "2026-03-01", days: 10, ["2026-03-10": 1]))
        #expect(refunded.mrr("USD").churned == 14_990)
        #expect(refunded.mrr("USD").milliunits == 0)
        #expect(refunded.revenue("2026-03-10").refunds == 1)
        #expect(refunded.revenue("2026-03-10").refundedMilliunits == 14_990)

        // Apple reverses it on 03-12: the period covers again and renews on 04-01 (→ 05-01).
        try await world.advance(to: "2026-03-12T10:00:00Z")
        try await world.reverseRefund(customer, first)
        try await world.advance(to: "2026-04-10T12:00:00Z")

        let report = try await world.metrics("2026-03-01", "2026-04-09")
        #expect(report.series(\.activeSubscriptions) == runs((40, 1)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 40, ["2026-03-01": 1]))
        #expect(report.series(\.renewed) == sparse(from: "2026-03-01", days: 40, ["2026-04-01": 1]))
        #expect(report.series(\.churned) == runs((40, 0)))
        let mrr = report.mrr("USD")
        #expect(mrr.new == 14_990)
        #expect(mrr.churned == 0)
        #expect(mrr.milliunits == 14_990)
        #expect(report.revenue.allSatisfy { $0.refunds == 0 && $0.refundedMilliunits == 0 })
        #expect(report.revenue("2026-03-01").milliunits == 14_990)
        #expect(report.revenue("2026-04-01").milliunits == 14_990)
    }

    // MARK: - Billing problems and lapses

    @Test(arguments: Backend.available)
    func billingRetryRecoveredWithin60DaysIsAGapNotChurn(backend: Backend) async throws {
        let world = try await World(backend)
        let customer = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        let first = try await world.buy(customer, World.premium)  // 03-01T10:00 → 04-01T10:00
        try await customer.store.failNextRenewal(originalTransactionID: try #require(first.payload.originalTransactionID))
        // 04-01T10:00: the renewal fails; billing retry (no grace period).
        try await world.advance(to: "2026-04-11T10:00:00Z")
        // Recovered in billing retry: the new period runs from now, 04-11T10:00 → 05-11T10:00.
        try await customer.store.resolveBillingIssue(originalTransactionID: try #require(first.payload.originalTransactionID))
        try await world.deliver()
        try await world.advance(to: "2026-04-20T12:00:00Z")

        // 03-01 … 04-19: 50 days.
        let report = try await world.metrics("2026-03-01", "2026-04-19")
        // Paid 03-01 … 03-31 (31), nothing covers 04-01 … 04-10 (10), paid again 04-11 … 04-19 (9).
        #expect(report.series(\.activeSubscriptions) == runs((31, 1), (10, 0), (9, 1)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 50, ["2026-03-01": 1]))
        // 10 days after the end of the period before: the same run, renewed.
        #expect(report.series(\.renewed) == sparse(from: "2026-03-01", days: 50, ["2026-04-11": 1]))
        #expect(report.series(\.churned) == runs((50, 0)))

        // MRR: new 14_990, nothing churned, end 14_990 (the gap is over by then).
        let mrr = report.mrr("USD")
        #expect(mrr.startMilliunits == 0)
        #expect(mrr.new == 14_990)
        #expect(mrr.churned == 0)
        #expect(mrr.expansion == 0)
        #expect(mrr.contraction == 0)
        #expect(mrr.milliunits == 14_990)

        #expect(report.revenue("2026-04-11").milliunits == 14_990)
        #expect(report.revenue("2026-04-01").purchases == 0)
        #expect(report.retention("2026-03").retained == [1])
        // In May k = 1 (04-01T10:00) is shown: in billing retry then, but a run still going.
        try await world.advance(to: "2026-05-02T12:00:00Z")
        let may = try await world.metrics("2026-03-01", "2026-05-01")
        #expect(may.retention("2026-03").retained == [1, 1])
    }

    @Test(arguments: Backend.available)
    func aRenewalInTheGracePeriodFillsTheDaysBetweenWhenItArrives(backend: Backend) async throws {
        let world = try await World(backend)
        let customer = try await world.customer(gracePeriod: true)
        try await world.advance(to: "2026-03-01T10:00:00Z")
        let first = try await world.buy(customer, World.premium)  // 03-01T10:00 → 04-01T10:00
        try await customer.store.failNextRenewal(originalTransactionID: try #require(first.payload.originalTransactionID))
        // 04-01T10:00: the renewal fails; a grace period (16 days for a month) begins.
        try await world.advance(to: "2026-04-03T12:00:00Z")

        // Before Apple renews: no paid period covers 04-01 and 04-02, and the run, whose last period
        // expired on 04-01, counts as churned that day (a renewal that arrives takes it back).
        let before = try await world.metrics("2026-03-01", "2026-04-02")
        #expect(before.series(\.activeSubscriptions) == runs((31, 1), (2, 0)))
        #expect(before.series(\.churned) == sparse(from: "2026-03-01", days: 33, ["2026-04-01": 1]))
        #expect(before.mrr("USD").milliunits == 0)
        #expect(before.mrr("USD").churned == 14_990)

        // Recovered in the grace period (04-05T10:00): the period runs from the old expiry,
        // 04-01T10:00 → 05-01T10:00, bought 04-01.
        try await world.advance(to: "2026-04-05T10:00:00Z")
        try await customer.store.resolveBillingIssue(originalTransactionID: try #require(first.payload.originalTransactionID))
        try await world.deliver()
        #expect(try await world.latest(customer, World.premium).payload.purchaseDate == World.instant("2026-04-01T10:00:00Z"))
        try await world.advance(to: "2026-04-20T12:00:00Z")

        let report = try await world.metrics("2026-03-01", "2026-04-19")
        #expect(report.series(\.activeSubscriptions) == runs((50, 1)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 50, ["2026-03-01": 1]))
        #expect(report.series(\.renewed) == sparse(from: "2026-03-01", days: 50, ["2026-04-01": 1]))
        #expect(report.series(\.churned) == runs((50, 0)))
        let mrr = report.mrr("USD")
        #expect(mrr.new == 14_990)
        #expect(mrr.churned == 0)
        #expect(mrr.milliunits == 14_990)
        // Revenue on the day the renewal was bought (its purchaseDate), not the day it arrived.
        #expect(report.revenue("2026-04-01").purchases == 1)
        #expect(report.revenue("2026-04-01").milliunits == 14_990)
        #expect(report.revenue("2026-04-05").purchases == 0)
    }

    @Test(arguments: Backend.available)
    func aLapseOfMoreThan60DaysIsChurnAndTheReturnANewRunWhileAShorterOneIsNeither(backend: Backend) async throws {
        let world = try await World(backend)
        let late = try await world.customer()
        let soon = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        let lateFirst = try await world.buy(late, World.premium)  // 03-01T10:00 → 04-01T10:00
        let soonFirst = try await world.buy(soon, World.premium)  // 03-01T10:00 → 04-01T10:00
        try await world.advance(to: "2026-03-10T10:00:00Z")
        try await world.setAutoRenew(late, lateFirst, false)
        try await world.setAutoRenew(soon, soonFirst, false)
        // Both expire 04-01T10:00. 20 days later one comes back: 04-21T10:00 → 05-21T10:00, renewed → 06-21T10:00.
        try await world.advance(to: "2026-04-21T10:00:00Z")
        try await world.buy(soon, World.premium)
        // 75 days after it lapsed the other comes back: 06-15T10:00 → 07-15T10:00.
        try await world.advance(to: "2026-06-15T10:00:00Z")
        try await world.buy(late, World.premium)
        try await world.advance(to: "2026-06-20T12:00:00Z")

        // 03-01 … 06-19: 111 days.
        let report = try await world.metrics("2026-03-01", "2026-06-19")
        #expect(report.days.count == 111)
        // Both 03-01 … 03-31 (31); none 04-01 … 04-20 (20); one 04-21 … 06-14 (55); both 06-15 … 06-19 (5).
        #expect(report.series(\.activeSubscriptions) == runs((31, 2), (20, 0), (55, 1), (5, 2)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 111, ["2026-03-01": 2, "2026-06-15": 1]))
        // The return within 60 days continues the run after the end of the period before: a renewal.
        #expect(report.series(\.renewed) == sparse(from: "2026-03-01", days: 111, ["2026-04-21": 1, "2026-05-21": 1]))
        // Only the run not renewed within 60 days ended, on its expiry day.
        #expect(report.series(\.churned) == sparse(from: "2026-03-01", days: 111, ["2026-04-01": 1]))

        // MRR: three runs began (14_990 each: 44_970), one ended (14_990); end 2 × 14_990 = 29_980.
        let mrr = report.mrr("USD")
        #expect(mrr.startMilliunits == 0)
        #expect(mrr.new == 44_970)
        #expect(mrr.churned == 14_990)
        #expect(mrr.expansion == 0)
        #expect(mrr.contraction == 0)
        #expect(mrr.milliunits == 29_980)

        #expect(report.revenue("2026-03-01").milliunits == 29_980)
        #expect(report.revenue("2026-04-21").milliunits == 14_990)
        #expect(report.revenue("2026-05-21").milliunits == 14_990)
        #expect(report.revenue("2026-06-15").milliunits == 14_990)
        // Retention of March: 2 runs. At k = 1 (04-01T10:00) the lapsed run has just ended (its
        // period covers up to, not including, that instant); the other is a run still going (its
        // gap is under 60 days), retained at k = 1 and 2 (05-01T10:00, 06-01T10:00); k = 3 is shown
        // from 07-01, once every March run has had three months.
        #expect(report.retention("2026-03").subscribers == 2)
        #expect(report.retention("2026-03").retained == [2, 1, 1])
        // The lapsed run is gone at k = 2 (05-01T10:00) and the other is retained.
        #expect(report.retention("2026-03").retained.dropFirst(2).first == 1)
        // The return after 75 days is a run of June.
        #expect(report.retention("2026-04").subscribers == 0)
        #expect(report.retention("2026-06").subscribers == 1)
        #expect(report.retention("2026-06").retained == [1])

        // A window of 05-01 … 06-19 (50 days): it starts with the returned run's 14_990 and adds
        // the late return.
        let later = try await world.metrics("2026-05-01", "2026-06-19")
        #expect(later.series(\.activeSubscriptions) == runs((45, 1), (5, 2)))
        #expect(later.series(\.new) == sparse(from: "2026-05-01", days: 50, ["2026-06-15": 1]))
        #expect(later.series(\.renewed) == sparse(from: "2026-05-01", days: 50, ["2026-05-21": 1]))
        #expect(later.series(\.churned) == runs((50, 0)))
        #expect(later.mrr("USD").startMilliunits == 14_990)
        #expect(later.mrr("USD").new == 14_990)
        #expect(later.mrr("USD").churned == 0)
        #expect(later.mrr("USD").milliunits == 29_980)
    }

    @Test(arguments: Backend.available)
    func todayCountsWhatHasNotExpiredByMidnightAndChurnsWhatExpiresToday(backend: Backend) async throws {
        let world = try await World(backend)
        let morning = try await world.customer()
        let evening = try await world.customer()
        let stays = try await world.customer()
        try await world.advance(to: "2026-03-24T10:00:00Z")
        let early = try await world.buy(morning, World.weekly)  // 03-24T10:00 → 03-31T10:00
        try await world.setAutoRenew(morning, early, false)
        try await world.buy(stays, World.premium)  // 03-24T10:00 → 04-24T10:00
        try await world.advance(to: "2026-03-24T18:00:00Z")
        let late = try await world.buy(evening, World.weekly)  // 03-24T18:00 → 03-31T18:00
        try await world.setAutoRenew(evening, late, false)
        // Today is 03-31, at noon: one week ended this morning, the other ends tonight.
        try await world.advance(to: "2026-03-31T12:00:00Z")

        let report = try await world.metrics("2026-03-24", "2026-03-31")
        #expect(report.days.count == 8)
        // Today counts what has not expired by midnight: the premium plan only.
        #expect(report.series(\.activeSubscriptions) == runs((7, 3), (1, 1)))
        // Both weeks' runs end today: one expired, the other's expiry day has come.
        #expect(report.series(\.churned) == sparse(from: "2026-03-24", days: 8, ["2026-03-31": 2]))
        #expect(report.series(\.new) == sparse(from: "2026-03-24", days: 8, ["2026-03-24": 3]))
        // Per year: 2 × 155_480 + 179_880 = 490_840 → 40_903 new; 2 × 155_480 = 310_960 → 25_913 churned.
        #expect(report.mrr("USD").new == 40_903)
        #expect(report.mrr("USD").churned == 25_913)
    }

    // MARK: - What counts nowhere, and what is read apart

    @Test(arguments: Backend.available)
    func aFamilyMembersCopyCountsNowhere(backend: Backend) async throws {
        let world = try await World(backend)
        let purchaser = try await world.customer()
        try await world.advance(to: "2026-03-01T10:00:00Z")
        let week = try await world.buy(purchaser, World.weekly)  // 03-01T10:00 → 03-08T10:00 at 2_990
        let lifetime = try await world.buy(purchaser, World.lifetime)  // 19_990
        try await world.setAutoRenew(purchaser, week, false)
        try await world.advance(to: "2026-03-01T11:00:00Z")
        try await world.shareWithFamily(purchaser, week)
        try await world.shareWithFamily(purchaser, lifetime)
        try await world.advance(to: "2026-03-10T12:00:00Z")

        let report = try await world.metrics("2026-03-01", "2026-03-09")
        // The purchaser's week covers 03-01 … 03-07; the family copy adds nothing.
        #expect(report.series(\.activeSubscriptions) == runs((7, 1), (2, 0)))
        #expect(report.series(\.activeTrials) == runs((9, 0)))
        #expect(report.series(\.new) == sparse(from: "2026-03-01", days: 9, ["2026-03-01": 1]))
        #expect(report.series(\.churned) == sparse(from: "2026-03-01", days: 9, ["2026-03-08": 1]))
        // Weekly: 2_990 × 52 = 155_480 a year ÷ 12 = 12_956 (rounded down), new and churned.
        let mrr = report.mrr("USD")
        #expect(mrr.new == 12_956)
        #expect(mrr.churned == 12_956)
        #expect(mrr.milliunits == 0)
        // Only the purchaser paid: 2_990 + 19_990 = 22_980, 2 payments.
        #expect(report.revenue("2026-03-01").purchases == 2)
        #expect(report.revenue("2026-03-01").milliunits == 22_980)
        #expect(report.retention("2026-03").subscribers == 1)
    }

    @Test(arguments: Backend.available)
    func theSandboxIsReadApartFromProduction(backend: Backend) async throws {
        let world = try await World(backend)
        let production = try await world.customer()
        let sandbox = try await world.customer(.sandbox, withUser: true)
        try await world.advance(to: "2026-03-01T10:00:00Z")
        try await world.buy(production, World.premium)  // 14_990 a month
        try await world.buy(sandbox, World.yearly)  // 59_990 a year
        try await world.buy(sandbox, World.credits10)  // 1_990, 10 credits
        try await world.advance(to: "2026-03-05T12:00:00Z")

        let report = try await world.metrics("2026-03-01", "2026-03-04")
        #expect(report.environment == "Production")
        #expect(report.series(\.activeSubscriptions) == runs((4, 1)))
        #expect(report.series(\.new) == [1, 0, 0, 0])
        #expect(report.mrr("USD").milliunits == 14_990)
        #expect(report.revenue("2026-03-01").purchases == 1)
        #expect(report.revenue("2026-03-01").milliunits == 14_990)

        let sandboxReport = try await world.metrics("2026-03-01", "2026-03-04", environment: "Sandbox")
        #expect(sandboxReport.series(\.activeSubscriptions) == runs((4, 1)))
        #expect(sandboxReport.series(\.new) == [1, 0, 0, 0])
        // 59_990 × 1 ÷ 12 = 4_999 (rounded down).
        #expect(sandboxReport.mrr("USD").milliunits == 4_999)
        #expect(sandboxReport.revenue("2026-03-01").purchases == 2)
        #expect(sandboxReport.revenue("2026-03-01").milliunits == 61_980)

        // Credits are the ledger's, every environment: 10 sold in the sandbox, held with the
        // 2 of sign-up.
        for read in [report, sandboxReport] {
            #expect(read.credits("credits").sold == 10)
            #expect(read.credits("credits").spent == 0)
            #expect(read.credits("credits").outstanding == 12)
        }
    }

    // MARK: - Filters

    @Test(arguments: Backend.available)
    func aProductOrAGroupNarrowsTheSubscriptionAndRevenueFigures(backend: Backend) async throws {
        let world = try await World(backend)
        let pro = try await world.customer()
        let weekly = try await world.customer()
        let buyer = try await world.customer(withUser: true)
        let german = try await world.customer(storefront: "DEU")
        try await world.advance(to: "2026-03-01T10:00:00Z")
        try await world.buy(pro, World.premium)  // 14_990 USD a month
        try await world.buy(weekly, World.weekly)  // 2_990 USD a week; renews 03-08T10:00
        try await world.buy(buyer, World.credits10)  // 1_990 USD
        try await world.buy(german, World.premium)  // 14_990 EUR a month
        try await world.advance(to: "2026-03-10T12:00:00Z")

        let all = try await world.metrics("2026-03-01", "2026-03-09")
        #expect(all.series(\.activeSubscriptions) == runs((9, 3)))
        #expect(all.series(\.new) == sparse(from: "2026-03-01", days: 9, ["2026-03-01": 3]))
        #expect(all.series(\.renewed) == sparse(from: "2026-03-01", days: 9, ["2026-03-08": 1]))
        // USD per year: 14_990 × 12 + 2_990 × 52 = 179_880 + 155_480 = 335_360; ÷ 12 = 27_946.
        #expect(all.mrr("USD").milliunits == 27_946)
        #expect(all.mrr("USD").new == 27_946)
        // Each currency apart: EUR 14_990.
        #expect(all.mrr("EUR").milliunits == 14_990)
        #expect(all.mrr("EUR").new == 14_990)
        // 14_990 + 2_990 + 1_990 = 19_970 USD in 3 payments on 03-01; 14_990 EUR in 1.
        #expect(all.revenue("2026-03-01", "USD").purchases == 3)
        #expect(all.revenue("2026-03-01", "USD").milliunits == 19_970)
        #expect(all.revenue("2026-03-01", "EUR").milliunits == 14_990)
        #expect(all.revenue("2026-03-08", "USD").milliunits == 2_990)

        for narrowed in [
            try await world.metrics("2026-03-01", "2026-03-09", productID: World.premium),
            try await world.metrics("2026-03-01", "2026-03-09", group: World.proGroup),
        ] {
            #expect(narrowed.series(\.activeSubscriptions) == runs((9, 2)))
            #expect(narrowed.series(\.new) == sparse(from: "2026-03-01", days: 9, ["2026-03-01": 2]))
            #expect(narrowed.series(\.renewed) == runs((9, 0)))
            #expect(narrowed.mrr("USD").milliunits == 14_990)
            #expect(narrowed.mrr("EUR").milliunits == 14_990)
            #expect(narrowed.revenue("2026-03-01", "USD").purchases == 1)
            #expect(narrowed.revenue("2026-03-01", "USD").milliunits == 14_990)
            #expect(narrowed.revenue("2026-03-08", "USD").purchases == 0)
        }
        for narrowed in [
            try await world.metrics("2026-03-01", "2026-03-09", productID: World.weekly),
            try await world.metrics("2026-03-01", "2026-03-09", group: World.weeklyGroup),
        ] {
            #expect(narrowed.series(\.activeSubscriptions) == runs((9, 1)))
            #expect(narrowed.series(\.new) == sparse(from: "2026-03-01", days: 9, ["2026-03-01": 1]))
            #expect(narrowed.series(\.renewed) == sparse(from: "2026-03-01", days: 9, ["2026-03-08": 1]))
            // 155_480 ÷ 12 = 12_956.
            #expect(narrowed.mrr("USD").milliunits == 12_956)
            #expect(narrowed.mrr("EUR").milliunits == 0)
            #expect(narrowed.revenue("2026-03-01", "USD").milliunits == 2_990)
            #expect(narrowed.revenue("2026-03-08", "USD").milliunits == 2_990)
            #expect(narrowed.revenue("2026-03-01", "EUR").purchases == 0)
        }
        let consumable = try await world.metrics("2026-03-01", "2026-03-09", productID: World.credits10)
        #expect(consumable.series(\.activeSubscriptions) == runs((9, 0)))
        #expect(consumable.mrr("USD").milliunits == 0)
        #expect(consumable.revenue("2026-03-01", "USD").purchases == 1)
        #expect(consumable.revenue("2026-03-01", "USD").milliunits == 1_990)
    }

    // MARK: - Consumables and credits

    @Test(arguments: Backend.available)
    func consumablesCountInRevenueAndCreditsAndAReversedRefundIsTakenBack(backend: Backend) async throws {
        let world = try await World(backend)
        let customer = try await world.customer(withUser: true)
        let user = try #require(customer.user)  // 2 credits at sign-up
        try await world.advance(to: "2026-03-01T10:00:00Z")
        try await world.buy(customer, World.credits50)  // 7_990, +50
        try await world.advance(to: "2026-03-02T10:00:00Z")
        _ = try await world.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 20, idempotencyKey: "s1"))
        try await world.advance(to: "2026-03-03T10:00:00Z")
        let ten = try await world.buy(customer, World.credits10)  // 1_990, +10
        try await world.advance(to: "2026-03-04T10:00:00Z")
        // Refunded the next day: the 10 are unspent (spends took the sign-up lot, then the 50-pack) and go back.
        try await world.refund(customer, ten)
        try await world.advance(to: "2026-03-05T12:00:00Z")

        let refunded = try await world.metrics("2026-03-01", "2026-03-04")
        #expect(refunded.revenue("2026-03-01").purchases == 1)
        #expect(refunded.revenue("2026-03-01").milliunits == 7_990)
        #expect(refunded.revenue("2026-03-03").milliunits == 1_990)
        #expect(refunded.revenue("2026-03-04").refunds == 1)
        #expect(refunded.revenue("2026-03-04").refundedMilliunits == 1_990)
        #expect(refunded.revenue("2026-03-04").purchases == 0)
        // Sold 50 + 10 = 60; spent 20; held 2 + 50 + 10 − 20 − 10 = 32.
        #expect(refunded.credits("credits").sold == 60)
        #expect(refunded.credits("credits").spent == 20)
        #expect(refunded.credits("credits").outstanding == 32)
        #expect(refunded.series(\.activeSubscriptions) == runs((4, 0)))

        try await world.advance(to: "2026-03-06T10:00:00Z")
        try await world.reverseRefund(customer, ten)  // the 10 come back
        try await world.advance(to: "2026-03-07T10:00:00Z")
        let reservation = try await world.storage.spending.reserve(
            user: user, request: ReservationRequest(currency: "credits", amount: 5, ttlSeconds: 600, idempotencyKey: "r1"))
        _ = try await world.storage.spending.commit(user: user, reservationID: reservation.reservationID, used: 3)
        try await world.advance(to: "2026-03-10T12:00:00Z")

        let reversed = try await world.metrics("2026-03-01", "2026-03-09")
        // The reversed refund is taken back: no refund on any day, and no line for 03-04, a day with
        // neither payments nor refunds now.
        #expect(reversed.revenue.allSatisfy { $0.refunds == 0 && $0.refundedMilliunits == 0 })
        #expect(!reversed.revenue.contains { $0.day == World.day("2026-03-04") })
        #expect(reversed.revenue("2026-03-03").milliunits == 1_990)
        // Sold still 60 (a reversal is no sale); spent 20 + 3 = 23; held 32 + 10 − 3 = 39.
        #expect(reversed.credits("credits").sold == 60)
        #expect(reversed.credits("credits").spent == 23)
        #expect(reversed.credits("credits").outstanding == 39)
        // Outstanding is what the user holds.
        let balance = try #require(try await world.storage.users.account(user: user).balances.first { $0.currency == "credits" })
        #expect(balance.available + balance.held - balance.debt == 39)

        // A window of the first day alone: sold 50, nothing spent, 2 + 50 = 52 held at its end.
        let firstDay = try await world.metrics("2026-03-01", "2026-03-01")
        #expect(firstDay.credits("credits").sold == 50)
        #expect(firstDay.credits("credits").spent == 0)
        #expect(firstDay.credits("credits").outstanding == 52)
    }

    @Test(arguments: Backend.available)
    func aConsumableBoughtThreeAtOnceIsOnePaymentOfItsSignedPrice(backend: Backend) async throws {
        let world = try await World(backend)
        let customer = try await world.customer(withUser: true)  // 2 credits at sign-up
        try await world.advance(to: "2026-03-01T10:00:00Z")
        let three = try await world.buy(customer, World.credits10, quantity: 3)  // 3 × 1_990 = 5_970, +30
        #expect(three.payload.price == 5_970)
        try await world.advance(to: "2026-03-02T10:00:00Z")
        try await world.refund(customer, three)  // all 30 unspent: taken back
        try await world.advance(to: "2026-03-03T12:00:00Z")

        let report = try await world.metrics("2026-03-01", "2026-03-02")
        #expect(report.revenue("2026-03-01").purchases == 1)
        #expect(report.revenue("2026-03-01").milliunits == 5_970)
        #expect(report.revenue("2026-03-02").refunds == 1)
        #expect(report.revenue("2026-03-02").refundedMilliunits == 5_970)
        // Sold 30; nothing spent; 2 + 30 − 30 = 2 held.
        #expect(report.credits("credits").sold == 30)
        #expect(report.credits("credits").spent == 0)
        #expect(report.credits("credits").outstanding == 2)
        #expect(report.mrr.allSatisfy { $0.milliunits == 0 && $0.new == 0 })
    }

    // MARK: - The window

    @Test(arguments: Backend.available)
    func aWindowOfMoreThanTheMaximumOrEndingBeforeItStartsIsRefused(backend: Backend) async throws {
        let world = try await World(backend)
        #expect(MetricsQuery.maximumDays == 400)
        world.clock.set(World.instant("2027-05-01T12:00:00Z"))  // every window below is past
        // 2026-03-01 + 399 days = 2027-04-04: 400 days, the most.
        let longest = try await world.metrics("2026-03-01", "2027-04-04")
        #expect(longest.days.count == 400)
        #expect(longest.from == World.day("2026-03-01"))
        #expect(longest.to == World.day("2027-04-05"))
        await #expect(throws: StorageError(.invalidRequest, "")) {
            try await world.metrics("2026-03-01", "2027-04-05")
        }
        await #expect(throws: StorageError(.invalidRequest, "")) {
            try await world.metrics("2026-03-02", "2026-03-01")
        }
        // The same 401 days asked before all of them have come: still more than one report covers.
        world.clock.set(World.instant("2026-06-01T12:00:00Z"))
        await #expect(throws: StorageError(.invalidRequest, "")) {
            try await world.metrics("2026-03-01", "2027-04-05")
        }
        // Instants within a day name that day: the same one-day window.
        let oneDay = try await world.storage.metrics.report(
            MetricsQuery(from: World.instant("2026-03-01T23:59:59Z"), through: World.instant("2026-03-01T00:00:01Z")))
        #expect(oneDay.days.map(\.start) == [World.day("2026-03-01")])
    }
}
