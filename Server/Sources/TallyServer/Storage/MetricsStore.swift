import Foundation
import TallyCore
import TallySQL

/// The subscription and revenue figures, read from the rollups (``MetricsRollup``): a few
/// range reads of `metric_days`, whatever the size of the ledger.
public struct MetricsStore: TransactionalStore {
    let transactions: Transactions

    /// The figures of a window, day by day and in total.
    /// - Parameter query: the window (at most ``MetricsQuery/maximumDays`` days) and the environment.
    /// - Returns: the report; days after today have no figures yet.
    /// - Throws: ``StorageError`` `invalid_request` for a window too long, one that ends before
    ///   it starts, or one that starts after today.
    public func report(_ query: MetricsQuery) async throws -> MetricsReport {
        let today = MetricContributions.day(transactions.millis)
        let first = MetricContributions.day(EpochMilliseconds.of(query.from))
        let through = MetricContributions.day(EpochMilliseconds.of(query.through))
        guard first <= through else { throw StorageError(.invalidRequest, "the window ends before it starts") }
        guard through - first < Int64(MetricsQuery.maximumDays) else {
            throw StorageError(.invalidRequest, "a report covers at most \(MetricsQuery.maximumDays) days")
        }
        guard first <= today else { throw StorageError(.invalidRequest, "the window starts after today") }
        // Days to come have no figures yet: a report stops at today.
        let last = min(through, today)
        let cohortsFrom = Self.monthStart(first)
        var filter: SQL = ""
        if let product = query.productID { filter += " AND subject = \(product)" }
        if let group = query.subscriptionGroup { filter += " AND subscription_group = \(group)" }
        let environment = query.environment
        let only = filter
        // Named, so that the read is a range of the key (environment, figure, day) per figure.
        let windowFigures = MetricFigure.allCases.filter { ![.ledgerAmount, .ledgerEntries].contains($0) }.map(\.rawValue)
        // Only money is read per currency; counts are summed over currencies by the database.
        let moneyFigures = [MetricFigure.purchases, .revenue, .refunds, .refunded, .arr, .arrNew, .arrExpansion, .arrContraction, .arrChurned].map(\.rawValue)
        let (window, prior, ledger) = try await transactions.read { executor, _ in
            let window = try await executor.fetchAll(
                WindowRow.self,
                """
                SELECT figure, day, CASE WHEN figure IN (\(list: moneyFigures)) THEN currency ELSE '' END AS \(WindowRow.Columns.unit), span,
                    CAST(SUM(value) AS BIGINT) AS \(WindowRow.Columns.total)
                FROM metric_days
                WHERE environment = \(environment) AND figure IN (\(list: windowFigures)) AND day >= \(min(first, cohortsFrom)) AND day <= \(last)\(only)
                GROUP BY figure, day, unit, span
                """)
            let prior = try await executor.fetchAll(
                PriorRow.self,
                """
                SELECT figure, currency, CAST(SUM(value) AS BIGINT) AS \(PriorRow.Columns.total) FROM metric_days
                WHERE environment = \(environment) AND figure IN (\(list: [MetricFigure.active, .trials, .arr].map(\.rawValue)))
                AND day < \(first)\(only)
                GROUP BY figure, currency
                """)
            let ledger = try await executor.fetchAll(
                LedgerRow.self,
                """
                SELECT subject, currency, CASE WHEN day >= \(first) THEN 1 ELSE 0 END AS \(LedgerRow.Columns.inside), \
                CAST(SUM(value) AS BIGINT) AS \(LedgerRow.Columns.total)
                FROM metric_days WHERE environment = '' AND figure = \(MetricFigure.ledgerAmount.rawValue) AND span = 0 AND day <= \(last)
                GROUP BY subject, currency, inside
                """)
            return (window, prior, ledger)
        }

        struct Row {
            var figure: MetricFigure
            var day: Int64
            var currency: String
            var span: Int64
            var total: Int64
        }
        // Figures this version does not know are left out.
        let rows: [Row] = window.compactMap { row in
            guard let figure = MetricFigure(rawValue: row.figure) else { return nil }
            return Row(figure: figure, day: row.day, currency: row.unit, span: row.span, total: row.total)
        }
        var startActive: Int64 = 0
        var startTrials: Int64 = 0
        var startAnnual: [String: Int64] = [:]
        for row in prior {
            switch row.figure {
            case MetricFigure.active.rawValue: startActive += row.total
            case MetricFigure.trials.rawValue: startTrials += row.total
            default: startAnnual[row.currency, default: 0] += row.total
            }
        }

        // Days.
        var perDay: [MetricFigure: [Int64: Int64]] = [:]
        for row in rows where row.day >= first { perDay[row.figure, default: [:]][row.day, default: 0] += row.total }
        var active = startActive
        var trials = startTrials
        var days: [MetricsReport.Day] = []
        for day in first...last {
            active += perDay[.active]?[day] ?? 0
            trials += perDay[.trials]?[day] ?? 0
            days.append(
                MetricsReport.Day(
                    start: Self.date(day), activeSubscriptions: active, activeTrials: trials, new: perDay[.new]?[day] ?? 0,
                    renewed: perDay[.renewed]?[day] ?? 0, churned: perDay[.churned]?[day] ?? 0, trialsStarted: perDay[.trialStarted]?[day] ?? 0))
        }

        // Revenue.
        struct DayCurrency: Hashable, Comparable {
            var day: Int64
            var currency: String
            static func < (a: Self, b: Self) -> Bool { (a.day, a.currency) < (b.day, b.currency) }
        }
        var revenue: [DayCurrency: MetricsReport.Revenue] = [:]
        for row in rows where row.day >= first && row.total != 0 && [.purchases, .revenue, .refunds, .refunded].contains(row.figure) {
            let key = DayCurrency(day: row.day, currency: row.currency)
            var line =
                revenue[key]
                ?? MetricsReport.Revenue(day: Self.date(row.day), currency: row.currency, purchases: 0, milliunits: 0, refunds: 0, refundedMilliunits: 0)
            switch row.figure {
            case .purchases: line.purchases += row.total
            case .revenue: line.milliunits += row.total
            case .refunds: line.refunds += row.total
            default: line.refundedMilliunits += row.total
            }
            revenue[key] = line
        }

        // MRR, kept per year: divided by 12 once.
        var annual: [String: [MetricFigure: Int64]] = [:]
        for row in rows where row.day >= first && [.arr, .arrNew, .arrExpansion, .arrContraction, .arrChurned].contains(row.figure) {
            annual[row.currency, default: [:]][row.figure, default: 0] += row.total
        }
        let currencies = Set(annual.keys).union(startAnnual.filter { $0.value != 0 }.keys).sorted()
        let mrr = currencies.map { currency in
            let figures = annual[currency] ?? [:]
            let start = startAnnual[currency] ?? 0
            return MetricsReport.MRR(
                currency: currency, milliunits: (start + (figures[.arr] ?? 0)) / 12, startMilliunits: start / 12,
                new: (figures[.arrNew] ?? 0) / 12, expansion: (figures[.arrExpansion] ?? 0) / 12,
                contraction: (figures[.arrContraction] ?? 0) / 12, churned: (figures[.arrChurned] ?? 0) / 12)
        }

        // Cohorts, by the month their trial or paid run began.
        var trialCohorts: [Int64: MetricsReport.TrialCohort] = [:]
        var runs: [Int64: [Int64: Int64]] = [:]
        for row in rows {
            let month = Self.monthStart(row.day)
            switch row.figure {
            case .trialStarted: trialCohorts[month, default: .init(month: Self.date(month), started: 0, converted: 0)].started += row.total
            case .trialConverted: trialCohorts[month, default: .init(month: Self.date(month), started: 0, converted: 0)].converted += row.total
            case .paidRun: runs[month, default: [:]][row.span, default: 0] += row.total
            default: break
            }
        }
        let retention = runs.keys.sorted().map { month in
            let spans = runs[month]!
            let subscribers = spans.values.reduce(0, +)
            // k whole months are shown once every run of the cohort has had the time to last them.
            let reached = Self.monthsReached(cohort: month, today: today)
            let retained = (0...max(0, reached)).map { k in k == 0 ? subscribers : spans.filter { $0.key >= Int64(k) }.values.reduce(0, +) }
            return MetricsReport.RetentionCohort(month: Self.date(month), subscribers: subscribers, retained: retained)
        }

        // Credits (the ledger's, every environment).
        var credits: [String: MetricsReport.Credits] = [:]
        for row in ledger {
            var line = credits[row.currency] ?? .init(currency: row.currency, sold: 0, spent: 0, outstanding: 0)
            line.outstanding += row.total
            if row.inside == 1 {
                if row.kind == .purchase { line.sold += row.total }
                if row.kind == .spend { line.spent -= row.total }
            }
            credits[row.currency] = line
        }

        return MetricsReport(
            from: Self.date(first), to: Self.date(last + 1), environment: environment,
            productIDs: query.productID.map { [$0] }, days: days, revenue: revenue.keys.sorted().map { revenue[$0]! }, mrr: mrr,
            trialCohorts: trialCohorts.keys.sorted().map { trialCohorts[$0]! }, retention: retention,
            credits: credits.keys.sorted().map { credits[$0]! })
    }

    // MARK: - Rows

    /// A figure's sum on one day of the window, per currency for money (`unit`), else over all.
    private struct WindowRow: SQLRowDecodable {
        enum Columns {
            static let figure = SQLColumn("figure")
            static let day = SQLColumn("day")
            static let unit = SQLColumn("unit")
            static let span = SQLColumn("span")
            static let total = SQLColumn("total")
        }

        /// The figure's raw name.
        let figure: String
        let day: Int64
        /// The currency of a money figure, `""` for a count.
        let unit: String
        let span: Int64
        let total: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            figure = try row.text(Columns.figure)
            day = try row.int(Columns.day)
            unit = try row.text(Columns.unit)
            span = try row.int(Columns.span)
            total = try row.int(Columns.total)
        }
    }

    /// A running figure's sum per currency before the window: where it starts.
    private struct PriorRow: SQLRowDecodable {
        enum Columns {
            static let figure = SQLColumn("figure")
            static let currency = SQLColumn("currency")
            static let total = SQLColumn("total")
        }

        /// The figure's raw name.
        let figure: String
        let currency: String
        let total: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            figure = try row.text(Columns.figure)
            currency = try row.text(Columns.currency)
            total = try row.int(Columns.total)
        }
    }

    /// The ledger's amounts of one entry kind and currency, before the window or inside it (`inside` 1).
    private struct LedgerRow: SQLRowDecodable {
        enum Columns {
            static let subject = SQLColumn("subject")
            static let currency = SQLColumn("currency")
            static let inside = SQLColumn("inside")
            static let total = SQLColumn("total")
        }

        /// The entry kind (the rollup's subject).
        let kind: LedgerEntryKind
        let currency: String
        let inside: Int64
        let total: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            kind = try row.code(LedgerEntryKind.self, Columns.subject)
            currency = try row.text(Columns.currency)
            inside = try row.int(Columns.inside)
            total = try row.int(Columns.total)
        }
    }

    static func date(_ day: Int64) -> Date { EpochMilliseconds.date(day * MetricContributions.millisPerDay) }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The day the month of `day` begins: the day less its day of the month, by the civil
    /// calendar's arithmetic (``CivilDate``), not a `Calendar` per row.
    static func monthStart(_ day: Int64) -> Int64 {
        day - Int64(CivilDate(daysSince1970: Int(day)).day - 1)
    }

    /// The whole months every run begun in the month starting on `cohort` has had by `today`:
    /// those from the month's end to today.
    static func monthsReached(cohort: Int64, today: Int64) -> Int {
        let calendar = utc
        let nextMonth = calendar.date(byAdding: .month, value: 1, to: date(cohort))!
        let now = date(today + 1)
        guard nextMonth <= now else { return -1 }
        return calendar.dateComponents([.month], from: nextMonth, to: now).month ?? 0
    }
}
