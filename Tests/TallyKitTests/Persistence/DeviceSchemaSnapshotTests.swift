import Foundation
import TallyKit
import TallySQL
import TallyTestSupport
import Testing

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
}
