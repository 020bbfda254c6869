import TallySQL
import TallyTestSupport
import Testing

/// Values and rows as they cross the SQLite connection, and its errors as the storage layer
/// reacts to them.
@Suite struct SQLiteConnectionTests {
    static func connection() throws -> (SQLiteConnection, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let connection = try SQLiteConnection(path: folder.path("values.sqlite"))
        try connection.execute(
            script: """
                CREATE TABLE items (id INTEGER PRIMARY KEY, amount INTEGER CHECK (amount >= 0), label TEXT UNIQUE, ratio REAL, data BLOB);
                CREATE TRIGGER items_no_delete BEFORE DELETE ON items BEGIN SELECT RAISE(ABORT, 'items are kept'); END;
                """)
        return (connection, folder)
    }

    /// A literal with interpolations binds its values, even on the connection, whose
    /// unparameterised form is labelled `script:`: text that would end the statement and drop a
    /// table is stored as a label.
    @Test func anInterpolatedValueOnTheConnectionIsBoundNeverRun() throws {
        let (connection, folder) = try Self.connection()
        defer { folder.remove() }
        let label = "x'); DROP TABLE items; --"
        try connection.execute("INSERT INTO items (id, label) VALUES (\(7), \(label))")
        #expect(try connection.query("SELECT label FROM items WHERE id = 7").first?.text(SQLColumn("label")) == label)
    }

    @Test(arguments: [SQLValue.null, .int(0), .int(.max), .int(.min), .text(""), .text("Кар'єра ✓")])
    func aBoundValueReadsBackTheSame(value: SQLValue) throws {
        let (connection, folder) = try Self.connection()
        defer { folder.remove() }
        let row = try #require(try connection.query("SELECT ? AS Value", [value]).first)
        // Column names are lower-cased.
        #expect(row.values == ["value": value])
    }

    @Test func rowsAreByLowerCaseColumnNameWithTypedAccessors() throws {
        let (connection, folder) = try Self.connection()
        defer { folder.remove() }
        try connection.query("INSERT INTO items (id, amount, label) VALUES (?, ?, ?)", [1, 3_600, "hour"])
        try connection.query("INSERT INTO items (id, amount, label) VALUES (?, ?, ?)", [2, nil, nil])
        let rows = try connection.query("SELECT id, amount AS Amount, label FROM items ORDER BY id")
        #expect(try rows.map { try $0.int(SQLColumn("id")) } == [1, 2])
        #expect(try rows.map { try $0.optionalInt(SQLColumn("amount")) } == [3_600, nil])
        #expect(try rows.map { try $0.optionalText(SQLColumn("label")) } == ["hour", nil])
        #expect(throws: SQLDatabaseError.self) { try rows[1].int(SQLColumn("amount")) }
        #expect(throws: SQLDatabaseError.self) { try rows[0].text(SQLColumn("amount")) }
        #expect(try connection.query("SELECT id FROM items WHERE id = 3").isEmpty)
    }

    @Test func aStoredRealReadsAsAnIntegerOnlyWhenWholeAndABlobAsText() throws {
        let (connection, folder) = try Self.connection()
        defer { folder.remove() }
        try connection.execute(script: "INSERT INTO items (id, ratio, data) VALUES (1, 1500.0, X'6F6B'), (2, 2.5, NULL)")
        let rows = try connection.query("SELECT ratio, data FROM items ORDER BY id")
        #expect(rows[0].values == ["ratio": .int(1_500), "data": .text("ok")])
        // Never truncated into an amount.
        #expect(rows[1].values == ["ratio": .text("2.5"), "data": .null])
    }

    @Test func aSecondStatementInOneQueryIsRefusedAndNothingRuns() throws {
        let (connection, folder) = try Self.connection()
        defer { folder.remove() }
        #expect(throws: SQLDatabaseError.self) { try connection.query("INSERT INTO items (id) VALUES (1); DROP TABLE items") }
        #expect(try connection.query("SELECT COUNT(*) AS n FROM items").first?.int(SQLColumn("n")) == 0)
        // A trailing semicolon is one statement.
        try connection.query("INSERT INTO items (id) VALUES (1);")
        #expect(try connection.query("SELECT COUNT(*) AS n FROM items").first?.int(SQLColumn("n")) == 1)
    }

    @Test func constraintFailuresAreClassified() throws {
        let (connection, folder) = try Self.connection()
        defer { folder.remove() }
        try connection.query("INSERT INTO items (id, label) VALUES (1, 'hour')")
        func kind(_ sql: SQL) -> SQLDatabaseError.Kind? {
            do throws(SQLDatabaseError) {
                try connection.query(sql)
                return nil
            } catch {
                return error.kind
            }
        }
        #expect(kind("INSERT INTO items (id, label) VALUES (2, 'hour')") == .uniqueViolation)
        #expect(kind("INSERT INTO items (id) VALUES (1)") == .uniqueViolation)
        #expect(kind("INSERT INTO items (id, amount) VALUES (3, -1)") == .constraintViolation)
        #expect(kind("DELETE FROM items") == .constraintViolation)
        #expect(kind("SELECT * FROM nowhere") == .other)
        #expect(try connection.query("SELECT COUNT(*) AS n FROM items").first?.int(SQLColumn("n")) == 1)
    }
}
