import Foundation
public import Logging
import NIOConcurrencyHelpers
import PostgresNIO
public import TallySQL

/// PostgreSQL through a pool of connections (``ConnectionPool``, over postgres-nio's connections).
///
/// Every ``write(_:)`` is one READ COMMITTED transaction on one pooled connection; every
/// ``read(_:)`` is a read-only REPEATABLE READ transaction, so all its statements see one
/// snapshot. The pool's sweep (idle connections closed, quiet ones checked) runs in a task the
/// database owns, from creation until ``close()``.
///
/// ```swift
/// let database = try await PostgresDatabase.connect(url: "postgres://tally:secret@db.internal:5432/tally?sslmode=require")
/// try await database.migrate(Migrations.all)
/// let storage = SQLStorage(database: database, catalog: catalog, now: { Date() })
/// ```
public final class PostgresDatabase: SQLDatabase {
    /// PostgreSQL's SQL.
    public let dialect = SQLDialect.postgres
    /// Where and how it connects.
    public let configuration: Configuration
    private let pool: ConnectionPool<PostgresConnection>
    private let statements = PostgresStatements()
    private let runner: Task<Void, Never>
    /// What each statement is run with: `logger` where it logs at debug level or below, and a
    /// silent one otherwise. postgres-nio logs a statement's notices at debug and its rows at
    /// trace, but it sets the connection's id in the logger's metadata for every statement,
    /// which a handler such as swift-log's `StreamLogHandler` formats again each time.
    private let statementLogger: Logger

    /// Starts the pool without connecting; the first transaction opens the first connection.
    /// Prefer ``connect(_:logger:)``, which also checks that the server can be reached.
    /// - Parameters:
    ///   - configuration: the server, credentials and pool size.
    ///   - logger: what postgres-nio logs of each connection, and, when it takes debug messages,
    ///     what postgres-nio logs of each statement; silent by default.
    public init(configuration: Configuration, logger: Logger = PostgresDatabase.silentLogger) {
        self.configuration = configuration
        self.statementLogger = logger.logLevel <= .debug ? logger : Self.silentLogger
        // Made once: with TLS it holds a context that reads the trusted certificates.
        let connection = Result { try configuration.connectionConfiguration() }
        let pool = ConnectionPool<PostgresConnection>(
            maximum: configuration.maximumConnections, idleTimeout: configuration.idleTimeout, checkTimeout: configuration.connectTimeout
        ) {
            try await PostgresConnection.connect(configuration: try connection.get(), id: Self.nextConnectionID(), logger: logger)
        }
        self.pool = pool
        self.runner = Task { await pool.run() }
    }

    /// Parses `url` and starts the pool without connecting (see ``init(configuration:logger:)``).
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/database[?sslmode=…]`.
    ///   - logger: what postgres-nio logs of each connection.
    /// - Throws: ``SQLDatabaseError`` (`.other`) when the URL is malformed.
    public convenience init(url: String, logger: Logger = PostgresDatabase.silentLogger) throws(SQLDatabaseError) {
        self.init(configuration: try Configuration(url: url), logger: logger)
    }

    /// Parses `url`, checks that the server accepts a connection, and starts the pool.
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/database[?sslmode=…]`.
    ///   - logger: what postgres-nio logs of each connection.
    /// - Returns: the database, ready for transactions.
    /// - Throws: ``SQLDatabaseError``: `.other` for a malformed URL, `.unavailable` when the
    ///   server cannot be reached or refuses the credentials.
    public static func connect(url: String, logger: Logger = PostgresDatabase.silentLogger) async throws(SQLDatabaseError) -> PostgresDatabase {
        try await connect(try Configuration(url: url), logger: logger)
    }

    /// Checks that the server accepts a connection, then starts the pool.
    ///
    /// Later, a transaction that needs a new connection fails with `.unavailable` when that
    /// connection cannot be opened (within ``Configuration/connectTimeout``), and so do the
    /// transactions waiting for a connection when no open one is left; this check fails at once
    /// with the server's reason.
    /// - Parameters:
    ///   - configuration: the server, credentials and pool size.
    ///   - logger: what postgres-nio logs of each connection.
    /// - Returns: the database, ready for transactions.
    /// - Throws: ``SQLDatabaseError``: `.other` for what a socket cannot give
    ///   (``Configuration/checkSocket()``), `.unavailable` when the server cannot be reached or
    ///   refuses the credentials.
    public static func connect(
        _ configuration: Configuration, logger: Logger = PostgresDatabase.silentLogger
    ) async throws(SQLDatabaseError) -> PostgresDatabase {
        try configuration.checkSocket()
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try configuration.connectionConfiguration(), id: 0, logger: logger)
            try? await connection.close()
        } catch {
            throw SQLDatabaseError(.unavailable, "cannot connect to \(configuration.redactedURL): \(Self.convert(error).message)")
        }
        return PostgresDatabase(configuration: configuration, logger: logger)
    }

    deinit {
        runner.cancel()
        Task { [pool] in await pool.close() }
    }

    /// Stops the pool and closes its idle connections (the ones in use close when their
    /// transactions end); later transactions fail with `.unavailable`.
    public func close() async {
        runner.cancel()
        await runner.value
        await pool.close()
    }

    /// Connections are numbered across pools, as postgres-nio's logs name them.
    private static let connectionIDs = NIOLockedValueBox(0)

    private static func nextConnectionID() -> Int {
        connectionIDs.withLockedValue { id in
            id += 1
            return id
        }
    }

    /// A logger that drops everything.
    public static let silentLogger = Logger(label: "tally.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    // MARK: - Transactions

    /// Runs `work` in a transaction, committed when it returns and rolled back when it throws.
    public func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction("BEGIN", work)
    }

    /// Runs `work` in a read-only, repeatable-read transaction.
    public func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", work)
    }

    /// Runs one statement without a transaction around it: one round trip, on the snapshot the
    /// statement takes for itself.
    public func readStatement(_ sql: SQL) async throws -> [SQLRow] {
        try await withExecutor { executor in
            do {
                return try await executor.query(sql)
            } catch {
                throw await Self.stale(error, on: executor)
            }
        }
    }

    /// Runs `work` between `begin` and COMMIT on one pooled connection, or ROLLBACK when it throws.
    private func transaction<T: Sendable>(_ begin: SQL, _ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await withExecutor { executor in
            do {
                try await executor.run(begin)
            } catch {
                throw await Self.stale(error, on: executor)
            }
            do {
                let value = try await work(executor)
                try await executor.run("COMMIT")
                return value
            } catch {
                // After a failed COMMIT the server has already rolled back and this is a no-op.
                // A connection that cannot roll back is closed, never handed out mid-transaction.
                do {
                    try await executor.run("ROLLBACK")
                } catch {
                    // Closed before it is given back, so that the pool drops it.
                    await executor.connection.discard()
                }
                throw error
            }
        }
    }

    /// Runs `work` with an executor on one pooled connection.
    ///
    /// A connection that served before and that the server ended while it idled (a restart,
    /// `pg_terminate_backend`) fails its first statement: the work then runs again on another
    /// connection, up to once per connection the pool may hold, so that a restart of the server
    /// is not seen by the requests that come after it. A connection opened for the work is not
    /// retried: behind a proxy such as PgBouncer, a new connection can open and then fail, and
    /// each retry would wait for it again.
    private func withExecutor<T: Sendable>(_ work: (PostgresExecutor) async throws -> T) async throws -> T {
        var attempts = 0
        while true {
            attempts += 1
            var leased = false
            do {
                return try await pool.withConnection { connection, reused in
                    leased = true
                    let executor = PostgresExecutor(
                        connection: connection, logger: statementLogger,
                        statements: Self.migrating || !configuration.preparedStatements ? nil : statements)
                    do {
                        return try await work(executor)
                    } catch let stale as StaleConnection where !reused {
                        throw stale.error
                    }
                }
            } catch let stale as StaleConnection {
                if attempts <= configuration.maximumConnections { continue }
                throw stale.error
            } catch let error where !leased {
                // The pool could not hand out a connection: the server is unreachable or the pool closed.
                if Task.isCancelled { throw CancellationError() }
                let reason = error is ConnectionPool<PostgresConnection>.LeaseError ? "the database was closed" : Self.convert(error).message
                throw SQLDatabaseError(.unavailable, "no connection to \(configuration.redactedURL): \(reason)")
            }
        }
    }

    /// A first statement that failed because its connection was closed or ended: a `BEGIN`, after
    /// which nothing ran, or a ``readStatement(_:)``, which only reads.
    private struct StaleConnection: Error {
        let error: any Error
    }

    /// `error` as ``StaleConnection``, its connection closed so that the pool drops it, when the
    /// connection is closed or the server answered that it is ending it (an `unavailable` error:
    /// a shutdown, `57P01` for `pg_terminate_backend`, comes before the socket closes).
    private static func stale(_ error: any Error, on executor: PostgresExecutor) async -> any Error {
        guard executor.connection.isClosed || (error as? SQLDatabaseError)?.kind == .unavailable else { return error }
        await executor.connection.discard()
        return StaleConnection(error: error)
    }

    // MARK: - Migrations

    /// Migrations take this advisory lock (with the schema's hash as the second key), so servers
    /// starting together against one database apply each migration once.
    static let migrationLockKey: Int32 = 0x7A11

    /// Applies the migrations not yet applied, in order, each in its own transaction, under an advisory lock so that instances starting together migrate once.
    public func migrate(_ migrations: [Migration]) async throws {
        // Nothing named before may read a table a migration changes, nor is anything named meanwhile.
        defer { statements.forgetAll() }
        try await Self.$migrating.withValue(true) {
            try await runMigrations(migrations, lock: "SELECT pg_advisory_xact_lock(\(Self.migrationLockKey), hashtext(COALESCE(current_schema(), '')))")
        }
    }

    /// Set while migrations run: their statements run unnamed.
    @TaskLocal private static var migrating = false

    /// Runs `body` with a connection of the pool, for tests.
    func withPooledConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await pool.withConnection(body)
    }

    /// The pool's connections open (lent, idle or being opened) and idle, for tests.
    var connectionCounts: (open: Int, idle: Int) {
        let counts = pool.counts
        return (counts.open, counts.idle)
    }

    /// Statement names in use, for tests.
    var namedStatementCount: Int { statements.count }
    /// Statement names given so far, retired ones included, for tests.
    var namedStatementsIssued: Int { statements.issued }
}

extension PostgresConnection: PoolableConnection {
    func discard() async {
        try? await close()
    }

    func check(timeout: Duration) async -> Bool {
        let answered = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                let answer: EventLoopFuture<PostgresQueryResult> = self.query("SELECT 1", logger: PostgresDatabase.silentLogger)
                return (try? await answer.get()) != nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            // No answer in time, or the sweep cancelled: closing the connection fails the
            // statement, which no cancellation reaches, so that the group can end.
            if !first {
                let _: EventLoopFuture<Void> = self.close()
            }
            group.cancelAll()
            return first
        }
        if !answered, !isClosed { await discard() }
        return answered
    }
}
