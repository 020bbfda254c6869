import TallySQL
import Testing

/// Statements written the earlier way, `?` and a list of values, as the string-and-binds methods
/// take them: their placeholders found outside strings and comments, then rendered per database.
@Suite struct SQLPositionalTests {
    static let statements: [(String, String, Int)] = [
        ("SELECT 1", "SELECT 1", 0),
        ("SELECT * FROM spends WHERE user_id = ? AND idempotency_key = ?", "SELECT * FROM spends WHERE user_id = $1 AND idempotency_key = $2", 2),
        ("INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?)", "INSERT INTO t VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)", 10),
        // A ? inside a string, a quoted identifier or a comment is text, not a placeholder.
        ("SELECT '?', ?", "SELECT '?', $1", 1),
        ("SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1", 1),
        (#"SELECT E'\'?', ?"#, #"SELECT E'\'?', $1"#, 1),
        (#"SELECT e'a\\', ?"#, #"SELECT e'a\\', $1"#, 1),
        (#"SELECT 'a\', ?"#, #"SELECT 'a\', $1"#, 1),
        (#"SELECT "a?b" FROM t WHERE x = ?"#, #"SELECT "a?b" FROM t WHERE x = $1"#, 1),
        ("SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2", 2),
        ("SELECT /* ? */ ?", "SELECT /* ? */ $1", 1),
        ("SELECT $$ ? $$, ?", "SELECT $$ ? $$, $1", 1),
        ("SELECT $body$ it's ? $body$, ?", "SELECT $body$ it's ? $body$, $1", 1),
        (
            "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no?'; END $$",
            "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no?'; END $$", 0
        ),
        // A $ that opens no dollar quote: a positional parameter, or part of an identifier.
        ("SELECT $1, ?", "SELECT $1, $1", 1),
        ("SELECT a$b, ?", "SELECT a$b, $1", 1),
        ("SELECT 'ґ?', ?", "SELECT 'ґ?', $1", 1),
        // Unterminated: everything after the opening is kept as it is.
        ("SELECT ?, '?", "SELECT $1, '?", 1),
        ("SELECT ? /* ?", "SELECT $1 /* ?", 1),
        ("SELECT ? $$ ?", "SELECT $1 $$ ?", 1),
    ]

    @Test(arguments: statements)
    func placeholdersAreNumberedOutsideStringsAndComments(sql: String, expected: String, count: Int) throws {
        let binds = (0..<count).map { SQLValue.int(Int64($0)) }
        let statement = try SQL(positional: sql, binds)
        #expect(statement.rendered(for: .postgres).text == expected)
        #expect(statement.rendered(for: .postgres).binds == binds)
        // SQLite takes the text as it was written.
        #expect(statement.rendered(for: .sqlite).text == sql)
    }

    @Test(arguments: [(["a"], true), (["a", "b"], false), ([], false)] as [([String], Bool)])
    func valuesMustMatchThePlaceholdersInNumber(values: [String], accepted: Bool) {
        let binds = values.map(SQLValue.text)
        if accepted {
            #expect(throws: Never.self) { try SQL(positional: "SELECT * FROM t WHERE a = ? AND b = '?'", binds) }
        } else {
            let error = #expect(throws: SQLDatabaseError.self) { try SQL(positional: "SELECT * FROM t WHERE a = ? AND b = '?'", binds) }
            #expect(error?.kind == .other)
        }
    }

    @Test func aPositionalStatementEqualsTheSameStatementInterpolated() throws {
        let positional = try SQL(positional: "SELECT * FROM t WHERE a = ? AND b = 'x?' AND c = ?", [.int(1), .text("two")])
        let interpolated: SQL = "SELECT * FROM t WHERE a = \(1) AND b = 'x?' AND c = \("two")"
        #expect(positional == interpolated)
    }
}
