import Foundation
import TallyCore
import TallySQL
import Testing

@testable import TallyServer

/// The statements that read one user's rows search the indexes by user: `GET /v1/me` and a
/// spend's allowance search the user's transactions by kind or product too (never reading the
/// user's consumables, however many were bought), and the lists of one user's transactions and
/// ledger, with another filter or not, read the user's rows rather than every row of the filter.
@Suite struct UserIndexesTests {
    /// SQLite's plan of a statement, as `EXPLAIN QUERY PLAN` details it.
    private static func plan(_ database: any SQLDatabase, _ statement: SQL) async throws -> [String] {
        let rendered = statement.rendered(for: .sqlite)
        return try await database.read { executor in
            try await executor.query("EXPLAIN QUERY PLAN " + rendered.text, rendered.binds).map { try $0.text(SQLColumn("detail")) }
        }
    }

    @Test func theAccountsStatementAndTheAllowanceSearchTheUsersTransactionsByKindOrProduct() async throws {
        let database = try await Backend.sqlite.makeDatabase()
        let products = Harness.catalog.products.filter { $0.allowance != nil }.map(\.productID)
        try #require(!products.isEmpty, "the example catalog sells a subscription with an allowance")

        let allowance = try await Self.plan(database, Allowances.SourceRow.query(user: "u", productIDs: products, time: 1))
        let byProduct = "SEARCH store_transactions USING INDEX store_transactions_user_product (user_id=? AND product_id=?)"
        #expect(allowance.contains { $0.hasPrefix(byProduct) }, "\(allowance)")

        let account = try await Self.plan(database, Accounts.accountStatement(user: "u", time: 1, allowanceProducts: products))
        let searches = account.filter { $0.contains("store_transactions") }
        // Kept products and subscriptions by the user and their kinds, the allowance by the user and its products.
        #expect(searches.count == 3, "\(account)")
        #expect(searches.filter { $0.contains("USING INDEX store_transactions_user_kind (user_id=? AND product_kind=?)") }.count == 2, "\(account)")
        #expect(searches.filter { $0.contains(byProduct.dropFirst("SEARCH store_transactions ".count)) }.count == 1, "\(account)")
    }

    /// Lists of one user's rows, written as the API's ledger and the console's ledger and
    /// transactions build them (with literals for their binds).
    @Test(arguments: [
        ("SELECT * FROM ledger_entries WHERE user_id = 'u' AND id < 9 ORDER BY id DESC LIMIT 21", "ledger_user (user_id=? AND id<?)"),
        ("SELECT * FROM ledger_entries WHERE user_id = 'u' AND kind = 'spend' ORDER BY id DESC LIMIT 21", "ledger_user (user_id=?)"),
        (
            "SELECT * FROM ledger_entries WHERE 1 = 1 AND kind = 'spend' AND user_id = 'u' ORDER BY created_at DESC, id DESC LIMIT 51",
            "ledger_user_time (user_id=?)"
        ),
        (
            "SELECT * FROM ledger_entries WHERE 1 = 1 AND currency = 'credits' AND user_id = 'u' AND created_at >= 1 ORDER BY created_at DESC, id DESC LIMIT 51",
            "ledger_user_time (user_id=? AND created_at>?)"
        ),
        (
            "SELECT * FROM store_transactions WHERE 1 = 1 AND product_kind = 'consumable' AND user_id = 'u' ORDER BY received_at DESC LIMIT 51",
            "store_transactions_user"
        ),
    ])
    func aListOfOneUsersRowsSearchesTheUsersIndex(statement: String, index: String) async throws {
        let database = try await Backend.sqlite.makeDatabase()
        let plan = try await Self.plan(database, SQL(raw: statement))
        let table = statement.contains("ledger_entries") ? "ledger_entries" : "store_transactions"
        #expect(plan.first?.hasPrefix("SEARCH \(table) USING INDEX \(index)") == true, "\(plan)")
    }

    /// The admin's and the console's list of transactions, as `AdminStore` builds it: with a
    /// user named, the user's rows in the list's order, whatever product, kind, range or page;
    /// with a product alone, the product's rows in that order.
    @Test(arguments: [
        (AdminTransactionQuery(userID: "u", productID: "p"), "store_transactions_user (user_id=?)"),
        (AdminTransactionQuery(type: "consumable", userID: "u", productID: "p"), "store_transactions_user (user_id=?)"),
        (AdminTransactionQuery(userID: "u", from: Date(timeIntervalSince1970: 5), productID: "p"), "store_transactions_user (user_id=? AND received_at>?)"),
        (
            AdminTransactionQuery(userID: "u", productID: "p", cursor: AdminCursor(receivedAt: 5_000, id: "t")),
            "store_transactions_user (user_id=? AND received_at<?)"
        ),
        (AdminTransactionQuery(productID: "p"), "store_transactions_product (product_id=?)"),
    ])
    func theAdminListOfTransactionsSearchesTheNamedUsersRows(query: AdminTransactionQuery, index: String) async throws {
        let database = try await Backend.sqlite.makeDatabase()
        let plan = try await Self.plan(database, try AdminStore.transactionsStatement(query, orderedTransactionID: nil, dialect: .sqlite))
        #expect(plan.first?.hasPrefix("SEARCH store_transactions USING INDEX \(index)") == true, "\(plan)")
    }
}
