import Foundation
import TallyCore
import TallySQL
import TallyServer
import TallyTestSupport
import Testing

/// `DatabaseAudit` on both backends: it adds a database up, and finds what does not add up.
@Suite struct DatabaseAuditTests {
    /// Two users who bought and spent: 2 + 50 − 7 credits and 2 credits.
    static func populated(_ backend: Backend) async throws -> (Harness, User, User) {
        let harness = try await Harness(backend)
        let buyer = try await harness.user()
        let other = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: buyer)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: buyer, orderID: nil)
        _ = try await harness.storage.spending.spend(user: buyer, request: SpendRequest(currency: "credits", amount: 7, idempotencyKey: "s1"))
        return (harness, buyer, other)
    }

    @Test(arguments: Backend.available)
    func aConsistentDatabaseAddsUp(backend: Backend) async throws {
        let (harness, _, _) = try await Self.populated(backend)
        let audit = try await DatabaseAudit.run(on: harness.database)
        #expect(audit.isConsistent, "\(audit.mismatches)")
        #expect(audit.migrations == Migrations.all.flatMap { [$0.name] + $0.folds }.sorted())
        #expect(audit.pendingMigrations.isEmpty)
        #expect(audit.users == 2)
        #expect(audit.storeTransactions == 1)
        // Two signup grants, one purchase, one spend.
        #expect(audit.ledgerEntries == 4)
        #expect(audit.balances == [.init(currency: "credits", available: 47, held: 0, debt: 0, ledger: 47)])
    }

    @Test(arguments: Backend.available)
    func aLedgerEntryWithoutItsBalanceIsFound(backend: Backend) async throws {
        let (harness, buyer, other) = try await Self.populated(backend)
        // Appending is all the ledger allows: an entry the position never saw.
        _ = try await harness.database.write { executor in
            try await executor.execute(
                "INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, created_at) VALUES (?, 'credits', 'balance', 'adjustment', 5, 0)",
                [.text(other.id)])
        }
        // And lots that no longer back the balance.
        _ = try await harness.database.write { executor in
            try await executor.execute("UPDATE lots SET remaining = remaining - 1 WHERE user_id = ? AND remaining > 0", [.text(buyer.id)])
        }
        let audit = try await DatabaseAudit.run(on: harness.database)
        #expect(!audit.isConsistent)
        #expect(audit.mismatchCount == 2)
        #expect(
            Set<DatabaseAudit.Mismatch>(audit.mismatches) == [
                .init(userID: other.id, currency: "credits", kind: "ledger", expected: 2, found: 7),
                .init(userID: buyer.id, currency: "credits", kind: "lots", expected: 45, found: 44),
            ])
        #expect(audit.balances.first?.ledger == 52)
    }

    @Test(arguments: Backend.available)
    func aSchemaFromANewerTallyIsRefused(backend: Backend) async throws {
        let harness = try await Harness(backend)
        _ = try await harness.database.write { executor in
            try await executor.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_the_future', 0)", [])
        }
        await #expect(throws: DatabaseMaintenanceError(.newerSchema, "")) { try await DatabaseAudit.run(on: harness.database) }
    }

    @Test func aDatabaseWithoutTallysTablesIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SQLiteDatabase(path: folder.path("notes.sqlite"))
        _ = try await database.write { executor in try await executor.execute("CREATE TABLE notes (text TEXT)", []) }
        await #expect(throws: DatabaseMaintenanceError(.notATallyDatabase, "")) { try await DatabaseAudit.run(on: database) }
    }
}
