import Foundation
import TallyCore

/// One subscription's periods as the metrics read them (docs/metrics.md, "Subscriptions"):
/// each transaction a period from its purchase to its expiry or revocation, cut where the next
/// one starts; trials apart from paid periods; paid periods joined into runs.
struct SubscriptionPeriods {
    struct Period {
        var productID: String
        var group: String
        var currency: String
        var environment: String
        var start: Int64
        /// Its expiry, or its revocation when earlier.
        var ownEnd: Int64
        /// `ownEnd`, or the start of the next period when that is earlier (an upgrade).
        var end: Int64
        /// Its expiry less its purchase: the length Apple sold.
        var length: Int64
        var price: Int64
        var trial: Bool

        /// Its price over a year, in milliunits: price × periods per year.
        var annual: Int64 { price * SubscriptionPeriods.periodsPerYear(length) }
    }

    private(set) var periods: [Period] = []

    init(_ transactions: [MetricsTransaction]) {
        let ordered = transactions.filter { $0.purchaseDate != nil && $0.expiresDate != nil }
            .sorted { ($0.purchaseDate!, $0.transactionID) < ($1.purchaseDate!, $1.transactionID) }
        var periods: [Period] = []
        for transaction in ordered {
            let start = transaction.purchaseDate!
            let expires = transaction.expiresDate!
            var ownEnd = expires
            if transaction.revoked, let revoked = transaction.revokedAt { ownEnd = min(ownEnd, revoked) }
            periods.append(
                Period(
                    productID: transaction.productID, group: transaction.subscriptionGroup ?? "", currency: transaction.currency ?? "",
                    environment: transaction.environment, start: start, ownEnd: ownEnd, end: ownEnd, length: expires - start,
                    price: transaction.price ?? 0, trial: transaction.price == 0))
        }
        for index in periods.indices.dropLast() where periods[index + 1].start < periods[index].end {
            periods[index].end = max(periods[index].start, periods[index + 1].start)
        }
        self.periods = periods.filter { $0.end > $0.start }
    }

    /// What the periods add to the rollups.
    var contributions: MetricContributions {
        var result = MetricContributions()
        func add(_ figure: MetricFigure, _ period: Period, at: Int64, _ value: Int64, span: Int64 = 0) {
            result.add(
                MetricKey(
                    environment: period.environment, figure: figure, day: MetricContributions.day(at), subject: period.productID,
                    currency: period.currency, span: span),
                value, group: period.group)
        }
        var runStart: Period?
        var last: Period?
        var trial: Period?
        func closeRun() {
            guard let first = runStart, let end = last else { return }
            add(.churned, end, at: end.end, 1)
            add(.arrChurned, end, at: end.end, end.annual)
            add(.paidRun, first, at: first.start, 1, span: Self.wholeMonths(from: first.start, to: end.end))
            runStart = nil
            last = nil
        }
        for period in periods {
            if period.trial {
                closeRun()
                add(.trials, period, at: period.start, 1)
                add(.trials, period, at: period.end, -1)
                add(.trialStarted, period, at: period.start, 1)
                trial = period
                continue
            }
            if let started = trial {
                if period.start <= started.end + Self.lapse(started.length) { add(.trialConverted, started, at: started.start, 1) }
                trial = nil
            }
            add(.active, period, at: period.start, 1)
            add(.active, period, at: period.end, -1)
            add(.arr, period, at: period.start, period.annual)
            add(.arr, period, at: period.end, -period.annual)
            if let previous = last, period.start <= previous.end + Self.lapse(previous.length) {
                if period.start >= previous.ownEnd - Self.earlyRenewal(previous.length) { add(.renewed, period, at: period.start, 1) }
                let change = period.annual - previous.annual
                if change > 0 { add(.arrExpansion, period, at: period.start, change) }
                if change < 0 { add(.arrContraction, period, at: period.start, -change) }
                last = period
                continue
            }
            closeRun()
            add(.new, period, at: period.start, 1)
            add(.arrNew, period, at: period.start, period.annual)
            runStart = period
            last = period
        }
        closeRun()
        return result
    }

    static let day: Int64 = 86_400_000
    static let minute: Int64 = 60_000

    /// Whether a period of this length is one of the sandbox's accelerated ones (a month in 5 minutes).
    static func accelerated(_ length: Int64) -> Bool { length < day }

    /// How long after a period ends the next may begin and still continue the run: Apple's 60
    /// days of billing retry, 10 minutes at the sandbox's pace.
    static func lapse(_ length: Int64) -> Int64 { accelerated(length) ? 10 * minute : 60 * day }

    /// How early before the end of a period Apple may start the next and it is still a renewal:
    /// a day, or a thirtieth of the period when that is shorter.
    static func earlyRenewal(_ length: Int64) -> Int64 { min(day, length / 30) }

    /// Apple's durations (1 week; 1, 2, 3, 6 months; 1 year), real and accelerated, and how
    /// many of each make a year.
    private static let durations: [(real: Double, sandbox: Double, perYear: Int64)] = [
        (7, 3, 52), (365.25 / 12, 5, 12), (365.25 / 6, 10, 6), (365.25 / 4, 15, 4), (365.25 / 2, 30, 2), (365.25, 60, 1),
    ]

    /// Periods per year of a period of this length: the nearest of Apple's durations (by ratio).
    static func periodsPerYear(_ length: Int64) -> Int64 {
        guard length > 0 else { return 0 }
        let accelerated = accelerated(length)
        let value = accelerated ? Double(length) / Double(minute) : Double(length) / Double(day)
        var best = durations[0]
        for duration in durations {
            let nominal = accelerated ? duration.sandbox : duration.real
            let bestNominal = accelerated ? best.sandbox : best.real
            if abs(log(value / nominal)) < abs(log(value / bestNominal)) { best = duration }
        }
        return best.perYear
    }

    /// The whole months a run from `start` to `end` (epoch milliseconds, UTC) was still paid
    /// after: k when it was paid at the same day of the month k months later, at the same time
    /// (the month's last day when shorter), which is before its end.
    static func wholeMonths(from start: Int64, to end: Int64) -> Int64 {
        guard end > start else { return 0 }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let from = EpochMilliseconds.date(start)
        let to = EpochMilliseconds.date(end)
        let a = calendar.dateComponents([.year, .month], from: from)
        let b = calendar.dateComponents([.year, .month], from: to)
        var months = Int64((b.year! - a.year!) * 12 + (b.month! - a.month!))
        while months > 0, anniversary(of: from, months: months, calendar) >= to { months -= 1 }
        return months
    }

    private static func anniversary(of start: Date, months: Int64, _ calendar: Calendar) -> Date {
        let parts = calendar.dateComponents([.year, .month, .day], from: start)
        let midnight = calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day))!
        let time = start.timeIntervalSince(midnight)
        let firstOfMonth = calendar.date(from: DateComponents(year: parts.year, month: parts.month! + Int(months), day: 1))!
        let days = calendar.range(of: .day, in: .month, for: firstOfMonth)!.count
        let day = calendar.date(from: DateComponents(year: parts.year, month: parts.month! + Int(months), day: min(parts.day!, days)))!
        return day.addingTimeInterval(time)
    }
}
