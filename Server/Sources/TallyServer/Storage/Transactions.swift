import Foundation
import TallyCore
import TallySQL

/// The unit of work the stores share: their writes and reads over one database.
///
/// Each attempt of a write gets its own ``WriteContext``. Before the commit the write says, for
/// each user whose access the work noted, what changed (an `entitlement.granted` for what
/// became active, an `entitlement.removed` for what no longer is), and ends with its
/// ``WriteTail`` (its events and its rollups' changes); after the commit it runs
/// what the work queued (``WriteContext/afterCommit(_:)``), the events counter among it. A
/// write that lost a UNIQUE race or hit a serialization failure or deadlock is run again, up
/// to three times, and finds the winner's row (see docs/decisions/0006-ledger-and-idempotency.md).
struct Transactions: Sendable {
    let database: any SQLDatabase
    /// The clock.
    let now: @Sendable () -> Date
    /// What users have: the entitlements a write compares.
    let accounts: Accounts
    /// Told the types of the events each write committed (the `/metrics` counter per type).
    var eventsCommitted: (@Sendable ([TallyEventType]) -> Void)?

    /// Now, in epoch milliseconds.
    var millis: Int64 { SQLStorage.millis(now()) }

    /// Runs `work` as one unit of work, at one instant (epoch milliseconds, also the context's `now`).
    func write<T: Sendable>(_ work: @escaping @Sendable (WriteContext, Int64) async throws -> T) async throws -> T {
        try await attempts(tailed: true, work)
    }

    /// Runs `work` as ``write(_:)`` does, after everything the writes before it wrote: on SQLite,
    /// where the writes of a group commit add their events and rollups at its end
    /// (``WriteTail``), those run first. For the writes that decide what the events written
    /// before them become: which webhook endpoints an event is delivered to is decided as it is
    /// inserted.
    func writeSeeingEarlierWrites<T: Sendable>(_ work: @escaping @Sendable (WriteContext, Int64) async throws -> T) async throws -> T {
        try await attempts(tailed: false, work)
    }

    private func attempts<T: Sendable>(tailed: Bool, _ work: @escaping @Sendable (WriteContext, Int64) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            let time = millis
            let body: @Sendable (any SQLExecutor) async throws -> ((T, WriteContext), WriteTail) = { [self] executor in
                let context = WriteContext(executor, now: time, dialect: database.dialect)
                let value = try await work(context, time)
                try await emitEntitlementChanges(context)
                let tail = WriteTail(dialect: context.dialect, eventRows: context.queuedEventRows, rollups: try await MetricsRollup.pending(context))
                let types = context.events
                if let eventsCommitted, !types.isEmpty { context.afterCommit { eventsCommitted(types) } }
                return ((value, context), tail)
            }
            do {
                let (result, context) =
                    tailed
                    ? try await database.write(tail: WriteTail.self) { executor in try await body(executor) }
                    : try await database.write { executor in
                        let (value, tail) = try await body(executor)
                        try await tail.run(executor)
                        return value
                    }
                context.committed()
                return result
            } catch let error as SQLDatabaseError where (error.kind == .uniqueViolation || error.kind == .retryable) && attempt < 3 {
                attempt += 1
            }
        }
    }

    /// Runs `work` on a consistent snapshot, read-only, at one instant.
    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor, Int64) async throws -> T) async throws -> T {
        let time = millis
        return try await database.read { executor in try await work(executor, time) }
    }

    /// At the end of a write: for each user whose access it may have changed, an
    /// `entitlement.granted` for what became active and an `entitlement.removed` for what no
    /// longer is. Nothing when access is what it was (a renewal of an active subscription, a
    /// refund of an old period while a later one goes on).
    private func emitEntitlementChanges(_ context: WriteContext) async throws {
        for (user, touched) in context.touchedUsers {
            let after = try await accounts.activeEntitlements(context, user: user, time: context.now)
            guard after != touched.before else { continue }
            var data = TallyEventData(userID: user)
            data.transactionID = touched.transactionID
            data.actor = touched.actor
            let outbox = context.outbox
            let gained = after.subtracting(touched.before)
            if !gained.isEmpty {
                data.entitlements = gained.sorted()
                try await outbox.emit(.entitlementGranted, data)
            }
            let lost = touched.before.subtracting(after)
            if !lost.isEmpty {
                data.entitlements = lost.sorted()
                try await outbox.emit(.entitlementRemoved, data)
            }
        }
    }
}

/// A store over the unit of work the stores share: its writes and reads go through
/// ``Transactions``, and it reads what users have through the same ``Accounts``.
protocol TransactionalStore: Sendable {
    var transactions: Transactions { get }
}

extension TransactionalStore {
    /// What users have, read in any transaction.
    var accounts: Accounts { transactions.accounts }

    /// Runs `work` as one unit of work (``Transactions/write(_:)``).
    func write<T: Sendable>(_ work: @escaping @Sendable (WriteContext, Int64) async throws -> T) async throws -> T {
        try await transactions.write(work)
    }

    /// Runs `work` as one unit of work after everything the writes before it wrote
    /// (``Transactions/writeSeeingEarlierWrites(_:)``).
    func writeSeeingEarlierWrites<T: Sendable>(_ work: @escaping @Sendable (WriteContext, Int64) async throws -> T) async throws -> T {
        try await transactions.writeSeeingEarlierWrites(work)
    }

    /// Runs `work` on a consistent snapshot (``Transactions/read(_:)``).
    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor, Int64) async throws -> T) async throws -> T {
        try await transactions.read(work)
    }
}

/// The end of a write: the events it emitted, in that order, and what it changed in the
/// rollups. On SQLite the writes of one group commit end together: their events in one insert,
/// each rollup row they share added to once (``CommitTail``). On PostgreSQL, where each
/// statement is a round trip, one insert of events goes with the first upsert as a `WITH`
/// (which runs whether or not the statement reads it); with no upsert, or with more than one
/// insert, they are statements of their own.
struct WriteTail: CommitTail {
    let dialect: SQLDialect
    /// The events' rows, as ``Outbox`` queued them.
    var eventRows: [SQL]
    var rollups: MetricContributions

    mutating func merge(_ later: WriteTail) {
        eventRows += later.eventRows
        rollups.add(later.rollups)
    }

    func run(_ executor: any SQLExecutor) async throws {
        var statements = MetricsRollup.upserts(rollups, shard: MetricsRollup.shard(dialect)) { Self.runs($0, dialect: dialect) }
        let events = Outbox.inserts(eventRows, runs: Self.runs(eventRows.count, dialect: dialect))
        if dialect == .postgres, events.count == 1, let first = statements.first {
            statements[0] = "WITH new_events AS (" + events[0] + ") " + first
        } else {
            statements = events + statements
        }
        // `query`, not `execute`: on PostgreSQL a `WITH` is named (prepared) only as a query.
        for statement in statements { _ = try await executor.query(statement) }
    }

    /// How a tail's rows are split among statements: on SQLite, where a tail holds the rows of
    /// the writes of a group commit, up to 256 and in runs of powers of two above 8 (so the
    /// writer prepares a few texts, not one per count, and one write's few rows are still one
    /// statement); on PostgreSQL, where it holds one write's, up to 400 (within both databases'
    /// limits on bound values).
    static func runs(_ count: Int, dialect: SQLDialect) -> [Range<Int>] {
        dialect == .sqlite ? SQL.rowRuns(count, largest: 256, powersOfTwoAbove: 8) : SQL.rowRuns(count, largest: 400)
    }
}
