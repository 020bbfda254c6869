import Foundation

/// SQLite in WAL mode with durable commits (`synchronous=FULL`).
///
/// Writes go through one connection, one transaction at a time; transactions that queue up
/// while one commits are committed together (group commit): each runs in its own savepoint,
/// so one that fails rolls back alone, and all of them share one `fsync`. What they leave for
/// the end of their transaction (a ``CommitTail``: counters they all add to) runs once for the
/// batch, merged, before its COMMIT. The writer runs on a
/// thread of its own (`WriterExecutor`), so that its batches and their `fsync` neither wait
/// behind request handlers for the cooperative pool nor block it. Reads use a small pool of
/// read-only connections, which WAL lets run beside the writer.
///
/// The server's default database and the device's (TallyKit's `LocalDatabase`) are both one
/// of these.
///
/// ```swift
/// let database = try SQLiteDatabase(path: folder.appendingPathComponent("tally.sqlite").path)
/// try await database.migrate(migrations)
/// let inserted = try await database.write { executor in
///     try await executor.execute("INSERT INTO notes (text) VALUES (\("hello"))")
/// }
/// ```
public final class SQLiteDatabase: SQLDatabase, @unchecked Sendable {
    /// SQLite's SQL.
    public let dialect = SQLDialect.sqlite
    /// The database file.
    public let path: String
    private let writer: SQLiteConnection
    /// The writer's thread (a `WriterExecutor`) where task executors exist; nil before them.
    private let writerExecutor: (any Sendable)?
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
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            writerExecutor = WriterExecutor(label: "tally.sqlite.writer")
        } else {
            writerExecutor = nil
        }
        do {
            writer = try SQLiteConnection(path: path)
            // temp_store=MEMORY: each job's savepoint needs a statement journal, which SQLite
            // otherwise keeps in a temporary file opened, written and deleted for every job. It
            // only serves to roll a job back inside its batch; durability is the WAL's.
            try writer.execute(script: "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;")
        } catch {
            throw SQLDatabaseError(.unavailable, "cannot open \(path): \(Self.convert(error).message)")
        }
    }

    /// Nothing to do: each connection closes itself when it is released.
    public func close() async {}

    // MARK: - Writing

    /// Runs `work` on the one writer connection, in its own savepoint of a group commit: it commits with the batch when it returns, and rolls back alone when it throws.
    /// It sees the earlier writes of its batch whole: their tails (``CommitTail``) run before it.
    public func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await enqueue(takesTail: false) { executor in (try await work(executor), nil) }
    }

    /// Runs `work` as ``write(_:)`` does; its tail runs once for the batch it commits in,
    /// merged with the tails of the same type of the batch's other writes, before the COMMIT.
    public func write<T: Sendable, Tail: CommitTail>(
        tail: Tail.Type, _ work: @escaping @Sendable (any SQLExecutor) async throws -> (T, Tail?)
    ) async throws -> T {
        try await enqueue(takesTail: true) { executor in
            let (value, tail) = try await work(executor)
            return (value, tail)
        }
    }

    private func enqueue<T: Sendable>(
        takesTail: Bool, _ work: @escaping @Sendable (any SQLExecutor) async throws -> (T, (any CommitTail)?)
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = TypedJob(work: work, takesTail: takesTail, continuation: continuation)
            let start = locked { () -> Bool in
                pending.append(job)
                if draining { return false }
                draining = true
                return true
            }
            if start { startDraining() }
        }
    }

    /// Drains the queue on the writer's thread; where task executors do not exist yet (before
    /// iOS 18 and macOS 15), in a detached task, whose COMMIT then waits for its `fsync` on a
    /// thread of the shared pool.
    private func startDraining() {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor = writerExecutor as? WriterExecutor {
            Task(executorPreference: executor) { await self.drain() }
        } else {
            Task.detached { await self.drain() }
        }
    }

    /// Commits queued transactions in batches until none are left.
    private func drain() async {
        while true {
            let batch = locked { () -> [any WriteJob] in
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
        do {
            try writer.query("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.finish(committed: false, error: SQLiteDatabase.convert(error)) }
            return
        }
        var succeeded: [any WriteJob] = []
        // The tails of the writes that did not roll back, one per type, in the order first met.
        var tails: [any CommitTail] = []
        // Set when a tail failed: the batch then commits nothing.
        var failure: SQLDatabaseError?
        for job in batch {
            // A write without a tail sees the earlier writes of its batch whole: their tails run first.
            if failure == nil, !job.takesTail, !tails.isEmpty {
                do {
                    for tail in tails { try await tail.run(writer) }
                    tails.removeAll()
                } catch {
                    failure = SQLiteDatabase.convert(error)
                }
            }
            if let failure {
                job.finish(committed: false, error: failure)
                continue
            }
            do {
                try writer.query("SAVEPOINT job")
                if await job.run(writer) {
                    try writer.query("RELEASE job")
                    succeeded.append(job)
                    if let tail = job.tail { Self.add(tail, to: &tails) }
                } else {
                    try writer.execute(script: "ROLLBACK TO job; RELEASE job")
                    job.finish(committed: false, error: nil)
                }
            } catch {
                // A savepoint that could not be released takes its changes with it.
                try? writer.execute(script: "ROLLBACK TO job; RELEASE job")
                job.finish(committed: false, error: SQLiteDatabase.convert(error))
            }
        }
        // On the writer's own thread: the fsync of COMMIT blocks nothing else.
        var commitError = failure
        if commitError == nil {
            do {
                for tail in tails { try await tail.run(writer) }
                try writer.query("COMMIT")
            } catch {
                commitError = SQLiteDatabase.convert(error)
            }
        }
        if commitError != nil { try? writer.execute(script: "ROLLBACK") }
        for job in succeeded { job.finish(committed: commitError == nil, error: commitError) }
    }

    /// Merges `tail` into the tail of its type in `tails`, or appends it.
    private static func add(_ tail: any CommitTail, to tails: inout [any CommitTail]) {
        for index in tails.indices where tail.merge(into: &tails[index]) { return }
        tails.append(tail)
    }

    // MARK: - Reading

    /// Runs `work` in a transaction on a reader connection.
    public func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let connection = try await acquireReader()
        defer { releaseReader(connection) }
        try connection.query("BEGIN")
        defer { _ = try? connection.query("COMMIT") }
        return try await work(connection)
    }

    private func acquireReader() async throws -> SQLiteConnection {
        enum Next { case ready(SQLiteConnection), make, wait }
        let next = locked { () -> Next in
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
                try connection.execute(script: "PRAGMA query_only=ON;")
                return connection
            } catch {
                locked { readersMade -= 1 }
                throw SQLDatabaseError(.unavailable, "cannot open a reader of \(path): \(Self.convert(error).message)")
            }
        case .wait:
            return await withCheckedContinuation { continuation in
                let ready = locked { () -> SQLiteConnection? in
                    if let connection = readers.popLast() { return connection }
                    readerWaiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    private func releaseReader(_ connection: SQLiteConnection) {
        let waiter = locked { () -> CheckedContinuation<SQLiteConnection, Never>? in
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
        (error as? SQLDatabaseError) ?? SQLDatabaseError(.other, "\(error)")
    }

    /// `NSLock.withLock` needs iOS 17 and macOS 14, above the client package's floor.
    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

extension CommitTail {
    /// Merges this tail into `earlier` when it is of this type; false when it is not.
    fileprivate func merge(into earlier: inout any CommitTail) -> Bool {
        guard var merged = earlier as? Self else { return false }
        // Let go of the stored copy first, so that merging does not copy what it holds.
        earlier = NoTail()
        merged.merge(self)
        earlier = merged
        return true
    }
}

/// Holds a tail's place while it is merged.
private struct NoTail: CommitTail {
    mutating func merge(_ later: NoTail) {}
    func run(_ executor: any SQLExecutor) async throws {}
}

/// A queued write transaction, typed on the outside, erased inside the queue.
private protocol WriteJob: AnyObject, Sendable {
    /// Runs the work; false when it threw (its error is kept for ``finish(committed:error:)``).
    func run(_ executor: any SQLExecutor) async -> Bool
    /// What the work left for the end of the batch, once it ran.
    var tail: (any CommitTail)? { get }
    /// Whether the write may leave a tail; one that may not runs after the tails before it.
    var takesTail: Bool { get }
    /// Resumes the caller once the batch committed (or failed).
    func finish(committed: Bool, error: SQLDatabaseError?)
}

private final class TypedJob<T: Sendable>: WriteJob, @unchecked Sendable {
    let work: @Sendable (any SQLExecutor) async throws -> (T, (any CommitTail)?)
    let continuation: CheckedContinuation<T, any Error>
    var result: Result<T, any Error>?
    var tail: (any CommitTail)?
    let takesTail: Bool

    init(
        work: @escaping @Sendable (any SQLExecutor) async throws -> (T, (any CommitTail)?), takesTail: Bool,
        continuation: CheckedContinuation<T, any Error>
    ) {
        self.work = work
        self.takesTail = takesTail
        self.continuation = continuation
    }

    func run(_ executor: any SQLExecutor) async -> Bool {
        do {
            let (value, tail) = try await work(executor)
            result = .success(value)
            self.tail = tail
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
