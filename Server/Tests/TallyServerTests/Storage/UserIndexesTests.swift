import Foundation
import TallyCore
import TallySQL
import Testing

@testable import TallyServer

/// The statements that read one user's rows use the indexes by user that `0007_user_indexes`
/// leaves: `GET /v1/me` and a spend's allowance search the user's transactions by kind and
/// product too (never reading the user's consumables, however many were bought), and a user's
/// ledger is read by the user.
@Suite struct UserIndexesTests {
    /// SQLite's plan of each statement that reads a user's transactions, as `EXPLAIN QUERY PLAN`
    /// details it.
    private static func plan(_ database: any SQLDatabase, _ statement: SQL) async throws -> [String] {
        let rendered = statement.rendered(for: .sqlite)
        return try await database.read { executor in
            try await executor.query("EXPLAIN QUERY PLAN " + rendered.text, rendered.binds).map { try $0.text(SQLColumn("detail")) }
        }
    }

    @Test func theAccountsStatementAndTheAllowanceSearchTheUsersTransactionsByKindAndProduct() async throws {
        let database = try await Backend.sqlite.makeDatabase()
        let catalog = Harness.catalog
        let allowanceProducts = catalog.products.filter { $0.allowance != nil }
        try #require(!allowanceProducts.isEmpty, "the example catalog sells a subscription with an allowance")

        let allowance = try await Self.plan(database, Allowances.SourceRow.query(user: "u", products: allowanceProducts, time: 1))
        let byKindAndProduct = "SEARCH store_transactions USING INDEX store_transactions_user (user_id=? AND product_kind=? AND product_id=?)"
        #expect(allowance.contains { $0.hasPrefix(byKindAndProduct) }, "\(allowance)")

        let account = try await Self.plan(database, Accounts.accountStatement(user: "u", time: 1, allowanceProducts: allowanceProducts))
        let searches = account.filter { $0.contains("store_transactions") }
        // Kept products, subscriptions, the allowance: each by the user and its kinds.
        #expect(searches.count == 3, "\(account)")
        #expect(searches.allSatisfy { $0.contains("USING INDEX store_transactions_user (user_id=? AND product_kind=?") }, "\(account)")
    }

    /// One user's ledger is found by `ledger_user`, newest first by id as the API pages it
    /// without a sort, and by time for the console with one: never by walking the whole
    /// ledger in time order for the user's few entries.
    @Test func aUsersLedgerIsFoundByTheUser() async throws {
        let database = try await Backend.sqlite.makeDatabase()
        let api = try await Self.plan(
            database, "SELECT * FROM ledger_entries WHERE user_id = \("u") AND id < \(Int64(9)) ORDER BY id DESC LIMIT \(Int64(21))")
        #expect(api.count == 1 && api[0].hasPrefix("SEARCH ledger_entries USING INDEX ledger_user (user_id=? AND id<?)"), "\(api)")
        let console = try await Self.plan(
            database,
            """
            SELECT * FROM ledger_entries WHERE 1 = 1 AND user_id = \("u") AND created_at >= \(Int64(1)) AND created_at < \(Int64(2))
            ORDER BY created_at DESC, id DESC LIMIT \(Int64(51))
            """)
        #expect(console.first?.hasPrefix("SEARCH ledger_entries USING INDEX ledger_user (user_id=?)") == true, "\(console)")
    }
}
