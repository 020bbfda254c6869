import TallySQL
import Testing

/// Interpolated statements and decoded records on SQLite: values go in as binds and come back
/// as they were, a record is read in one place, and a bad column is named with its record.
@Suite struct SQLiteSQLTests {
    struct Note: SQLRowDecodable, Equatable {
        enum Columns {
            static let id = SQLColumn("id")
            static let text = SQLColumn("text")
            static let amount = SQLColumn("amount")
            static let status = SQLColumn("status")
        }

        struct Status: RawRepresentable, Hashable, Sendable {
            let rawValue: String
            init(rawValue: String) { self.rawValue = rawValue }
            static let open = Self(rawValue: "open")
            static let closed = Self(rawValue: "closed")
        }

        let id: Int64
        let text: String
        let amount: Int64?
        let status: Status

        init(id: Int64, text: String, amount: Int64?, status: Status) {
            self.id = id
            self.text = text
            self.amount = amount
            self.status = status
        }

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.int(Columns.id)
            text = try row.text(Columns.text)
            amount = try row.optionalInt(Columns.amount)
            status = try row.code(Status.self, Columns.status)
        }
    }

    static func database(_ folder: TemporaryFolder) async throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: folder.path("notes.sqlite"))
        try await database.migrate([
            Migration(
                name: "0001_notes",
                both: ["CREATE TABLE notes (id BIGINT PRIMARY KEY, text TEXT NOT NULL, amount BIGINT, status TEXT NOT NULL)"])
        ])
        return database
    }

    /// Texts that a placeholder scan or a quoting mistake would get wrong.
    static let texts = ["?", "$1", "it's", "'; DROP TABLE notes; --", "\"quoted\"", "ґ?", ""]

    @Test func valuesRoundTripAsTheyWereAndDecodeAsRecords() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.database(folder)
        let notes = Self.texts.enumerated().map { index, text in
            Note(id: Int64(index + 1), text: text, amount: index.isMultiple(of: 2) ? nil : Int64(index) * -1_000, status: .open)
        }
        try await database.write { executor in
            for note in notes {
                try await executor.execute(
                    "INSERT INTO notes (id, text, amount, status) VALUES (\(note.id), \(note.text), \(note.amount), \(note.status))")
            }
        }
        let read = try await database.read { executor in
            try await executor.fetchAll(Note.self, "SELECT * FROM notes ORDER BY \(Note.Columns.id)")
        }
        #expect(read == notes)
        let found = try await database.read { executor in
            try await executor.fetchOne(Note.self, "SELECT * FROM notes WHERE text = \("?") AND status = \(Note.Status.open)")
        }
        #expect(found == notes[0])
    }

    @Test func updatesCountTheirRowsAndListsSelectTheirMembers() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.database(folder)
        let closed = try await database.write { executor in
            for id in Int64(1)...5 {
                try await executor.execute("INSERT INTO notes (id, text, status) VALUES (\(id), \("n\(id)"), \(Note.Status.open))")
            }
            return try await executor.execute("UPDATE notes SET status = \(Note.Status.closed) WHERE id IN (\(list: [2, 4, 9] as [Int64]))")
        }
        #expect(closed == 2)
        let open = try await database.read { executor in
            try await executor.fetchAll(Note.self, "SELECT * FROM notes WHERE status IN (\(list: [Note.Status.open])) ORDER BY id").map(\.id)
        }
        #expect(open == [1, 3, 5])
        let none = try await database.read { executor in
            try await executor.query("SELECT id FROM notes WHERE id IN (\(list: [Int64]()))")
        }
        #expect(none.isEmpty)
    }

    @Test func aDecodingErrorNamesTheRecordAndTheColumn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.database(folder)
        _ = try await database.write { executor in
            try await executor.execute("INSERT INTO notes (id, text, status) VALUES (\(1), \("a"), \(Note.Status.open))")
        }
        let error = await #expect(throws: SQLDatabaseError.self) {
            try await database.read { executor in
                // The column is missing from the select list.
                try await executor.fetchAll(Note.self, "SELECT id, amount, status FROM notes")
            }
        }
        #expect(error?.kind == .decoding)
        #expect(error?.message.contains("Note") == true)
        #expect(error?.message.contains("column text") == true)
    }

    @Test func theEarlierFormStillRuns() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.database(folder)
        _ = try await database.write { executor in
            try await executor.execute("INSERT INTO notes (id, text, status) VALUES (?, '?', ?)", [.int(1), .text("open")])
        }
        let text = try await database.read { executor in
            try await executor.query("SELECT text FROM notes WHERE id = ?", [.int(1)]).first?.text(Note.Columns.text)
        }
        #expect(text == "?")
    }

    @Test func aValueQuotedByMistakeIsRefusedNotStoredAsAQuestionMark() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.database(folder)
        await #expect(throws: SQLDatabaseError.self) {
            try await database.write { executor in
                try await executor.execute("INSERT INTO notes (id, text, status) VALUES (\(1), '\("a")', \(Note.Status.open))")
            }
        }
        #expect(try await database.read { executor in try await executor.query("SELECT id FROM notes").count } == 0)
    }
}
