import Foundation
import Hummingbird
import TallyCore

/// The console's ledger: every credit movement, filtered, page by page, and its CSV export.
struct ConsoleLedgerController: Sendable {
    let console: ConsoleStore
    let catalog: TallyCatalog
    let pages: ConsolePages
    let export: ConsoleExport

    var endpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("ledger") { request, context in try await ledgerPage(request, context) }
    }

    var exportEndpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("ledger.csv") { request, context in try await ledgerCSV(request, context) }
    }

    func ledgerPage(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let language = context.language
        var view = pages.view(request, context, page: "ledger", title: ConsoleText.text("nav_ledger", language))
        let filters = LedgerFilters(ConsoleQuery.fields(request))
        view["filter"] = filters.fields
        view["limit"] = filters.limit
        view["currencies"] = catalog.currencies.map { ConsolePages.option($0.code, $0.code, filters.fields["currency"]) }
        view["kinds"] = LedgerEntryKind.all.map { ConsolePages.option($0.rawValue, $0.rawValue, filters.fields["kind"]) }
        view["exportHref"] = "/console/ledger.csv" + filters.queryString(excluding: ["before", "limit"], replacing: ["csrf": context.csrf])
        return try await pages.list(view, "ledger", language) { view in
            let page = try await console.ledgerEntries(try filters.query())
            view["rows"] = page.rows.map { row -> [String: Any] in
                [
                    "id": row.entry.id, "at": ConsoleFormat.time(row.entry.createdAt), "userID": row.userID, "currency": row.entry.currency,
                    "kind": row.entry.kind.rawValue, "bucket": row.entry.bucket.rawValue, "amount": ConsoleFormat.signed(row.entry.amount),
                    "transactionID": row.entry.transactionID ?? "", "reference": row.entry.reference ?? "",
                ]
            }
            if let next = page.next { view["nextHref"] = "/console/ledger" + filters.queryString(replacing: ["before": next.text]) }
            if filters.fields["before"] != nil { view["firstHref"] = "/console/ledger" + filters.queryString(excluding: ["before"]) }
        }
    }

    static let header = ["id", "created_at", "user_id", "currency", "bucket", "kind", "amount", "transaction_id", "reference"]

    func ledgerCSV(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let filters = LedgerFilters(ConsoleQuery.fields(request))
        var first = try filters.query()
        first.limit = 500
        first.before = nil
        let console = console
        return try await export.answer(
            "ledger", for: context, detail: filters.queryString(excluding: ["before", "limit"]), header: Self.header
        ) { [first] (position: ConsoleLedgerQuery.Position?) in
            var query = first
            query.before = position
            let page = try await console.ledgerEntries(query)
            let lines = page.rows.map { row -> [String?] in
                [
                    String(row.entry.id), ConsoleFormat.time(row.entry.createdAt), row.userID, row.entry.currency, row.entry.bucket.rawValue,
                    row.entry.kind.rawValue, String(row.entry.amount), row.entry.transactionID, row.entry.reference,
                ]
            }
            return (lines, page.next)
        }
    }
}
