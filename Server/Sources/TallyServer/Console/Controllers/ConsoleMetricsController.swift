import Foundation
import Hummingbird
import TallyCore

/// The console's metrics (docs/metrics.md): subscriptions and trials per day, revenue and
/// refunds, MRR and its movement, trial and retention cohorts and credits, over a window of
/// one environment and optionally one product or subscription group; each table also as CSV.
/// Every count of transactions links to the transactions it counts.
struct ConsoleMetricsController: Sendable {
    let figures: MetricsStore
    let catalog: TallyCatalog
    let pages: ConsolePages
    let export: ConsoleExport
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("metrics") { request, context in try await metricsPage(request, context) }
    }

    var exportEndpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("metrics.csv") { request, context in try await metricsCSV(request, context) }
    }

    /// The tables an export may name.
    static let tables = ["days", "revenue", "mrr", "trials", "retention", "credits"]

    func metricsPage(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let language = context.language
        var view = pages.view(request, context, page: "metrics", title: ConsoleText.text("nav_metrics", language))
        let filters = MetricsFilters(ConsoleQuery.fields(request))
        view["filter"] = filters.fields
        view["windows"] = MetricsFilters.windows.map { ConsolePages.option($0.0, ConsoleText.text("window_\($0.0)", language), filters.window) }
        view["environments"] = MetricsQuery.environments.map {
            ConsolePages.option($0, $0, filters.fields["environment"] ?? "Production")
        }
        view["products"] = catalog.products.map { ConsolePages.option($0.productID, $0.productID, filters.fields["product"]) }
        var exports: [String: String] = [:]
        for table in Self.tables {
            exports[table] = "/console/metrics.csv" + filters.queryString(replacing: ["table": table, "csrf": context.csrf])
        }
        view["exportHref"] = exports
        return try await pages.list(view, "metrics", language) { view in
            let query = try filters.query(now: now())
            let report = try await figures.report(query)
            Self.fill(&view, report, query, language)
        }
    }

    /// The most days listed one by one; a longer window is listed by weeks.
    static let longestDailyTable = 92

    /// The page's figures, charts and links.
    static func fill(_ view: inout [String: Any], _ report: MetricsReport, _ query: MetricsQuery, _ language: ConsoleText.Language) {
        let links = Links(report: report, query: query)
        let lastDay = report.to.addingTimeInterval(-86_400)
        view["from"] = ConsoleFormat.day(report.from)
        view["through"] = ConsoleFormat.day(lastDay)
        if let last = report.days.last {
            view["activeSubscriptions"] = last.activeSubscriptions
            view["activeTrials"] = last.activeTrials
        }
        // A window longer than a quarter is listed and drawn by weeks (its CSV keeps the days): a
        // year of days, in every currency, is a page no one reads and thousands of elements to render.
        let span = report.days.count > Self.longestDailyTable ? 7 : 1
        let blocks = stride(from: 0, to: report.days.count, by: span).map { Array(report.days[$0..<min(report.days.count, $0 + span)]) }
        func label(_ block: [MetricsReport.Day]) -> (text: String, from: String, through: String) {
            let from = ConsoleFormat.day(block.first!.start)
            let through = ConsoleFormat.day(block.last!.start)
            return (block.count == 1 ? from : "\(from) – \(through)", from, through)
        }
        // The charts too: a point per day, or per week of a longer window (as at its last day).
        let chart = ConsoleChart()
        let ends = blocks.map { $0.last! }
        var activity = chart.lines(
            blocks.map { $0.first!.start },
            [
                .init(kind: "active", values: ends.map(\.activeSubscriptions)) {
                    "\($0) \(ConsoleText.text("metrics_active_subscriptions", language))"
                },
                .init(kind: "trial", values: ends.map(\.activeTrials)) { "\($0) \(ConsoleText.text("metrics_active_trials", language))" },
            ])
        activity["kind"] = "activity"
        activity["label"] = ConsoleText.text("metrics_activity_chart", language)
        view["activity"] = activity
        view["days"] = blocks.map { block -> [String: Any] in
            let (text, from, through) = label(block)
            let last = block.last!
            return [
                "day": text, "href": links.transactions(["purchased_from": from, "purchased_to": through]), "active": last.activeSubscriptions,
                "trials": last.activeTrials, "new": block.reduce(0) { $0 + $1.new }, "renewed": block.reduce(0) { $0 + $1.renewed },
                "churned": block.reduce(0) { $0 + $1.churned }, "trialsStarted": block.reduce(0) { $0 + $1.trialsStarted },
            ]
        }
        let currencies = Array(Set(report.revenue.map(\.currency))).sorted()
        view["revenueCharts"] = currencies.filter { !$0.isEmpty }.map { currency -> [String: Any] in
            let byDay = Dictionary(report.revenue.filter { $0.currency == currency }.map { ($0.day, $0.milliunits) }, uniquingKeysWith: +)
            let money = { (value: Int64) in "\(ConsoleFormat.milliunits(value)) \(currency)" }
            let values = blocks.map { block in block.reduce(0) { $0 + (byDay[$1.start] ?? 0) } }
            var bars = chart.bars(blocks.map { $0.first!.start }, [.init(kind: "revenue", values: values, label: money)], axis: money)
            bars["kind"] = "revenue"
            bars["label"] = "\(ConsoleText.text(span == 1 ? "metrics_revenue_per_day" : "metrics_revenue_per_week", language)): \(currency)"
            return ["currency": currency, "chart": bars]
        }
        let blockOfDay = Dictionary(
            blocks.enumerated().flatMap { index, block in block.map { ($0.start, index) } }, uniquingKeysWith: { first, _ in first })
        var revenueBlocks: [Int: [String: MetricsReport.Revenue]] = [:]
        for row in report.revenue {
            guard let index = blockOfDay[row.day] else { continue }
            var sum =
                revenueBlocks[index]?[row.currency]
                ?? .init(day: row.day, currency: row.currency, purchases: 0, milliunits: 0, refunds: 0, refundedMilliunits: 0)
            sum.purchases += row.purchases
            sum.milliunits += row.milliunits
            sum.refunds += row.refunds
            sum.refundedMilliunits += row.refundedMilliunits
            revenueBlocks[index, default: [:]][row.currency] = sum
        }
        view["revenue"] = revenueBlocks.keys.sorted().flatMap { index in
            let (text, from, through) = label(blocks[index])
            return revenueBlocks[index]!.keys.sorted().map { currency -> [String: Any] in
                let row = revenueBlocks[index]![currency]!
                return [
                    "day": text, "currency": currency.isEmpty ? "—" : currency, "purchases": row.purchases,
                    "purchasesHref": links.transactions(["purchased_from": from, "purchased_to": through, "currency": currency]),
                    "amount": ConsoleFormat.milliunits(row.milliunits), "refunds": row.refunds,
                    "refundsHref": links.transactions(["revoked_from": from, "revoked_to": through, "currency": currency]),
                    "refunded": ConsoleFormat.milliunits(row.refundedMilliunits),
                ]
            }
        }
        let window = (from: ConsoleFormat.day(report.from), through: ConsoleFormat.day(lastDay))
        view["refundRates"] = currencies.map { currency -> [String: Any] in
            let rows = report.revenue.filter { $0.currency == currency }
            let purchases = rows.reduce(0) { $0 + $1.purchases }
            let refunds = rows.reduce(0) { $0 + $1.refunds }
            return [
                "currency": currency.isEmpty ? "—" : currency, "purchases": purchases,
                "purchasesHref": links.transactions(["purchased_from": window.from, "purchased_to": window.through, "currency": currency]),
                "amount": ConsoleFormat.milliunits(rows.reduce(0) { $0 + $1.milliunits }), "refunds": refunds,
                "refundsHref": links.transactions(["revoked_from": window.from, "revoked_to": window.through, "currency": currency]),
                "refunded": ConsoleFormat.milliunits(rows.reduce(0) { $0 + $1.refundedMilliunits }),
                "rate": ConsoleFormat.percent(refunds, of: purchases),
            ]
        }
        view["mrr"] = report.mrr.map { row -> [String: Any] in
            [
                "currency": row.currency, "start": ConsoleFormat.milliunits(row.startMilliunits), "new": ConsoleFormat.milliunits(row.new),
                "expansion": ConsoleFormat.milliunits(row.expansion), "contraction": ConsoleFormat.milliunits(row.contraction),
                "churned": ConsoleFormat.milliunits(row.churned), "end": ConsoleFormat.milliunits(row.milliunits),
            ]
        }
        view["trials"] = report.trialCohorts.map { row -> [String: Any] in
            [
                "month": ConsoleFormat.month(row.month), "started": row.started, "converted": row.converted,
                "rate": ConsoleFormat.percent(row.converted, of: row.started),
            ]
        }
        let months = report.retention.map(\.retained.count).max() ?? 0
        view["retentionMonths"] = Array(0..<months)
        view["retention"] = report.retention.map { row -> [String: Any] in
            [
                "month": ConsoleFormat.month(row.month), "subscribers": row.subscribers,
                "cells": (0..<months).map { month -> [String: Any] in
                    guard month < row.retained.count else { return [:] }
                    let count = row.retained[month]
                    return ["count": count, "percent": ConsoleFormat.percent(count, of: row.subscribers)]
                },
            ]
        }
        view["credits"] = report.credits.map { row -> [String: Any] in
            [
                "currency": row.currency, "sold": row.sold, "spent": row.spent, "outstanding": row.outstanding,
                "soldHref": links.ledger(["currency": row.currency, "kind": "purchase", "from": window.from, "to": window.through]),
                "spentHref": links.ledger(["currency": row.currency, "from": window.from, "to": window.through]),
            ]
        }
    }

    /// The addresses of the lists behind the figures: the report's environment, product and group.
    struct Links {
        let report: MetricsReport
        let query: MetricsQuery

        func transactions(_ fields: [String: String]) -> String {
            var base = ["environment": report.environment]
            if let product = query.productID { base["product"] = product }
            if let group = query.subscriptionGroup { base["group"] = group }
            return "/console/transactions" + ConsoleQuery.string(base.merging(fields.filter { !$0.value.isEmpty }) { $1 })
        }

        /// The ledger is of every environment and product.
        func ledger(_ fields: [String: String]) -> String { "/console/ledger" + ConsoleQuery.string(fields) }
    }

    func metricsCSV(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let parameters = ConsoleQuery.fields(request)
        let table = ConsoleQuery.value(parameters, "table") ?? ""
        guard Self.tables.contains(table) else {
            throw TallyAPIError(.invalidRequest, "table must be days, revenue, mrr, trials, retention or credits")
        }
        let filters = MetricsFilters(parameters)
        let report = try await figures.report(try filters.query(now: now()))
        let (header, lines) = Self.table(table, report)
        return try await export.answer(
            "metrics-\(table)", for: context, detail: filters.queryString(), header: header
        ) { (_: Int?) in (lines, nil) }
    }

    /// A table of the report as CSV columns and lines: days and months as `YYYY-MM-DD`, money in milliunits.
    static func table(_ name: String, _ report: MetricsReport) -> (header: [String], lines: [[String?]]) {
        switch name {
        case "days":
            return (
                ["day", "active_subscriptions", "active_trials", "new", "renewed", "churned", "trials_started"],
                report.days.map { day in
                    [ConsoleFormat.day(day.start)]
                        + [day.activeSubscriptions, day.activeTrials, day.new, day.renewed, day.churned, day.trialsStarted].map(String.init)
                }
            )
        case "revenue":
            return (
                ["day", "currency", "purchases", "milliunits", "refunds", "refunded_milliunits"],
                report.revenue.map { row in
                    [ConsoleFormat.day(row.day), row.currency] + [row.purchases, row.milliunits, row.refunds, row.refundedMilliunits].map(String.init)
                }
            )
        case "mrr":
            return (
                ["currency", "start_milliunits", "new", "expansion", "contraction", "churned", "end_milliunits"],
                report.mrr.map { row in
                    [row.currency] + [row.startMilliunits, row.new, row.expansion, row.contraction, row.churned, row.milliunits].map(String.init)
                }
            )
        case "trials":
            return (
                ["month", "started", "converted"],
                report.trialCohorts.map { [ConsoleFormat.day($0.month), String($0.started), String($0.converted)] }
            )
        case "retention":
            let months = report.retention.map(\.retained.count).max() ?? 0
            return (
                ["month", "subscribers"] + (0..<months).map { "month_\($0)" },
                report.retention.map { row in
                    [ConsoleFormat.day(row.month), String(row.subscribers)]
                        + (0..<months).map { $0 < row.retained.count ? String(row.retained[$0]) : nil }
                }
            )
        default:
            return (
                ["currency", "sold", "spent", "outstanding"],
                report.credits.map { [$0.currency, String($0.sold), String($0.spent), String($0.outstanding)] }
            )
        }
    }
}
