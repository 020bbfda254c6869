import Foundation

/// A value bound to or read from SQL. Only integers and text cross the seam, so the same
/// statements run on SQLite and PostgreSQL: money and counts are `BIGINT`, times are epoch
/// milliseconds, flags are 0 or 1, JSON is text.
public enum SQLValue: Sendable, Hashable {
    case null
    case int(Int64)
    case text(String)
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    /// An integer literal as ``SQLValue/int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A string literal as ``SQLValue/text(_:)``.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `nil` as ``SQLValue/null``.
    public init(nilLiteral: ()) { self = .null }

    /// A text value, or null.
    public static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
    /// An integer value, or null.
    public static func optional(_ int: Int64?) -> SQLValue { int.map(SQLValue.int) ?? .null }
}

/// One result row, by column name.
public struct SQLRow: Sendable {
    /// Values by lower-case column name.
    public let values: [String: SQLValue]

    /// Creates a row.
    public init(values: [String: SQLValue]) { self.values = values }

    /// The integer in a column.
    /// - Throws: ``SQLDatabaseError`` when it is null or not an integer.
    public func int(_ column: String) throws(SQLDatabaseError) -> Int64 {
        guard case .int(let value)? = values[column] else {
            throw SQLDatabaseError(.decoding, "column \(column) is not an integer")
        }
        return value
    }

    /// The text in a column.
    /// - Throws: ``SQLDatabaseError`` when it is null or not text.
    public func text(_ column: String) throws(SQLDatabaseError) -> String {
        guard case .text(let value)? = values[column] else {
            throw SQLDatabaseError(.decoding, "column \(column) is not text")
        }
        return value
    }

    /// The integer in a column, or nil when null.
    public func optionalInt(_ column: String) -> Int64? {
        if case .int(let value)? = values[column] { return value }
        return nil
    }

    /// The text in a column, or nil when null.
    public func optionalText(_ column: String) -> String? {
        if case .text(let value)? = values[column] { return value }
        return nil
    }
}

/// A database failure the storage layer reacts to.
public struct SQLDatabaseError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure.
    public enum Kind: Sendable, Equatable {
        /// A UNIQUE or PRIMARY KEY constraint: someone else recorded the same thing first.
        case uniqueViolation
        /// A CHECK, NOT NULL, FOREIGN KEY constraint or an append-only trigger.
        case constraintViolation
        /// A serialization failure or deadlock: the transaction may be retried.
        case retryable
        /// The database cannot be reached.
        case unavailable
        /// A value had an unexpected type.
        case decoding
        /// Anything else.
        case other
    }

    /// The kind.
    public let kind: Kind
    /// The database's message.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`, for logs.
    public var description: String { "\(kind): \(message)" }
}

/// Which SQL the database speaks, for the few statements that differ.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres
}

/// Runs statements inside one transaction. Statements use `?` placeholders on both databases.
public protocol SQLExecutor: Sendable {
    /// Runs a statement and returns its rows.
    func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow]
    /// Runs a statement and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int
}

/// A database: transactions to write, snapshots to read, migrations to run.
///
/// Implementations: ``SQLiteDatabase`` (one writer with group commit, WAL readers) and
/// ``PostgresDatabase`` (a connection pool). The storage logic is written once against it.
public protocol SQLDatabase: Sendable {
    /// The SQL dialect.
    var dialect: SQLDialect { get }
    /// Runs `work` in one transaction; it commits when `work` returns and rolls back when it throws.
    func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs `work` on a consistent snapshot, read-only.
    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Applies the migrations not applied yet, in order, each in its own transaction.
    func migrate(_ migrations: [Migration]) async throws
    /// Closes connections.
    func close() async
}

/// A named, append-only schema change, with its SQL for each dialect.
public struct Migration: Sendable {
    /// The migration's unique name; applied names are recorded and never applied twice.
    public let name: String
    /// Statements for SQLite.
    public let sqlite: [String]
    /// Statements for PostgreSQL.
    public let postgres: [String]

    /// Creates a migration.
    public init(name: String, sqlite: [String], postgres: [String]) {
        self.name = name
        self.sqlite = sqlite
        self.postgres = postgres
    }

    /// A migration whose SQL is the same on both databases.
    public init(name: String, both: [String]) {
        self.init(name: name, sqlite: both, postgres: both)
    }
}

extension SQLDatabase {
    /// The migration runner of both databases: records applied migrations by name in
    /// `schema_migrations` (with the time in milliseconds) and applies each one not recorded
    /// yet, in order, in its own transaction. `lock`, run first in each of those transactions,
    /// keeps servers that start together on one database from applying a migration twice.
    func runMigrations(_ migrations: [Migration], lock: String? = nil) async throws {
        try await write { executor in
            if let lock { try await executor.execute(lock, []) }
            try await executor.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)", [])
        }
        let dialect = dialect
        for migration in migrations {
            try await write { executor in
                if let lock { try await executor.execute(lock, []) }
                // Applied before, by this server or by another one that held the lock first.
                guard try await executor.query("SELECT name FROM schema_migrations WHERE name = ?", [.text(migration.name)]).isEmpty else {
                    return
                }
                for statement in dialect == .sqlite ? migration.sqlite : migration.postgres {
                    try await executor.execute(statement, [])
                }
                try await executor.execute(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    [.text(migration.name), .int(Int64(Date().timeIntervalSince1970 * 1000))])
            }
        }
    }
}
