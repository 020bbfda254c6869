import Foundation
import TallySQL
import TallyTestSupport
import Testing

@testable import TallyKit

/// The device's schema, as `LocalDatabase` migrates it, is the reviewed one in
/// `Persistence/Schema/device.sql`: a change fails here with the lines that differ until the
/// file is written again (`TALLY_UPDATE_SCHEMA_SNAPSHOT=1`) and the change is reviewed.
@Suite struct DeviceSchemaSnapshotTests {
    @Test func theMigratedSchemaIsTheReviewedOne() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("tally.sqlite")
        _ = try await LocalDatabase(path: path)
        let schema = try await SchemaSnapshot.sqlite(try SQLiteDatabase(path: path))
        let difference = try SchemaSnapshot.difference(
            schema, snapshot: Repository.root.appendingPathComponent("Tests/TallyKitTests/Persistence/Schema/device.sql"),
            test: "swift test --filter DeviceSchemaSnapshotTests")
        #expect(difference == nil, Comment(rawValue: difference ?? ""))
    }

    /// The text of every migration, as devices run it, is the reviewed one in
    /// `Persistence/Schema/migrations.sql`. A migration devices have run is never edited: a
    /// database that ran it would keep the old text's schema and a new one would get the new,
    /// and the next migration could not suit both. Parts of it come from shared code (the
    /// ledger's `LedgerSchema`), so a change there fails here; it belongs in a new migration.
    @Test func theMigrationsTextIsTheReviewedOne() throws {
        let text = LocalDatabase.migrations.map { migration in
            "-- \(migration.name)\n" + migration.sqlite.map { $0 + ";\n" }.joined()
        }.joined(separator: "\n")
        let difference = try SchemaSnapshot.difference(
            text, snapshot: Repository.root.appendingPathComponent("Tests/TallyKitTests/Persistence/Schema/migrations.sql"),
            test: "swift test --filter DeviceSchemaSnapshotTests")
        #expect(difference == nil, Comment(rawValue: "a migration's text changed; only a new migration at the end may be added:\n" + (difference ?? "")))
    }
}
