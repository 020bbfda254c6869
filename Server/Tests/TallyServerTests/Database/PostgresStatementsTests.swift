import TallySQL
import Testing

@testable import TallyServer

/// Named (prepared) statements on PostgreSQL: each answers what the same statement answered
/// unnamed, with its counts, its nulls and its errors, however many run at once, and a name
/// whose preparation failed is not kept.
@Suite(.serialized) struct PostgresStatementsTests {
    static func database(connections: Int = 4, prepared: Bool = true) async throws -> PostgresDatabase {
        var configuration = try await TestPostgres.makeSchema()
        configuration.maximumConnections = connections
        configuration.preparedStatements = prepared
        let database = PostgresDatabase(configuration: configuration)
        try await database.migrate([
            Migration(name: "0001_notes", both: ["CREATE TABLE notes (id BIGINT PRIMARY KEY, text TEXT, amount BIGINT NOT NULL DEFAULT 0)"])
        ])
        return database
    }

    /// Two hundred tasks on four connections, each running statements that differ in text and
    /// in values: every answer is the one its own statement asked for.
    @Test func manyStatementsAtOnceEachGetTheirOwnAnswer() async throws {
        let database = try await Self.database()
        defer { Task { await database.close() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<200 {
                group.addTask {
                    let width = Int64(task % 7)
                    let answer = try await database.read { executor in
                        // Seven texts, by the number of columns; the values differ in every task.
                        let columns = (0...width).map { column -> SQL in "(\(Int64(task)) + \(column)) AS " + SQL(raw: "c\(column)") }
                        return try await executor.query("SELECT " + columns.joined(separator: ", ")).first
                    }
                    for column in 0...width {
                        #expect(try answer?.int(SQLColumn("c\(column)")) == Int64(task) + column)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(database.namedStatementCount >= 1)
    }

    /// Counts of rows changed are exact, inserts that conflict count none, and a null and a
    /// value in the same place are both taken; the same with prepared statements turned off.
    @Test(arguments: [true, false]) func countsAndNullsAreWhatTheyWereUnnamed(prepared: Bool) async throws {
        let database = try await Self.database(connections: 1, prepared: prepared)
        defer { Task { await database.close() } }
        let counts = try await database.write { executor in
            var counts: [Int] = []
            for id in Int64(1)...5 {
                let text: String? = id.isMultiple(of: 2) ? nil : "note \(id)"
                counts.append(try await executor.execute("INSERT INTO notes (id, text) VALUES (\(id), \(text)) ON CONFLICT DO NOTHING"))
            }
            counts.append(try await executor.execute("INSERT INTO notes (id, text) VALUES (\(Int64(1)), \("again")) ON CONFLICT DO NOTHING"))
            counts.append(try await executor.execute("UPDATE notes SET amount = amount + \(Int64(10)) WHERE id <= \(Int64(3))"))
            counts.append(try await executor.execute("UPDATE notes SET amount = amount + \(Int64(10)) WHERE id > \(Int64(99))"))
            counts.append(try await executor.execute("DELETE FROM notes WHERE text IS NULL"))
            return counts
        }
        #expect(counts == [1, 1, 1, 1, 1, 0, 3, 0, 2])
        let rows = try await database.read { executor in
            try await executor.query("SELECT id, text, amount FROM notes ORDER BY id").map {
                [try $0.int(SQLColumn("id")), try $0.int(SQLColumn("amount"))]
            }
        }
        #expect(rows == [[1, 10], [3, 10], [5, 0]])
        #expect((database.namedStatementCount > 0) == prepared)
    }

    /// A unique violation is the same error named, and the name stays usable afterwards.
    @Test func aUniqueViolationIsReportedAsOne() async throws {
        let database = try await Self.database(connections: 1)
        defer { Task { await database.close() } }
        try await database.write { executor in
            _ = try await executor.execute("INSERT INTO notes (id, text) VALUES (\(Int64(1)), \("one"))")
        }
        let error = await #expect(throws: SQLDatabaseError.self) {
            try await database.write { executor in
                _ = try await executor.execute("INSERT INTO notes (id, text) VALUES (\(Int64(1)), \("one"))")
            }
        }
        #expect(error?.kind == .uniqueViolation)
        let inserted = try await database.write { executor in
            try await executor.execute("INSERT INTO notes (id, text) VALUES (\(Int64(2)), \("two"))")
        }
        #expect(inserted == 1)
    }

    /// A statement first met inside a transaction that already failed cannot be prepared; on
    /// the same connection, the next transaction runs it all the same.
    @Test func aStatementFirstPreparedInAFailedTransactionRunsNextTime() async throws {
        let database = try await Self.database(connections: 1)
        defer { Task { await database.close() } }
        await #expect(throws: SQLDatabaseError.self) {
            try await database.write { executor in
                _ = try? await executor.query("SELECT 1 / \(Int64(0)) AS nothing")
                // The transaction has failed: this statement's first preparation fails with it.
                _ = try await executor.query("SELECT count(*) AS notes FROM notes WHERE amount >= \(Int64(0))")
            }
        }
        let count = try await database.read { executor in
            try await executor.query("SELECT count(*) AS notes FROM notes WHERE amount >= \(Int64(0))").first?.int(SQLColumn("notes"))
        }
        #expect(count == 0)
        // Both failed statements were retired, and the second named anew: three names given.
        #expect(database.namedStatementsIssued == 3)
    }

    /// After a migration changes a table, a statement named before reads its new columns.
    @Test func aMigrationThatChangesATableIsReadAfterwards() async throws {
        let database = try await Self.database(connections: 1)
        defer { Task { await database.close() } }
        try await database.write { executor in
            _ = try await executor.execute("INSERT INTO notes (id, text) VALUES (\(Int64(1)), \("one"))")
        }
        let before = try await database.read { executor in try await executor.query("SELECT * FROM notes WHERE id = \(Int64(1))") }
        #expect(before.first?.values["label"] == nil)
        try await database.migrate([
            Migration(name: "0001_notes", both: ["CREATE TABLE notes (id BIGINT PRIMARY KEY, text TEXT, amount BIGINT NOT NULL DEFAULT 0)"]),
            Migration(name: "0002_label", both: ["ALTER TABLE notes ADD COLUMN label TEXT NOT NULL DEFAULT 'new'"]),
        ])
        let after = try await database.read { executor in try await executor.query("SELECT * FROM notes WHERE id = \(Int64(1))") }
        #expect(try after.first?.text(SQLColumn("label")) == "new")
    }

    /// Past the limit of names, new statements run unnamed, and still answer.
    @Test func pastTheLimitStatementsRunUnnamed() async throws {
        let database = try await Self.database(connections: 1)
        defer { Task { await database.close() } }
        let total = PostgresStatements.limit + 20
        let sums = try await database.read { executor in
            var sums: [Int64] = []
            for index in 0..<total {
                // A different text each time: the number is part of the text, not a value.
                sums.append(try await executor.query(SQL(raw: "SELECT \(index) + ") + "\(Int64(1)) AS sum").first?.int(SQLColumn("sum")) ?? -1)
            }
            return sums
        }
        #expect(sums == (0..<total).map { Int64($0) + 1 })
        #expect(database.namedStatementCount == PostgresStatements.limit)
        #expect(database.namedStatementsIssued == PostgresStatements.limit)
    }

    /// Transaction control, schema changes and statements that return rows through
    /// `execute` run unnamed; a change counted by `execute` is named with a row per row changed.
    @Test func whatIsNamedAndHow() {
        #expect(PostgresStatements.namedText("BEGIN", counting: false) == nil)
        #expect(PostgresStatements.namedText("CREATE TABLE t (a BIGINT)", counting: true) == nil)
        #expect(PostgresStatements.namedText("SELECT pg_advisory_xact_lock(1)", counting: true) == nil)
        #expect(PostgresStatements.namedText("\n  SELECT a FROM t", counting: false) == "\n  SELECT a FROM t")
        #expect(PostgresStatements.namedText("WITH x AS (SELECT 1) SELECT * FROM x", counting: false) != nil)
        #expect(PostgresStatements.namedText("SELECT day, sum(value) FROM metric_days WHERE day >= $1 GROUP BY day", counting: false) == nil)
        #expect(PostgresStatements.namedText("UPDATE t SET a = $1", counting: true) == "UPDATE t SET a = $1 RETURNING 1")
        #expect(PostgresStatements.namedText("INSERT INTO t (a) VALUES ($1) RETURNING a", counting: true) == nil)
        #expect(PostgresStatements.namedText("DELETE FROM t -- all of it", counting: true) == nil)
        #expect(PostgresStatements.namedText("UPDATE t SET a = 1; UPDATE t SET a = 2", counting: true) == nil)
    }
}
