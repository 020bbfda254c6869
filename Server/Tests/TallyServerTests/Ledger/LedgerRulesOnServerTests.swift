import TallyLedger
import TallySQL
import TallyServer
import TallyTestSupport
import Testing

/// The ledger's rules (``LedgerRules``), the same the device's tests run, on the server's
/// schema: SQLite and PostgreSQL, one holder per user (a row of `users`), no record of takes.
@Suite struct LedgerRulesOnServerTests {
    @Test(arguments: Backend.available, LedgerRules.all)
    func rule(backend: Backend, rule: LedgerRules.Rule) async throws {
        let database = try await backend.makeDatabase()
        try await database.write { executor in
            _ = try await executor.execute("INSERT INTO users (id, app_account_token, created_at) VALUES ('usr_ledger', 'token', 0)")
        }
        try await rule.check(LedgerRules.Bench(database: database, schema: Migrations.ledger, holder: "usr_ledger"))
        await database.close()
    }
}
