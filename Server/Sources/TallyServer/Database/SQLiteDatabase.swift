import Foundation
import TallySQLite

/// SQLite in WAL mode with durable commits (`synchronous=FULL`).
///
/// Writes go through one connection, one transaction at a time; transactions that queue up
/// while one commits are committed together (group commit): each runs in its own savepoint,
/// so one that fails rolls back alone, and all of them share one `fsync`. The writer runs on a
/// thread of its own (`WriterExecutor`), so that its batches and their `fsync` neither wait
/// behind request handlers for the cooperative pool nor block it. Reads use a small pool of
/// read-only connections, which WAL lets run beside the writer.
public final class SQLiteDatabase: SQLDatabase, @unchecked Sendable {
    /// SQLite's SQL.
    public let dialect = SQLDialect.sqlite
    /// The database file.
    public let path: String
    private let writer: SQLiteConnection
    private let writerExecutor = WriterExecutor(label: "tally.sqlite.writer")
    private let lock = NSLock()
    private var pending: [any WriteJob] = []
    private var draining = false
    private var readers: [SQLiteConnection] = []
    private var readerWaiters: [CheckedContinuation<SQLiteConnection, Never>] = []
    private let readerCount: Int
    private var readersMade = 0
    /// The most transactions committed together.
    public let maximumBatch: Int

    /// Opens (or creates) the database.
    /// - Parameters:
    ///   - path: the file; `:memory:` is refused because readers could not see it.
    ///   - readers: how many read-only connections to keep.
    ///   - maximumBatch: the most transactions one commit may carry.
    /// - Throws: ``SQLDatabaseError`` when it cannot be opened.
    public init(path: String, readers: Int = 4, maximumBatch: Int = 256) throws(SQLDatabaseError) {
        guard path != ":memory:", !path.hasPrefix("file::memory:"), !path.isEmpty else {
            throw SQLDatabaseError(.other, "an in-memory SQLite database cannot be shared by the writer and the readers: give a file")
        }
        self.path = path
        self.readerCount = max(1, readers)
        self.maximumBatch = max(1, maximumBatch)
        do {
            writer = try SQLiteConnection(path: path)
            // temp_store=MEMORY: each job's savepoint needs a statement journal, which SQLite
            // otherwise keeps in a temporary file opened, written and deleted for every job. It
            // only serves to roll a job back inside its batch; durability is the WAL's.
            try writer.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;")
        } catch {
            throw SQLDatabaseError(.unavailable, "cannot open \(path): \(error)")
        }
    }

    /// Nothing to do: each connection closes itself when it is released.
    public func close() async {}

    // MARK: - Writing

    /// Runs `work` on the one writer connection, in its own savepoint of a group commit: it commits with the batch when it returns, and rolls back alone when it throws.
    public func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = TypedJob(work: work, continuation: continuation)
            let start = lock.withLock { () -> Bool in
                pending.append(job)
                if draining { return false }
                draining = true
                return true
            }
            if start { Task(executorPreference: writerExecutor) { await self.drain() } }
        }
    }

    /// Commits queued transactions in batches until none are left.
    private func drain() async {
        while true {
            let batch = lock.withLock { () -> [any WriteJob] in
                let batch = Array(pending.prefix(maximumBatch))
                pending.removeFirst(batch.count)
                if batch.isEmpty { draining = false }
                return batch
            }
            if batch.isEmpty { return }
            await run(batch)
        }
    }

    private func run(_ batch: [any WriteJob]) async {
        let executor = SQLiteExecutor(connection: writer)
        do {
            try writer.query("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.finish(committed: false, error: SQLiteDatabase.convert(error)) }
            return
        }
        var succeeded: [any WriteJob] = []
        for job in batch {
            do {
                try writer.query("SAVEPOINT job")
                if await job.run(executor) {
                    try writer.query("RELEASE job")
                    succeeded.append(job)
                } else {
                    try writer.execute("ROLLBACK TO job; RELEASE job")
                    job.finish(committed: false, error: nil)
                }
            } catch {
                job.finish(committed: false, error: SQLiteDatabase.convert(error))
            }
        }
        // On the writer's own thread: the fsync of COMMIT blocks nothing else.
        var commitError: SQLDatabaseError?
        do {
            try writer.query("COMMIT")
        } catch {
            try? writer.execute("ROLLBACK")
            commitError = SQLiteDatabase.convert(error)
        }
        for job in succeeded { job.finish(committed: commitError == nil, error: commitError) }
    }

    // MARK: - Reading

    /// Runs `work` in a transaction on a reader connection.
    public func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let connection = try await acquireReader()
        defer { releaseReader(connection) }
        let executor = SQLiteExecutor(connection: connection)
        try connection.query("BEGIN")
        defer { _ = try? connection.query("COMMIT") }
        return try await work(executor)
    }

    private func acquireReader() async throws -> SQLiteConnection {
        enum Next { case ready(SQLiteConnection), make, wait }
        let next = lock.withLock { () -> Next in
            if let connection = readers.popLast() { return .ready(connection) }
            if readersMade < readerCount {
                readersMade += 1
                return .make
            }
            return .wait
        }
        switch next {
        case .ready(let connection):
            return connection
        case .make:
            do {
                let connection = try SQLiteConnection(path: path, readOnly: true)
                try connection.execute("PRAGMA query_only=ON;")
                return connection
            } catch {
                lock.withLock { readersMade -= 1 }
                throw SQLDatabaseError(.unavailable, "cannot open a reader: \(error)")
            }
        case .wait:
            return await withCheckedContinuation { continuation in
                let ready = lock.withLock { () -> SQLiteConnection? in
                    if let connection = readers.popLast() { return connection }
                    readerWaiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    private func releaseReader(_ connection: SQLiteConnection) {
        let waiter = lock.withLock { () -> CheckedContinuation<SQLiteConnection, Never>? in
            if !readerWaiters.isEmpty { return readerWaiters.removeFirst() }
            readers.append(connection)
            return nil
        }
        waiter?.resume(returning: connection)
    }

    // MARK: - Migrations

    /// Applies the migrations not yet applied, in order, each in its own transaction.
    public func migrate(_ migrations: [Migration]) async throws {
        // One writer: nothing else can apply a migration between the check and the change.
        try await runMigrations(migrations)
    }

    static func convert(_ error: any Error) -> SQLDatabaseError {
        if let error = error as? SQLDatabaseError { return error }
        guard let error = error as? SQLiteError else { return SQLDatabaseError(.other, "\(error)") }
        if error.isUniqueViolation { return SQLDatabaseError(.uniqueViolation, error.message) }
        if error.isConstraintViolation { return SQLDatabaseError(.constraintViolation, error.message) }
        if error.isBusy { return SQLDatabaseError(.retryable, error.message) }
        return SQLDatabaseError(.other, error.description)
    }
}

/// The writer's thread: a serial queue as the preferred executor of the task that drains the
/// write queue, so that the writer's transactions and their COMMIT run there, one at a time.
final class WriterExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Statements on one SQLite connection. Used only by the task that owns the connection.
struct SQLiteExecutor: SQLExecutor, @unchecked Sendable {
    let connection: SQLiteConnection

    func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
        do {
            let rows = try connection.query(sql, binds.map(Self.value))
            guard let first = rows.first else { return [] }
            // Every row of a result has the same columns: lower-case their names once.
            let names = first.columns.map { $0.lowercased() }
            return rows.map { row in
                var values = [String: SQLValue](minimumCapacity: names.count)
                for (name, value) in zip(names, row.values) {
                    values[name] =
                        switch value {
                        case .integer(let int): .int(int)
                        case .text(let text): .text(text)
                        // Amounts are integers; a real that is not a whole Int64 is refused, never truncated.
                        case .real(let real): Int64(exactly: real).map(SQLValue.int) ?? .text(String(real))
                        case .blob(let bytes): .text(String(decoding: bytes, as: UTF8.self))
                        case .null: .null
                        }
                }
                return SQLRow(values: values)
            }
        } catch {
            throw SQLiteDatabase.convert(error)
        }
    }

    func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
        do {
            try connection.query(sql, binds.map(Self.value))
            return connection.changes
        } catch {
            throw SQLiteDatabase.convert(error)
        }
    }

    static func value(_ value: SQLValue) -> SQLiteValue {
        switch value {
        case .null: .null
        case .int(let int): .integer(int)
        case .text(let text): .text(text)
        }
    }
}

/// A queued write transaction, typed on the outside, erased inside the queue.
private protocol WriteJob: AnyObject, Sendable {
    /// Runs the work; false when it threw (its error is kept for ``finish(committed:error:)``).
    func run(_ executor: any SQLExecutor) async -> Bool
    /// Resumes the caller once the batch committed (or failed).
    func finish(committed: Bool, error: SQLDatabaseError?)
}

private final class TypedJob<T: Sendable>: WriteJob, @unchecked Sendable {
    let work: @Sendable (any SQLExecutor) async throws -> T
    let continuation: CheckedContinuation<T, any Error>
    var result: Result<T, any Error>?

    init(work: @escaping @Sendable (any SQLExecutor) async throws -> T, continuation: CheckedContinuation<T, any Error>) {
        self.work = work
        self.continuation = continuation
    }

    func run(_ executor: any SQLExecutor) async -> Bool {
        do {
            result = .success(try await work(executor))
            return true
        } catch {
            result = .failure(error)
            return false
        }
    }

    func finish(committed: Bool, error: SQLDatabaseError?) {
        if let error {
            continuation.resume(throwing: error)
        } else if committed, case .success(let value)? = result {
            continuation.resume(returning: value)
        } else if case .failure(let failure)? = result {
            continuation.resume(throwing: failure)
        } else {
            continuation.resume(throwing: SQLDatabaseError(.other, "transaction did not complete"))
        }
    }
}
