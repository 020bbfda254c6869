import Foundation
import TallySQL

/// The device's database: one SQLite file (system SQLite, no package) in WAL mode with
/// durable commits, shared by the purchase journal, the on-device ledger, the entitlements
/// cache, the trusted clock and the onboarding gate.
///
/// It is an ``SQLiteDatabase`` from TallySQL, the same as the server's: one writer that
/// commits queued transactions together, read-only connections beside it, and the same
/// migration runner (`schema_migrations`, times in milliseconds). The device's whole schema is
/// one list of migrations (`LocalDatabase+Schema.swift`), applied when the database opens.
///
/// Each write is one transaction; a commit has reached the disk when the call returns, so a
/// crash right after loses nothing. A read sees what was committed before it began.
///
/// Re-entrancy: it holds no state of its own. Write transactions run one after another on the
/// writer, each whole, so one caller's transaction never interleaves with another's; what
/// must be read and changed together is read and changed in one ``write(_:)``.
///
/// ```swift
/// let database = try await LocalDatabase.standard()
/// let manager = try await PurchaseManager(store: StoreKit2Store(), delivery: ledger, database: database, configuration: configuration)
/// ```
public final class LocalDatabase: Sendable {
    /// The file.
    public let path: String
    let database: SQLiteDatabase

    /// Opens (or creates) the database and brings its schema up to date.
    /// - Parameter path: a file path; its folder is created when missing. `:memory:` is
    ///   refused: the readers could not see it.
    /// - Throws: ``TallyError`` `storage_failed` when it cannot be opened or migrated.
    public init(path: String) async throws(TallyError) {
        self.path = path
        do {
            try? FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            database = try SQLiteDatabase(path: path, readers: 2)
            try await database.migrate(Self.migrations)
        } catch {
            throw TallyError(.storageFailed, "cannot open the database \(path): \(error)")
        }
    }

    /// A database in a file under Application Support (or the temporary folder where there is none).
    /// - Parameter name: the file name.
    /// - Returns: the opened, migrated database.
    /// - Throws: ``TallyError`` `storage_failed` when it cannot be opened or migrated.
    public static func standard(named name: String = "tally.sqlite") async throws(TallyError) -> LocalDatabase {
        let folder =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return try await LocalDatabase(path: folder.appendingPathComponent("Tally").appendingPathComponent(name).path)
    }

    /// Runs `work` in one write transaction: all of it is committed, durably, or none of it.
    /// - Throws: what `work` threw when it is a ``TallyError``; otherwise `storage_failed`.
    @discardableResult
    func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws(TallyError) -> T {
        do {
            return try await database.write(work)
        } catch {
            throw Self.storageError(error)
        }
    }

    /// Runs `work` on a snapshot of what is committed, read-only.
    /// - Throws: what `work` threw when it is a ``TallyError``; otherwise `storage_failed`.
    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws(TallyError) -> T {
        do {
            return try await database.read(work)
        } catch {
            throw Self.storageError(error)
        }
    }

    private static func storageError(_ error: any Error) -> TallyError {
        (error as? TallyError) ?? TallyError(.storageFailed, "\(error)")
    }
}
