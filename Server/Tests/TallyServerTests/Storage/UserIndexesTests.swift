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

    /// A list of one user's transactions of one kind, as the console writes it (with literals for
    /// its binds), reads the user's transactions in the list's order.
    @Test func aListOfOneUsersTransactionsOfAKindSearchesTheUsersIndex() async throws {
        let database = try await Backend.sqlite.makeDatabase()
        let statement: SQL =
            "SELECT * FROM store_transactions WHERE 1 = 1 AND product_kind = 'consumable' AND user_id = 'u' ORDER BY received_at DESC LIMIT 51"
        let plan = try await Self.plan(database, statement)
        #expect(plan.first?.hasPrefix("SEARCH store_transactions USING INDEX store_transactions_user") == true, "\(plan)")
    }

    /// The API's ledger, the admin's user and the console's timeline read one user's entries
    /// newest first in the order of `ledger_user`, with a kind, a currency or a page. (SQLite
    /// needs no `user_id DESC` in the order: the test on PostgreSQL below is what holds it.)
    @Test(arguments: [
        ([], "ledger_user (user_id=?)"), (["kind = 'spend'", "currency = 'credits'"], "ledger_user (user_id=?)"),
        (["id < 9"], "ledger_user (user_id=? AND id<?)"),
    ])
    func oneUsersLedgerSearchesTheUsersIndexInItsOrder(conditions: [String], index: String) async throws {
        let database = try await Backend.sqlite.makeDatabase()
        let plan = try await Self.plan(database, LedgerEntryRow.newestOf("u", where: conditions.map { SQL(raw: $0) }, limit: 21, dialect: .sqlite))
        #expect(plan.first?.hasPrefix("SEARCH ledger_entries USING INDEX \(index)") == true, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    /// On PostgreSQL, whose planner weighs its statistics: a user whose 2,000 entries are older
    /// than everyone else's 20,000 gets them from `ledger_user`, not from a walk back through
    /// everyone's by the primary key (which `user_id = $1 ORDER BY id DESC` gets here).
    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func onPostgreSQLOneUsersOldEntriesAreReadFromTheUsersIndex() async throws {
        let database = try await Backend.postgres.makeDatabase()
        _ = try await database.write { executor in
            for statement in [
                "INSERT INTO users (id, app_account_token, created_at) SELECT 'u' || g, 'token-' || g, 0 FROM generate_series(0, 1000) g",
                "INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, created_at) SELECT 'u1000', 'credits', 'balance', 'purchase', 1, g FROM generate_series(1, 2000) g",
                """
                INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, created_at)
                SELECT 'u' || (g % 1000), 'credits', 'balance', 'purchase', 1, 100000 + g FROM generate_series(1, 20000) g
                """,
                "ANALYZE ledger_entries",
            ] {
                _ = try await executor.execute(statement, [])
            }
        }
        func plan(_ statement: SQL) async throws -> String {
            try await database.read { executor in
                try await executor.query("EXPLAIN " + statement).map { try $0.text(SQLColumn("QUERY PLAN")) }
            }.joined(separator: "\n")
        }
        // The plan of a prepared statement that no longer looks at its values, as the server's
        // named statements may come to use after a few runs.
        func genericPlan(_ statement: SQL) async throws -> String {
            let rendered = statement.rendered(for: .postgres)
            let values = rendered.binds.map { value in
                switch value {
                case .text(let text): "'" + text + "'"
                case .int(let number): String(number)
                default: "NULL"
                }
            }
            return try await database.write { executor in
                _ = try await executor.execute("SET LOCAL plan_cache_mode = force_generic_plan", [])
                _ = try await executor.execute("PREPARE listed AS " + rendered.text, [])
                let lines = try await executor.query("EXPLAIN EXECUTE listed(" + values.joined(separator: ", ") + ")", [])
                _ = try await executor.execute("DEALLOCATE listed", [])
                return try lines.map { try $0.text(SQLColumn("QUERY PLAN")) }.joined(separator: "\n")
            }
        }
        let plain = try await plan("SELECT * FROM ledger_entries WHERE user_id = \("u1000") ORDER BY id DESC LIMIT 21")
        try #require(plain.contains("ledger_entries_pkey"), "the statistics no longer lead the plain statement into the walk: \(plain)")
        for statement in [
            LedgerEntryRow.newestOf("u1000", limit: 21, dialect: .postgres),
            ConsoleStore.ledgerStatement(
                ConsoleLedgerQuery(kind: "purchase", userID: "u1000", before: .init(createdAt: 5_000, id: 21_000)), dialect: .postgres),
        ] {
            for plan in [try await plan(statement), try await genericPlan(statement)] {
                #expect(plan.contains("Index Scan Backward using ledger_user on ledger_entries") && !plan.contains("Sort"), "\(plan)")
            }
        }
    }

    /// The console's ledger, as `ConsoleStore` builds it: with a user named, that user's entries
    /// by id (`ledger_user`, the ledger's one index by user) whatever else is filtered or paged;
    /// without one, a range of a time index.
    @Test(arguments: [
        (ConsoleLedgerQuery(userID: "u"), "ledger_user (user_id=?)"),
        (ConsoleLedgerQuery(kind: "spend", userID: "u"), "ledger_user (user_id=?)"),
        (ConsoleLedgerQuery(currency: "credits", kind: "purchase", userID: "u"), "ledger_user (user_id=?)"),
        (
            ConsoleLedgerQuery(currency: "credits", userID: "u", from: Date(timeIntervalSince1970: 5), to: Date(timeIntervalSince1970: 9)),
            "ledger_user (user_id=?)"
        ),
        (ConsoleLedgerQuery(kind: "spend", userID: "u", before: .init(createdAt: 5_000, id: 9)), "ledger_user (user_id=? AND id<?)"),
        (ConsoleLedgerQuery(kind: "spend"), "ledger_kind_time (kind=?)"),
        (ConsoleLedgerQuery(currency: "credits", kind: "spend"), "ledger_currency_time (currency=? AND kind=?)"),
        (ConsoleLedgerQuery(from: Date(timeIntervalSince1970: 5)), "ledger_time (created_at>?)"),
    ])
    func theConsolesLedgerOfOneUserSearchesTheUsersIndexInItsOrder(query: ConsoleLedgerQuery, index: String) async throws {
        let database = try await Backend.sqlite.makeDatabase()
        let plan = try await Self.plan(database, ConsoleStore.ledgerStatement(query, dialect: .sqlite))
        #expect(plan.first?.hasPrefix("SEARCH ledger_entries USING INDEX \(index)") == true, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "the index gives the list's order: \(plan)")
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
