import Foundation

/// A named, append-only schema change, with its statements for each dialect (one statement
/// per element).
///
/// Names are `NNNN_what` (`0001_core`); the runner (``SQLDatabase/runMigrations(_:lock:)``)
/// records each applied one in `schema_migrations`, on the server and on the device alike.
public struct Migration: Sendable {
    /// The migration's unique name; applied names are recorded and never applied twice.
    public let name: String
    /// Statements for SQLite.
    public let sqlite: [String]
    /// Statements for PostgreSQL.
    public let postgres: [String]

    /// Creates a migration.
    /// - Parameters:
    ///   - name: its unique name, `NNNN_what`.
    ///   - sqlite: its statements on SQLite, one statement each.
    ///   - postgres: its statements on PostgreSQL, one statement each.
    public init(name: String, sqlite: [String], postgres: [String]) {
        self.name = name
        self.sqlite = sqlite
        self.postgres = postgres
    }

    /// A migration for SQLite alone (the device's database); PostgreSQL refuses to apply it.
    /// - Parameters:
    ///   - name: its unique name, `NNNN_what`.
    ///   - sqlite: its statements, one statement each.
    public init(name: String, sqlite: [String]) {
        self.init(name: name, sqlite: sqlite, postgres: [])
    }

    /// A migration whose SQL is the same on both databases.
    /// - Parameters:
    ///   - name: its unique name, `NNNN_what`.
    ///   - both: its statements, one statement each.
    public init(name: String, both: [String]) {
        self.init(name: name, sqlite: both, postgres: both)
    }
}

extension SQLDatabase {
    /// The one migration runner: records applied migrations by name in `schema_migrations`
    /// (`name`, `applied_at` in milliseconds since 1970) and applies each one not recorded yet,
    /// in order, in its own transaction with its record. `lock`, run first in each of those
    /// transactions, keeps servers that start together on one database from applying a
    /// migration twice.
    /// - Parameters:
    ///   - migrations: every migration, in order.
    ///   - lock: a statement that serializes migrating processes (PostgreSQL's advisory lock);
    ///     nil where the database has one writer.
    /// - Throws: the first failure; the migration that failed is rolled back whole. A
    ///   migration with no statements for this dialect is refused (``SQLDatabaseError``).
    public func runMigrations(_ migrations: [Migration], lock: String? = nil) async throws {
        try await write { executor in
            if let lock { try await executor.execute(SQL(raw: lock)) }
            try await executor.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        }
        let dialect = dialect
        for migration in migrations {
            let statements = dialect == .sqlite ? migration.sqlite : migration.postgres
            // Recorded with nothing applied, it would stand for a schema that is not there.
            guard !statements.isEmpty else {
                throw SQLDatabaseError(.other, "migration \(migration.name) has no statements for \(dialect)")
            }
            try await write { executor in
                if let lock { try await executor.execute(SQL(raw: lock)) }
                // Applied before, by this process or by another one that held the lock first.
                guard try await executor.query("SELECT name FROM schema_migrations WHERE name = \(migration.name)").isEmpty else {
                    return
                }
                for statement in statements {
                    try await executor.execute(SQL(raw: statement))
                }
                let appliedAt = Int64(Date().timeIntervalSince1970 * 1000)
                try await executor.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), \(appliedAt))")
            }
        }
    }
}
