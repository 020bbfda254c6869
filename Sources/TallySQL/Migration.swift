import Foundation
import TallyCore

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
    /// The names of the migrations this one took in before the first release (their tables
    /// are created here with their final columns). The runner records them with this one, and
    /// refuses a database that has this one but not all of them: one migrated by a build from
    /// before they were folded, and not to their end.
    public let folds: [String]

    /// Creates a migration.
    /// - Parameters:
    ///   - name: its unique name, `NNNN_what`.
    ///   - folds: the names of the migrations it took in, recorded with it (never reused).
    ///   - sqlite: its statements on SQLite, one statement each.
    ///   - postgres: its statements on PostgreSQL, one statement each.
    public init(name: String, folds: [String] = [], sqlite: [String], postgres: [String]) {
        self.name = name
        self.folds = folds
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

    /// The column of `schema_migrations` that names an applied migration.
    static let appliedName = SQLColumn("name")
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
    ///   migration with no statements for this dialect is refused (``SQLDatabaseError``), and
    ///   so is a database that has a migration but not all of those it folds
    ///   (``Migration/folds``).
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
                let applied = Set(try await executor.query("SELECT name FROM schema_migrations").map { try $0.text(Migration.appliedName) })
                guard !applied.contains(migration.name) else {
                    let missing = migration.folds.filter { !applied.contains($0) }
                    guard missing.isEmpty else {
                        throw SQLDatabaseError(
                            .other,
                            "the database has \(migration.name) as a development build of Tally made it, without "
                                + "\(missing.joined(separator: ", ")), which \(migration.name) now holds: open it once with that "
                                + "build to finish its migrations, or start from a new database")
                    }
                    return
                }
                for statement in statements {
                    try await executor.execute(SQL(raw: statement))
                }
                let appliedAt = EpochMilliseconds.of(Date())
                for name in [migration.name] + migration.folds {
                    try await executor.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (\(name), \(appliedAt))")
                }
            }
        }
    }
}
