import TallyLedger
import TallySQL
import TallyTestSupport
import Testing

/// The ledger's rules (``LedgerRules``) on SQLite with the device's fragment: one holder, each
/// take from a lot kept, no RETURNING. The server's tests run the same rules on its SQLite and
/// PostgreSQL schemas.
@Suite struct LedgerRulesOnDeviceTests {
    static let schema = LedgerSchema(holders: nil, recordsTakes: true, returning: false)

    @Test(arguments: LedgerRules.all) func rule(_ rule: LedgerRules.Rule) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SQLiteDatabase(path: folder.path("ledger.sqlite"))
        try await database.migrate([Migration(name: "0001_ledger", sqlite: Self.schema.statements(.sqlite))])
        try await rule.check(LedgerRules.Bench(database: database, schema: Self.schema, holder: "device"))
        await database.close()
    }

    @Test func withReturningTheRulesHoldToo() async throws {
        // The server's SQLite answers RETURNING; the rules do not depend on which way a position is locked.
        let schema = LedgerSchema(holders: nil, recordsTakes: false, returning: true)
        for rule in LedgerRules.all {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let database = try SQLiteDatabase(path: folder.path("ledger.sqlite"))
            try await database.migrate([Migration(name: "0001_ledger", sqlite: schema.statements(.sqlite))])
            try await rule.check(LedgerRules.Bench(database: database, schema: schema, holder: "device"))
            await database.close()
        }
    }
}
