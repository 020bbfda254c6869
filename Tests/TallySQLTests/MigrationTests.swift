import Foundation
import TallySQL
import TallyTestSupport
import Testing

/// The one migration runner, on SQLite: each migration once, in order, whole or not at all,
/// recorded in `schema_migrations` with the time in milliseconds.
@Suite struct MigrationTests {
    static let notes = Migration(name: "0001_notes", both: ["CREATE TABLE notes (id BIGINT PRIMARY KEY, text TEXT NOT NULL)"])
    static let tags = Migration(
        name: "0002_tags",
        both: ["CREATE TABLE tags (note_id BIGINT NOT NULL REFERENCES notes (id), tag TEXT NOT NULL)", "CREATE INDEX tags_tag ON tags (tag)"])

    static func applied(_ database: SQLiteDatabase) async throws -> [(name: String, at: Int64)] {
        try await database.read { executor in
            try await executor.query("SELECT name, applied_at FROM schema_migrations ORDER BY name", []).map {
                (try $0.text(SQLColumn("name")), try $0.int(SQLColumn("applied_at")))
            }
        }
    }

    @Test func eachMigrationIsAppliedOnceInOrderAndRecordedWithItsTimeInMilliseconds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let database = try SQLiteDatabase(path: folder.path("notes.sqlite"))
        try await database.migrate([Self.notes, Self.tags])
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        // Applying them again (on this handle and on a new one) would fail on CREATE TABLE: they are skipped.
        try await database.migrate([Self.notes, Self.tags])
        try await SQLiteDatabase(path: folder.path("notes.sqlite")).migrate([Self.notes, Self.tags])

        let applied = try await Self.applied(database)
        #expect(applied.map(\.name) == ["0001_notes", "0002_tags"])
        for record in applied { #expect((before...after).contains(record.at), "\(record.at) is not milliseconds between \(before) and \(after)") }
        try await database.write { executor in
            try await executor.execute("INSERT INTO notes (id, text) VALUES (1, 'hello')", [])
            try await executor.execute("INSERT INTO tags (note_id, tag) VALUES (1, 'greeting')", [])
        }
    }

    @Test func aFoldedMigrationIsRecordedWithTheNamesItTookIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let folded = Migration(name: "0001_notes", folds: ["0002_tags"], sqlite: Self.notes.sqlite + Self.tags.sqlite, postgres: [])
        let fresh = try SQLiteDatabase(path: folder.path("fresh.sqlite"))
        try await fresh.migrate([folded])
        #expect(try await Self.applied(fresh).map(\.name) == ["0001_notes", "0002_tags"])

        // Made by the two migrations before the fold: the same schema, the same names; it opens.
        let before = try SQLiteDatabase(path: folder.path("before.sqlite"))
        try await before.migrate([Self.notes, Self.tags])
        try await before.migrate([folded])
        #expect(try await Self.applied(before).map(\.name) == ["0001_notes", "0002_tags"])
    }

    @Test func aDatabaseWithoutAMigrationItsFoldTookInIsRefusedAndLeftAsItWas() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let folded = Migration(name: "0001_notes", folds: ["0002_tags"], sqlite: Self.notes.sqlite + Self.tags.sqlite, postgres: [])
        // Made before 0002_tags existed: it has no tags table.
        let database = try SQLiteDatabase(path: folder.path("notes.sqlite"))
        try await database.migrate([Self.notes])
        let error = await #expect(throws: SQLDatabaseError.self) { try await database.migrate([folded]) }
        #expect(error?.message.contains("without 0002_tags") == true, "\(String(describing: error))")
        #expect(try await Self.applied(database).map(\.name) == ["0001_notes"])
    }

    @Test func aMigrationThatFailsIsRolledBackWholeAndNotRecorded() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SQLiteDatabase(path: folder.path("notes.sqlite"))
        let broken = Migration(name: "0002_broken", both: ["CREATE TABLE drafts (id BIGINT PRIMARY KEY)", "INSERT INTO missing (id) VALUES (1)"])
        await #expect(throws: SQLDatabaseError.self) { try await database.migrate([Self.notes, broken]) }

        #expect(try await Self.applied(database).map(\.name) == ["0001_notes"])
        let tables = try await database.read { executor in
            try await executor.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('notes', 'drafts')", []).map {
                try $0.text(SQLColumn("name"))
            }
        }
        #expect(tables == ["notes"])
        // Fixed, it applies.
        try await database.migrate([Self.notes, Migration(name: "0002_broken", both: ["CREATE TABLE drafts (id BIGINT PRIMARY KEY)"])])
        #expect(try await Self.applied(database).map(\.name) == ["0001_notes", "0002_broken"])
    }

    @Test func aMigrationWithoutStatementsForTheDialectIsRefusedAndNotRecorded() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SQLiteDatabase(path: folder.path("notes.sqlite"))
        let postgresOnly = Migration(name: "0001_postgres_only", sqlite: [], postgres: ["CREATE TABLE notes (id BIGINT PRIMARY KEY)"])
        let error = await #expect(throws: SQLDatabaseError.self) { try await database.migrate([postgresOnly]) }
        #expect(error?.message.contains("0001_postgres_only") == true)
        #expect(try await Self.applied(database).isEmpty)
    }
}
