import Foundation
import TallySQLite

/// The device's database: one SQLite file (system SQLite, no package) in WAL mode with
/// durable commits, shared by the purchase journal, the on-device ledger, the entitlements
/// cache and the onboarding gate.
///
/// Each write is one transaction; a commit has reached the disk when the call returns, so a
/// crash right after loses nothing. Migrations are named, append-only and run once.
///
/// Re-entrancy: every method runs its SQL without suspending, so one caller's transaction
/// never interleaves with another's.
public actor LocalDatabase {
    private let connection: SQLiteConnection
    private var applied: Set<String> = []
    /// The file, or `:memory:`.
    public nonisolated let path: String

    /// Opens (or creates) the database.
    /// - Parameter path: a file path; `:memory:` keeps it in memory (tests only: nothing survives).
    /// - Throws: ``TallyError`` `storage_failed` when it cannot be opened.
    public init(path: String) throws(TallyError) {
        self.path = path
        do {
            if path != ":memory:" {
                try? FileManager.default.createDirectory(
                    at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
            try connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
            applied = Set(try connection.query("SELECT name FROM schema_migrations").compactMap { $0["name"].text })
        } catch {
            throw TallyError(.storageFailed, "cannot open the database \(path): \(error)")
        }
    }

    /// A database in a file under Application Support (or the temporary folder where there is none).
    /// - Parameter name: the file name.
    public static func standard(named name: String = "tally.sqlite") throws(TallyError) -> LocalDatabase {
        let folder =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return try LocalDatabase(path: folder.appendingPathComponent("Tally").appendingPathComponent(name).path)
    }

    /// Applies the migrations not applied yet, each in its own transaction with its record in
    /// `schema_migrations` (name, milliseconds), the table and unit of the server's migrations.
    func migrate(_ migrations: [(name: String, sql: String)]) throws(TallyError) {
        for migration in migrations where !applied.contains(migration.name) {
            do {
                try connection.execute("BEGIN IMMEDIATE")
                do {
                    try connection.execute(migration.sql)
                    try connection.query(
                        "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                        [.text(migration.name), .integer(Int64(Date().timeIntervalSince1970 * 1000))])
                    try connection.execute("COMMIT")
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
            } catch {
                throw TallyError(.storageFailed, "migration \(migration.name) failed: \(error)")
            }
            applied.insert(migration.name)
        }
    }

    /// Runs `body` in one write transaction: all of it is committed, or none of it.
    @discardableResult
    func write<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws(TallyError) -> T {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw TallyError(.storageFailed, "cannot begin a transaction: \(error)")
        }
        do {
            let result = try body(connection)
            try connection.execute("COMMIT")
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            if let error = error as? TallyError { throw error }
            throw TallyError(.storageFailed, "\(error)")
        }
    }

    /// Runs `body` for reading.
    func read<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws(TallyError) -> T {
        do {
            return try body(connection)
        } catch {
            if let error = error as? TallyError { throw error }
            throw TallyError(.storageFailed, "\(error)")
        }
    }
}

extension SQLiteRow {
    func string(_ column: String) throws -> String {
        guard let value = self[column].text else { throw TallyError(.storageFailed, "column \(column) is not text") }
        return value
    }

    func int(_ column: String) throws -> Int64 {
        guard let value = self[column].integer else { throw TallyError(.storageFailed, "column \(column) is not an integer") }
        return value
    }
}

extension SQLiteValue {
    static func optional(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }
    static func optional(_ integer: Int64?) -> SQLiteValue { integer.map(SQLiteValue.integer) ?? .null }
}
