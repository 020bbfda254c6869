import Foundation
import TallySQL
import TallyServer
import Testing

/// The server's schema is `0001_core`, with the migrations of development folded into it, and
/// the migrations added since (`0005_metrics`, `0006_event_deliveries`, `0007_ledger_by_user_once`, `0008_event_readers`): a database they made
/// opens, one they made only part of is refused.
@Suite struct MigrationsTests {
    static let folded = ["0001_core", "0002_apple", "0003_console", "0004_events"]
    static let since = ["0005_metrics", "0006_event_deliveries", "0007_ledger_by_user_once", "0008_event_readers"]
    static let recorded = folded + since

    static func applied(_ database: any SQLDatabase) async throws -> [String] {
        try await database.read { executor in
            try await executor.query("SELECT name FROM schema_migrations ORDER BY name", []).map { try $0.text(SQLColumn("name")) }
        }
    }

    @Test(arguments: Backend.available)
    func aNewDatabaseRecordsTheCoreWithTheMigrationsFoldedIntoIt(backend: Backend) async throws {
        let database = try await backend.makeDatabase()
        #expect(Migrations.all.map(\.name) == ["0001_core"] + Self.since)
        #expect(try await Self.applied(database) == Self.recorded)
    }

    /// A database the unfolded migrations made records the same four names, and has the same
    /// schema (`SchemaSnapshotTests`: its snapshot was written from them and did not change
    /// with the fold).
    @Test(arguments: Backend.available)
    func aDatabaseMigratedBeforeTheFoldOpensAndAddsUp(backend: Backend) async throws {
        let database = try await backend.makeDatabase()
        // Each applied on its own, as development builds did.
        _ = try await database.write { executor in
            for (index, name) in Self.recorded.enumerated() {
                try await executor.execute("UPDATE schema_migrations SET applied_at = ? WHERE name = ?", [.int(Int64(index) * 86_400_000), .text(name)])
            }
        }
        try await database.migrate(Migrations.all)
        #expect(try await Self.applied(database) == Self.recorded)
        let harness = try await Harness(backend, database: database)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        let audit = try await DatabaseAudit.run(on: database)
        #expect(audit.isConsistent)
        #expect(audit.migrations == Self.recorded)
        #expect(audit.pendingMigrations.isEmpty)
    }

    @Test(arguments: Backend.available)
    func aDatabaseMigratedPartWayByADevelopmentBuildIsRefused(backend: Backend) async throws {
        let database = try await backend.makeDatabase()
        // As a build from before the console and the events made it.
        _ = try await database.write { executor in
            try await executor.execute("DELETE FROM schema_migrations WHERE name IN ('0003_console', '0004_events')", [])
        }
        let error = await #expect(throws: SQLDatabaseError.self) { try await database.migrate(Migrations.all) }
        #expect(error?.message.contains("without 0003_console, 0004_events") == true, "\(String(describing: error))")
        #expect(try await Self.applied(database) == ["0001_core", "0002_apple"] + Self.since)
    }

    /// A database with purchases from before the rollups gets them built from what it holds
    /// when the server starts.
    @Test(arguments: Backend.available)
    func aDatabaseFromBeforeTheRollupsHasThemBuiltFromItsData(backend: Backend) async throws {
        let database = try await backend.makeDatabase()
        let harness = try await Harness(backend, database: database)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        // As `0005_metrics` leaves a database that had data: no rollups, not built.
        _ = try await database.write { executor in
            try await executor.execute("DELETE FROM metric_days", [])
            try await executor.execute("DELETE FROM metric_state", [])
        }
        let before = try await DatabaseAudit.run(on: database)
        #expect(!before.isConsistent)
        #expect(before.rollupDifferenceCount > 0)

        // Two at once leave the sums as one build does (the race itself is not forced here).
        async let first: Void = MetricsRollup.ensureBuilt(database)
        async let second: Void = MetricsRollup.ensureBuilt(database)
        _ = try await (first, second)
        let after = try await DatabaseAudit.run(on: database)
        #expect(after.isConsistent, "\(after.rollupDifferences)")
        let day = try #require(verified.payload.purchaseDate)
        let report = try await harness.storage.metrics.report(MetricsQuery(from: day, through: day, environment: verified.payload.environment!.rawValue))
        #expect(report.revenue.map(\.purchases).reduce(0, +) == 1)
        #expect(report.credits.first { $0.currency == "credits" }?.sold == 50)
    }
}
