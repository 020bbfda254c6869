import Foundation
import TallyCore
import TallyKit
import TallySQL
import TallyServer
import TallyTestSupport
import Testing

/// The device's database and the server's run one migration runner: the same table, the same
/// naming scheme, times in the same unit.
@Suite struct SchemaMigrationsTests {
    struct Record: Equatable {
        let name: String
        let appliedAt: Int64
    }

    /// The table's columns (name, declared type, primary key) and its records, read from the file itself.
    static func migrations(in path: String) throws -> (columns: [String], records: [Record]) {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        let columns = try connection.query("SELECT name, type, pk FROM pragma_table_info('schema_migrations') ORDER BY cid").map {
            "\(try $0.text(SQLColumn("name"))) \(try $0.text(SQLColumn("type"))) \(try $0.int(SQLColumn("pk")))"
        }
        let records = try connection.query("SELECT name, applied_at FROM schema_migrations ORDER BY name").map {
            Record(name: try $0.text(SQLColumn("name")), appliedAt: try $0.int(SQLColumn("applied_at")))
        }
        return (columns, records)
    }

    @Test func theDeviceAndTheServerRecordMigrationsInOneTableAndOneUnit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let devicePath = folder.path("device.sqlite")
        let serverPath = folder.path("server.sqlite")
        let before = EpochMilliseconds.of(Date())
        _ = try await LocalDatabase(path: devicePath)
        try await SQLiteDatabase(path: serverPath).migrate(Migrations.all)
        let after = EpochMilliseconds.of(Date())

        let device = try Self.migrations(in: devicePath)
        let server = try Self.migrations(in: serverPath)
        #expect(device.columns == ["name TEXT 1", "applied_at BIGINT 0"])
        #expect(device.columns == server.columns)
        #expect(device.records.map(\.name) == ["0001_device", "0002_ledger"])
        // A migration's record comes with those of the migrations folded into it.
        #expect(server.records.map(\.name) == Migrations.all.flatMap { [$0.name] + $0.folds })
        for record in device.records + server.records {
            #expect(record.name.wholeMatch(of: /[0-9]{4}_[a-z0-9_]+/) != nil, "\(record.name) is not NNNN_what")
            // Milliseconds since 1970: seconds or microseconds would fall far outside.
            #expect((before...after).contains(record.appliedAt), "\(record.name) applied at \(record.appliedAt), not between \(before) and \(after)")
        }
    }
}
