import NIOConcurrencyHelpers
import TallyCore
import TallyLedger
import TallySQL

/// One write's unit of work: the transaction's statements, its time, the events it writes, the
/// users whose access it may change, and what is to happen once it has committed.
///
/// ``Transactions`` makes one for each attempt of a write and hands it to the work. Whatever
/// writes an event (``Outbox``) or may change a user's access (``PurchaseStore/touchEntitlements(_:user:time:transactionID:actor:)``)
/// takes a `WriteContext`, not a bare ``SQLExecutor``: a change cannot be made in a way that
/// skips its events. Work queued with ``afterCommit(_:)`` runs once the transaction has
/// committed (as GRDB's `afterNextTransaction(onCommit:)`); on a rollback, or an attempt that
/// is run again, it is dropped with the context.
final class WriteContext: SQLExecutor {
    /// The transaction's own executor.
    let executor: any SQLExecutor
    /// The write's time, in epoch milliseconds: one instant for every statement of it.
    let now: Int64
    /// The database's dialect (a few statements differ).
    let dialect: SQLDialect
    private let state = NIOLockedValueBox(State())
    /// What the write noted for the subscription and revenue rollups (``MetricsRollup``).
    let metrics = NIOLockedValueBox(MetricsNotes())

    /// What an access-changing write noted of a user before its first change: the
    /// entitlements active then, and what made the change (a transaction, an operator).
    struct Touched {
        var before: Set<String>
        var transactionID: String?
        var actor: String?
    }

    private struct State {
        var events: [TallyEventType] = []
        var eventRows: [SQL] = []
        var touched: [String: Touched] = [:]
        var order: [String] = []
        var afterCommit: [@Sendable () -> Void] = []
    }

    init(_ executor: any SQLExecutor, now: Int64, dialect: SQLDialect) {
        self.executor = executor
        self.now = now
        self.dialect = dialect
    }

    func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow] {
        try await executor.query(sql)
    }

    @discardableResult
    func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int {
        try await executor.execute(sql)
    }

    func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
        try await executor.query(sql, binds)
    }

    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
        try await executor.execute(sql, binds)
    }

    /// Where this write's events go: the same transaction.
    var outbox: Outbox { Outbox(self) }

    /// Runs `work` after the transaction commits, in the order queued; never when it rolls back.
    func afterCommit(_ work: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.afterCommit.append(work) }
    }

    /// The types of the events emitted so far, in order.
    var events: [TallyEventType] { state.withLockedValue { $0.events } }

    /// Keeps an event's row for the write's end (``WriteTail``).
    func queueEvent(_ type: TallyEventType, row: SQL) {
        state.withLockedValue { state in
            state.events.append(type)
            state.eventRows.append(row)
        }
    }

    var queuedEventRows: [SQL] { state.withLockedValue { $0.eventRows } }

    /// Whether `user`'s access was noted already in this write.
    func hasTouched(_ user: String) -> Bool { state.withLockedValue { $0.touched[user] != nil } }

    /// Notes `user`'s access before a change; the first note keeps its snapshot, a later one
    /// may only name the cause the first lacked.
    func touch(_ user: String, _ value: Touched) {
        state.withLockedValue { state in
            guard var existing = state.touched[user] else {
                state.touched[user] = value
                state.order.append(user)
                return
            }
            existing.transactionID = existing.transactionID ?? value.transactionID
            existing.actor = existing.actor ?? value.actor
            state.touched[user] = existing
        }
    }

    /// The users noted, in the order of their first note.
    var touchedUsers: [(String, Touched)] { state.withLockedValue { state in state.order.map { ($0, state.touched[$0]!) } } }

    /// Runs the work queued for after the commit; called by the write once it committed.
    func committed() {
        for work in state.withLockedValue({ $0.afterCommit }) { work() }
    }
}

extension WriteContext: LedgerObserver {
    /// The credit ledger inside this write: its entries counted for the rollups, a repaid debt
    /// written as an event.
    var ledger: CreditLedger { CreditLedger(self, schema: Migrations.ledger, now: now, observer: self) }

    func ledgerEntryWritten(kind: LedgerEntryKind, bucket: LedgerBucket, currency: String, amount: Int64) {
        MetricsRollup.noteLedger(self, kind: kind, bucket: bucket, currency: currency, amount: amount)
    }

    func debtRepaid(holder: String, currency: String, amount: Int64) async throws {
        var data = TallyEventData(userID: holder)
        data.currency = currency
        data.amount = amount
        try await outbox.emit(.debtRepaid, data)
    }
}
