import NIOConcurrencyHelpers
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

    /// Connections the server ends (a restart, an operator's `pg_terminate_backend`, a proxy's
    /// idle timeout) are dropped from the pool and replaced: the transactions right after it
    /// run, on new connections.
    @Test func connectionsTheServerEndsAreReplaced() async throws {
        var configuration = try await TestPostgres.makeSchema()
        let name = "tally-pool-\(UInt32.random(in: 0...UInt32.max))"
        configuration.applicationName = name
        configuration.maximumConnections = 3
        let database = PostgresDatabase(configuration: configuration)
        defer { Task { await database.close() } }
        // Another pool, to end this one's connections.
        configuration.applicationName = "\(name)-operator"
        let operator_ = PostgresDatabase(configuration: configuration)
        defer { Task { await operator_.close() } }
        let backends: SQL = "SELECT pid FROM pg_stat_activity WHERE application_name = \(name)"
        /// Three transactions, each holding its connection until all three are lent.
        @Sendable func threeAtOnce() async throws {
            let allLent = NIOLockedValueBox(false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await database.write { executor in
                            _ = try await executor.query("SELECT 1 AS ok")
                            let deadline = ContinuousClock.now + .seconds(10)
                            while !allLent.withLockedValue({ $0 }), ContinuousClock.now < deadline {
                                if database.connectionCounts == (3, 0) { allLent.withLockedValue { $0 = true } }
                                try await Task.sleep(for: .milliseconds(2))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(allLent.withLockedValue { $0 })
        }
        try await threeAtOnce()
        #expect(database.connectionCounts == (3, 3))
        let before = Set(try await operator_.readStatement(backends).map { try $0.int(SQLColumn("pid")) })
        #expect(before.count == 3)
        // Ended, and gone on the server's side (the call waits for that), whether or not this
        // pool has seen its connections close yet: the transactions right after it all run.
        let ended = try await operator_.readStatement(
            "SELECT pg_terminate_backend(pid, 5000) AS ended FROM pg_stat_activity WHERE application_name = \(name)")
        #expect(ended.count == 3)
        #expect(try ended.allSatisfy { try $0.bool(SQLColumn("ended")) })
        try await threeAtOnce()
        let rows = try await database.read { executor in try await executor.query("SELECT 1 AS ok") }
        #expect(rows.count == 1)
        let after = Set(try await operator_.readStatement(backends).map { try $0.int(SQLColumn("pid")) })
        #expect(after.count == 3 && after.isDisjoint(with: before))
        #expect(database.connectionCounts == (3, 3))
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
