public import Foundation
import TallySQL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Online backups of the SQLite database and their restore, each checked before it is kept.
///
/// A backup is SQLite's online backup API run in one step on a read transaction: one
/// consistent snapshot, taken while `tally serve` goes on writing (WAL lets the writer commit
/// beside the reader). The copy is written beside its destination, switched to a plain
/// rollback journal so that it is one self-contained file, checked (``check(file:)``), made
/// durable and only then given its name. A restore checks a fresh copy of the backup the same
/// way, refuses while another process has the database open, keeps the database it replaces
/// (with its WAL) under a new name, and moves the copy into place.
///
/// ```swift
/// let outcome = try await SQLiteBackup.backup(database: "tally.sqlite", to: "/backups/tally-2026-11-21.sqlite", replacing: false)
/// print(outcome.audit.balances)
/// ```
public enum SQLiteBackup: Sendable {
    /// What a backup or a restore wrote, and what its check found.
    public struct Outcome: Sendable {
        /// The file written: the backup, or the restored database.
        public var path: String
        /// Its size in bytes.
        public var bytes: Int64
        /// The check of what was written.
        public var audit: DatabaseAudit
        /// Where a restore moved the database it replaced, if there was one.
        public var replaced: String?
    }

    /// Copies the live database at `database` into a new file `destination` and checks the copy.
    /// - Parameters:
    ///   - database: the SQLite file `tally serve` uses; it may be serving.
    ///   - destination: the backup to write.
    ///   - replacing: whether an existing `destination` may be replaced.
    /// - Returns: the backup and its check.
    /// - Throws: ``DatabaseMaintenanceError``: `destination_exists`, `cannot_open` (the database),
    ///   `cannot_write` (the destination), `copy_failed`, or the check's codes (then nothing is
    ///   left at `destination`).
    public static func backup(database: String, to destination: String, replacing: Bool) async throws -> Outcome {
        guard FileManager.default.fileExists(atPath: database) else {
            throw DatabaseMaintenanceError(.cannotOpen, "no database at \(database)")
        }
        if !replacing, FileManager.default.fileExists(atPath: destination) {
            throw DatabaseMaintenanceError(.destinationExists, "\(destination) exists; --force replaces it")
        }
        let partial = destination + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        removeDatabaseFiles(partial)
        defer { removeDatabaseFiles(partial) }
        try create(partial)
        try copy(from: database, to: partial)
        let audit = try await checked(partial, named: destination)
        if replacing, FileManager.default.fileExists(atPath: destination) {
            // A backup someone opened may have a WAL beside it, which SQLite would replay into the new file.
            try quiesce(destination)
            removeDatabaseFiles(destination, keepingMainFile: true)
        }
        try place(partial, at: destination, replacing: replacing)
        return Outcome(path: destination, bytes: size(destination), audit: audit, replaced: nil)
    }

    /// Puts a checked copy of `backup` in place as `database`.
    /// - Parameters:
    ///   - backup: a file written by ``backup(database:to:replacing:)`` (or any Tally SQLite database); it is not changed.
    ///   - database: where `tally serve` will find it.
    ///   - replacing: whether an existing `database` may be replaced; it is then kept as
    ///     `<database>.replaced-<time>` (with its WAL, if any).
    ///   - now: the time that names the replaced database.
    /// - Returns: the restored database, its check and where the replaced one went.
    /// - Throws: ``DatabaseMaintenanceError``: the check's codes, naming `backup` (nothing changed),
    ///   `destination_exists`, `database_in_use` when another process has `database` open,
    ///   `cannot_open` (the backup), `cannot_write` (where `database` goes), `copy_failed`.
    public static func restore(from backup: String, to database: String, replacing: Bool, now: Date) async throws -> Outcome {
        guard FileManager.default.fileExists(atPath: backup) else {
            throw DatabaseMaintenanceError(.cannotOpen, "no backup at \(backup)")
        }
        let exists = FileManager.default.fileExists(atPath: database)
        if exists, !replacing {
            throw DatabaseMaintenanceError(.destinationExists, "\(database) exists; --force replaces it (it is kept as \(database).replaced-…)")
        }
        let restoring = database + ".restoring-\(ProcessInfo.processInfo.processIdentifier)"
        removeDatabaseFiles(restoring)
        defer { removeDatabaseFiles(restoring) }
        try create(restoring)
        try copy(from: backup, to: restoring)
        // The copy is checked; what it finds is said of the backup, the file the operator named.
        let audit = try await checked(restoring, named: backup)

        var replaced: String?
        if exists {
            try quiesce(database)
            let aside = database + ".replaced-" + stamp(now)
            for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: database + suffix) {
                guard rename(database + suffix, aside + suffix) == 0 else {
                    throw DatabaseMaintenanceError(.cannotWrite, "cannot move \(database + suffix) aside: \(String(cString: strerror(errno)))")
                }
            }
            replaced = aside
        }
        try place(restoring, at: database, replacing: false)
        return Outcome(path: database, bytes: size(database), audit: audit, replaced: replaced)
    }

    /// Checks an SQLite file without changing it: SQLite's `integrity_check` and
    /// `foreign_key_check`, then ``DatabaseAudit`` on one snapshot.
    /// - Returns: the audit, consistent or not.
    /// - Throws: ``DatabaseMaintenanceError``: `cannot_open`, `integrity_check_failed`,
    ///   `not_a_tally_database`, `newer_schema`.
    public static func check(file path: String) async throws -> DatabaseAudit {
        try await check(file: path, named: path)
    }

    /// Checks `path`, saying what it finds of `name`: a restore checks a copy of the backup.
    private static func check(file path: String, named name: String) async throws -> DatabaseAudit {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseMaintenanceError(.cannotOpen, "no database at \(name)")
        }
        let connection: SQLiteConnection
        let problems: [String]
        do {
            connection = try SQLiteConnection(path: path, readOnly: true)
            problems =
                try connection.query("PRAGMA integrity_check").compactMap { try $0.optionalText(Self.integrityMessage) }.filter { $0 != "ok" }
                + connection.query("PRAGMA foreign_key_check").map { row in
                    let orphan = try row.decode(ForeignKeyRow.self)
                    return "foreign key: row \(orphan.rowID.map { String($0) } ?? "?") of \(orphan.table ?? "?") points to no \(orphan.parent ?? "?")"
                }
        } catch {
            throw DatabaseMaintenanceError(.cannotOpen, "\(name) cannot be read as an SQLite database: \(reason(error))")
        }
        guard problems.isEmpty else {
            throw DatabaseMaintenanceError(.integrityCheckFailed, "\(name): " + problems.prefix(5).joined(separator: "; "))
        }
        do {
            try connection.execute(script: "BEGIN")
        } catch {
            throw DatabaseMaintenanceError(.cannotOpen, "\(name): \(reason(error))")
        }
        defer { try? connection.execute(script: "COMMIT") }
        do {
            return try await DatabaseAudit.run(on: connection)
        } catch let error as DatabaseMaintenanceError {
            throw DatabaseMaintenanceError(error.code, "\(name): \(error.reason)", file: error.file, line: error.line)
        }
    }

    // MARK: - Steps

    private static func checked(_ path: String, named name: String) async throws -> DatabaseAudit {
        let audit = try await check(file: path, named: name)
        guard audit.mismatchCount == 0 else {
            throw DatabaseMaintenanceError(
                .ledgerMismatch,
                "\(name): \(audit.mismatchCount) balance(s) differ from their ledger or lots: "
                    + audit.mismatches.prefix(5).map(\.description).joined(separator: "; "))
        }
        guard audit.isConsistent else {
            throw DatabaseMaintenanceError(
                .rollupMismatch,
                "\(name): \(audit.rollupDifferenceCount) metrics rollup(s) differ from their recomputation: "
                    + audit.rollupDifferences.prefix(5).map(\.description).joined(separator: "; "))
        }
        return audit
    }

    /// Creates the empty file a copy goes into, so that a destination that cannot be written is
    /// named with the system's reason (SQLite says only "unable to open database file") and
    /// is not mistaken for a source that cannot be read.
    private static func create(_ path: String) throws {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw DatabaseMaintenanceError(.cannotWrite, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
    }

    private static func copy(from source: String, to destination: String) throws {
        do {
            let connection = try SQLiteConnection(path: source, readOnly: true)
            try connection.backup(to: destination)
        } catch {
            // The destination was created writable: a file that cannot be opened is the source, not a database or not there.
            guard error.kind != .unavailable else { throw DatabaseMaintenanceError(.cannotOpen, "cannot read \(source): \(reason(error))") }
            throw DatabaseMaintenanceError(.copyFailed, "copying \(source) to \(destination): \(reason(error))")
        }
    }

    /// Refuses when another process has the database open; otherwise folds its WAL into the
    /// main file, so that the file alone holds every committed transaction.
    private static func quiesce(_ path: String) throws {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path)
            // An exclusive lock on the file: every open connection of another process holds a shared one.
            try connection.execute(script: "PRAGMA busy_timeout=0; PRAGMA locking_mode=EXCLUSIVE;")
        } catch {
            throw DatabaseMaintenanceError(.cannotOpen, "\(path): \(reason(error))")
        }
        do {
            try connection.execute(script: "BEGIN EXCLUSIVE; COMMIT;")
            try connection.execute(script: "PRAGMA wal_checkpoint(TRUNCATE);")
        } catch {
            if error.kind == .retryable {
                throw DatabaseMaintenanceError(.databaseInUse, "another process has \(path) open: stop tally serve first")
            }
            throw DatabaseMaintenanceError(.cannotOpen, "\(path): \(reason(error))")
        }
    }

    /// Makes `source` durable and gives it the name `destination`.
    private static func place(_ source: String, at destination: String, replacing: Bool) throws {
        if let handle = FileHandle(forUpdatingAtPath: source) {
            try? handle.synchronize()
            try? handle.close()
        }
        // link(2) fails when the name is taken; rename(2) replaces it.
        let result = replacing ? rename(source, destination) : link(source, destination)
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            if errno == EEXIST { throw DatabaseMaintenanceError(.destinationExists, "\(destination) exists; --force replaces it") }
            throw DatabaseMaintenanceError(.cannotWrite, "cannot write \(destination): \(reason)")
        }
        if let folder = FileHandle(
            forReadingAtPath: (destination as NSString).deletingLastPathComponent.isEmpty
                ? "." : (destination as NSString).deletingLastPathComponent)
        {
            try? folder.synchronize()
            try? folder.close()
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as? SQLDatabaseError)?.message ?? "\(error)"
    }

    private static func removeDatabaseFiles(_ path: String, keepingMainFile: Bool = false) {
        for suffix in (keepingMainFile ? [] : [""]) + ["-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    private static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    private static func stamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        return formatter.string(from: date)
    }

    // MARK: - Rows

    /// The one column of `PRAGMA integrity_check`'s lines: `ok`, or a problem.
    private static let integrityMessage = SQLColumn("integrity_check")

    /// A line of `PRAGMA foreign_key_check`: a row whose parent is missing.
    private struct ForeignKeyRow: SQLRowDecodable {
        enum Columns {
            static let table = SQLColumn("table")
            static let rowID = SQLColumn("rowid")
            static let parent = SQLColumn("parent")
        }

        let table: String?
        /// Null for a table without rowids.
        let rowID: Int64?
        let parent: String?

        init(row: SQLRow) throws(SQLDatabaseError) {
            table = try row.optionalText(Columns.table)
            rowID = try row.optionalInt(Columns.rowID)
            parent = try row.optionalText(Columns.parent)
        }
    }
}
