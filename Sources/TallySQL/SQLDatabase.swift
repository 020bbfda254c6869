/// Which SQL the database speaks, for the few statements that differ.
public enum SQLDialect: Sendable {
    /// SQLite.
    case sqlite
    /// PostgreSQL.
    case postgres
}

/// Runs statements inside one transaction, one statement per call.
///
/// Statements are ``SQL`` values whose interpolated values are bound in place; the executor
/// renders them for its database (`?` on SQLite, `$1…$n` on PostgreSQL):
///
/// ```swift
/// try await executor.execute("UPDATE positions SET available = available + \(amount) WHERE user_id = \(holder) AND currency = \(currency)")
/// let lots = try await executor.fetchAll(Lot.self, "SELECT * FROM lots WHERE transaction_id = \(transactionID) ORDER BY id")
/// ```
///
/// The earlier form, `query(_:_:)` and `execute(_:_:)` with `?` placeholders and a parallel
/// list of values, stays for code not yet converted. SQLite runs it as it is; a database with
/// other placeholders builds the statement with ``SQL/init(positional:_:)``, the one place
/// that scans statement text. (They are requirements rather than defaults so that a
/// connection's synchronous versions, ``SQLiteConnection``'s, stay the ones called on it in an
/// `async` context.)
public protocol SQLExecutor: Sendable {
    /// Runs a statement and returns its rows.
    func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow]
    /// Runs a statement and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int
    /// Runs a statement written with `?` placeholders and returns its rows (the earlier form;
    /// prefer ``query(_:)``).
    func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow]
    /// Runs a statement written with `?` placeholders and returns how many rows it changed (the
    /// earlier form; prefer ``execute(_:)``).
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int
}

/// A database: transactions to write, snapshots to read, migrations to run.
///
/// Implementations: ``SQLiteDatabase`` (one writer with group commit, WAL readers), on the
/// server and on the device, and the server's `PostgresDatabase` (a connection pool). The
/// storage logic is written once against it.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "tally.sqlite")
/// try await database.migrate([Migration(name: "0001_core", both: ["CREATE TABLE notes (id BIGINT PRIMARY KEY, text TEXT NOT NULL)"])])
/// try await database.write { executor in try await executor.execute("INSERT INTO notes (id, text) VALUES (\(1), \("hello"))") }
/// let count = try await database.read { executor in try await executor.query("SELECT COUNT(*) AS n FROM notes").first?.int(SQLColumn("n")) }
/// ```
public protocol SQLDatabase: Sendable {
    /// The SQL dialect.
    var dialect: SQLDialect { get }
    /// Runs `work` in one transaction; it commits when `work` returns and rolls back when it throws.
    func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs `work` in one transaction, as ``write(_:)`` does, and then the ``CommitTail`` it
    /// returns, in the same transaction: where writes commit together (``SQLiteDatabase``'s
    /// group commit) once for all of them, their tails merged; by default at the end of `work`.
    /// - Parameters:
    ///   - tail: the type of the tail.
    ///   - work: the write; returns its value and its tail, if any.
    func write<T: Sendable, Tail: CommitTail>(
        tail: Tail.Type, _ work: @escaping @Sendable (any SQLExecutor) async throws -> (T, Tail?)
    ) async throws -> T
    /// Runs `work` on a consistent snapshot, read-only.
    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs one statement that only reads. A single statement always sees one snapshot, so where
    /// the database can it runs without a transaction around it (on PostgreSQL one round trip
    /// instead of three); by default, in ``read(_:)``. It may run more than once (on PostgreSQL,
    /// again on another connection when its connection turns out to be ended), so it must never
    /// change anything.
    func readStatement(_ sql: SQL) async throws -> [SQLRow]
    /// Applies the migrations not applied yet, in order, each in its own transaction.
    func migrate(_ migrations: [Migration]) async throws
    /// Closes connections.
    func close() async
}

extension SQLDatabase {
    /// Runs the tail at the end of `work`, in its transaction.
    public func write<T: Sendable, Tail: CommitTail>(
        tail: Tail.Type, _ work: @escaping @Sendable (any SQLExecutor) async throws -> (T, Tail?)
    ) async throws -> T {
        try await write { executor in
            let (value, tail) = try await work(executor)
            try await tail?.run(executor)
            return value
        }
    }

    /// Runs the statement in ``read(_:)``.
    public func readStatement(_ sql: SQL) async throws -> [SQLRow] {
        try await read { executor in try await executor.query(sql) }
    }
}

/// What a write leaves for the end of its transaction, to be merged with what the other writes
/// committed with it leave: counters that many writes add to, rows that can go in one insert.
///
/// Where writes commit together (``SQLiteDatabase``'s one writer commits the transactions
/// queued behind it in one batch), the tails of one type run once per commit: the first
/// write's tail takes in the later ones with ``merge(_:)`` (in commit order, and only of writes
/// that did not roll back), then runs before the COMMIT; tails of different types run in the
/// order their types were first met. A write made with ``SQLDatabase/write(_:)``, without a
/// tail, sees the writes before it whole: the tails gathered so far run before it. If a tail
/// throws, the batch rolls back and each of its writes gets the error. Elsewhere a write runs
/// its tail at its end, so a tail must not be read by the rest of its own write.
public protocol CommitTail: Sendable {
    /// Takes in the tail of a write committed after this one, in the same commit.
    mutating func merge(_ later: Self)
    /// Runs the tail's statements in the commit's transaction.
    func run(_ executor: any SQLExecutor) async throws
}
