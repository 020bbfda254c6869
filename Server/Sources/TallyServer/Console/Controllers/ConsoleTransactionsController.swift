import Foundation
import Hummingbird
import TallyCore

/// The console's transactions: the filtered list, page by page, and its CSV export.
struct ConsoleTransactionsController: Sendable {
    let admin: AdminStore
    let catalog: TallyCatalog
    let pages: ConsolePages
    let export: ConsoleExport

    var endpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("transactions") { request, context in try await transactionsPage(request, context) }
    }

    var exportEndpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("transactions.csv") { request, context in try await transactionsCSV(request, context) }
    }

    func transactionsPage(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let language = context.language
        var view = pages.view(request, context, page: "transactions", title: ConsoleText.text("nav_transactions", language))
        let filters = TransactionFilters(ConsoleQuery.fields(request))
        view["filter"] = filters.fields
        view["limit"] = filters.limit
        view["kinds"] = ProductKind.all.map { ConsolePages.option($0.rawValue, $0.rawValue, filters.fields["kind"]) }
        view["statuses"] = ["granted", "revoked", "refunded", "unbound"].map {
            ConsolePages.option($0, ConsoleText.text("status_\($0)", language), filters.fields["status"])
        }
        view["environments"] = ConsolePages.environments.map { ConsolePages.option($0, $0, filters.fields["environment"]) }
        view["products"] = catalog.products.map { ConsolePages.option($0.productID, $0.productID, filters.fields["product"]) }
        view["exportHref"] = "/console/transactions.csv" + filters.queryString(excluding: ["after", "limit"], replacing: ["csrf": context.csrf])
        return try await pages.list(view, "transactions", language) { view in
            let page = try await admin.adminTransactions(try filters.query(language))
            view["rows"] = page.transactions.map { Self.row($0, language) }
            if let next = page.nextCursor { view["nextHref"] = "/console/transactions" + filters.queryString(replacing: ["after": next]) }
            if filters.fields["after"] != nil { view["firstHref"] = "/console/transactions" + filters.queryString(excluding: ["after"]) }
        }
    }

    static func row(_ transaction: AdminTransaction, _ language: ConsoleText.Language) -> [String: Any] {
        var status = transaction.status
        if status == "revoked", transaction.revocationReason != nil { status = "refunded" }
        var row: [String: Any] = [
            "transactionID": transaction.transactionID, "originalTransactionID": transaction.originalTransactionID,
            "productID": transaction.productID, "kind": transaction.type, "status": status,
            "statusLabel": ConsoleText.text("status_\(status)", language), "environment": transaction.environment,
            "price": transaction.price.map { "\(ConsoleFormat.milliunits($0)) \(transaction.currency ?? "")" } ?? "",
            "purchased": transaction.purchaseDate.map(ConsoleFormat.time) ?? "—", "receivedAt": ConsoleFormat.time(transaction.receivedAt),
        ]
        if let user = transaction.userID { row["userID"] = user }
        if let revoked = transaction.revokedAt { row["revokedAt"] = ConsoleFormat.time(revoked) }
        return row
    }

    static let header = [
        "transaction_id", "original_transaction_id", "user_id", "product_id", "type", "status", "environment", "quantity", "price_milliunits",
        "currency", "storefront", "purchase_date", "expires_date", "received_at", "revoked_at", "revocation_reason", "app_account_token",
    ]

    func transactionsCSV(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let filters = TransactionFilters(ConsoleQuery.fields(request))
        var first = try filters.query(context.language)
        first.limit = 200
        first.cursor = nil
        let admin = admin
        return try await export.answer(
            "transactions", for: context, detail: filters.queryString(excluding: ["after", "limit"]), header: Self.header
        ) { [first] (cursor: AdminCursor?) in
            var query = first
            query.cursor = cursor
            let page = try await admin.adminTransactions(query)
            let lines = page.transactions.map { row -> [String?] in
                [
                    row.transactionID, row.originalTransactionID, row.userID, row.productID, row.type, row.status, row.environment,
                    String(row.quantity), row.price.map(String.init), row.currency, row.storefront, row.purchaseDate.map(ConsoleFormat.time),
                    row.expiresDate.map(ConsoleFormat.time), ConsoleFormat.time(row.receivedAt), row.revokedAt.map(ConsoleFormat.time),
                    row.revocationReason.map(String.init), row.appAccountToken,
                ]
            }
            return (lines, page.nextCursor.flatMap { AdminCursor(text: $0) })
        }
    }
}
