import TallySQL
import Testing

@testable import TallyServer

/// Interpolated statements on PostgreSQL: rendered with `$n` where the values stand, never
/// scanned, so text that a placeholder scan would misread runs as written.
@Suite(.serialized) struct PostgresSQLTests {
    struct Note: SQLRowDecodable, Equatable {
        enum Columns {
            static let id = SQLColumn("id")
            static let text = SQLColumn("text")
            static let amount = SQLColumn("amount")
        }

        let id: Int64
        let text: String
        let amount: Int64?

        init(id: Int64, text: String, amount: Int64?) {
            self.id = id
            self.text = text
            self.amount = amount
        }

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.int(Columns.id)
            text = try row.text(Columns.text)
            amount = try row.optionalInt(Columns.amount)
        }
    }

    static func database() async throws -> PostgresDatabase {
        let database = PostgresDatabase(configuration: try await TestPostgres.makeSchema())
        try await database.migrate([
            Migration(name: "0001_notes", both: ["CREATE TABLE notes (id BIGINT PRIMARY KEY, text TEXT NOT NULL, amount BIGINT)"])
        ])
        return database
    }

    @Test func valuesRoundTripAsTheyWereAndDecodeAsRecords() async throws {
        let database = try await Self.database()
        defer { Task { await database.close() } }
        let texts = ["?", "$1", "it's", "'; DROP TABLE notes; --", "\"quoted\"", "ґ?", ""]
        let notes = texts.enumerated().map { index, text in
            Note(id: Int64(index + 1), text: text, amount: index.isMultiple(of: 2) ? nil : Int64(index) * -1_000)
        }
        try await database.write { executor in
            for note in notes {
                try await executor.execute("INSERT INTO notes (id, text, amount) VALUES (\(note.id), \(note.text), \(note.amount))")
            }
        }
        let read = try await database.read { executor in
            try await executor.fetchAll(Note.self, "SELECT * FROM notes WHERE id IN (\(list: notes.map(\.id))) ORDER BY \(Note.Columns.id)")
        }
        #expect(read == notes)
    }

    /// `readStatement` sends its statement alone, not inside the read transaction's block
    /// (`BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY`): it runs with the session's
    /// defaults, read committed and writable.
    @Test func aStatementReadAloneRunsOutsideATransaction() async throws {
        let database = try await Self.database()
        defer { Task { await database.close() } }
        let check: SQL = "SELECT current_setting('transaction_isolation') AS isolation, current_setting('transaction_read_only') AS read_only"
        let alone = try #require(try await database.readStatement(check).first)
        #expect(try alone.text(SQLColumn("isolation")) == "read committed")
        #expect(try alone.text(SQLColumn("read_only")) == "off")
        let inBlock = try #require(try await database.read { executor in try await executor.query(check).first })
        #expect(try inBlock.text(SQLColumn("isolation")) == "repeatable read")
        #expect(try inBlock.text(SQLColumn("read_only")) == "on")
    }

    /// A `?` in a string literal, a comment, a dollar-quoted body, and jsonb's `?` operator,
    /// which the earlier form (`?` numbered by scanning the text) would have taken for a
    /// placeholder.
    @Test func questionMarksInTheTextStayText() async throws {
        let database = try await Self.database()
        defer { Task { await database.close() } }
        let key = "a"
        let row = try await database.read { executor in
            try await executor.query(
                """
                SELECT '?' AS mark, $$ why? $$ AS body, '{"a": 1}'::jsonb ? \(key) AS has, \(Int64(5)) + 1 AS six -- really?
                """
            ).first
        }
        #expect(try row?.text(SQLColumn("mark")) == "?")
        #expect(try row?.text(SQLColumn("body")) == " why? ")
        #expect(try row?.bool(SQLColumn("has")) == true)
        #expect(try row?.int(SQLColumn("six")) == 6)
        // The earlier form numbers the operator's ? as a placeholder: one more than its values.
        let error = await #expect(throws: SQLDatabaseError.self) {
            try await database.read { executor in
                try await executor.query("SELECT '{\"a\": 1}'::jsonb ? ? AS has", [.text(key)])
            }
        }
        #expect(error?.kind == .other)
    }
}
