import Foundation
import TallySQL
import TallyServer
import TallyTestSupport
import Testing

/// The schema the migrations end with is the reviewed one in `Storage/Schema/` (one file per
/// database): a change to it fails here with the lines that differ until the file is written
/// again (`TALLY_UPDATE_SCHEMA_SNAPSHOT=1`) and the change is reviewed with the code.
@Suite struct SchemaSnapshotTests {
    static let folder = Repository.server.appendingPathComponent("Tests/TallyServerTests/Storage/Schema")

    @Test(arguments: Backend.available)
    func theMigratedSchemaIsTheReviewedOne(backend: Backend) async throws {
        let database = try await backend.makeDatabase()
        let schema = backend == .sqlite ? try await SchemaSnapshot.sqlite(database) : try await SchemaSnapshot.postgres(database)
        let difference = try SchemaSnapshot.difference(
            schema, snapshot: Self.folder.appendingPathComponent("\(backend.rawValue).sql"),
            test: "swift test --package-path Server --filter SchemaSnapshotTests")
        #expect(difference == nil, Comment(rawValue: difference ?? ""))
    }
}
