import Foundation
import TallyCore
import TallySQL

/// Positions, lots and ledger entries inside one database transaction.
///
/// For each user and currency: `available` (spendable now), `held` (reserved) and `debt`
/// (taken back by a refund after it was spent), all ≥ 0. The ledger records every change of
/// `available + held − debt`, so that sum always equals the sum of the user's `balance`
/// entries; lots record where units came from, and their `remaining` always sums to
/// `available + held`. Spending consumes the oldest lot first.
///
/// Every write that reads before it changes takes ``lock(_:_:)`` first: that row lock
/// serializes concurrent work on one user's currency on PostgreSQL (READ COMMITTED: each
/// statement after it sees what the previous holder committed), and SQLite has one writer anyway.
///
/// It works inside a write's ``WriteContext``: a repaid debt writes its event there.
struct Ledger {
    let context: WriteContext
    /// Now, in epoch milliseconds.
    var now: Int64 { context.now }
    private var executor: any SQLExecutor { context }

    init(_ context: WriteContext) { self.context = context }

    /// What the user has in one currency: a row of `positions`.
    struct Position: Equatable {
        var available: Int64
        var held: Int64
        var debt: Int64
    }

    /// A lot as a refund takes it back: what it granted, what is left, whether it was revoked.
    private struct ClawedLot: SQLRowDecodable {
        enum Columns {
            static let granted = SQLColumn("granted")
            static let remaining = SQLColumn("remaining")
            static let revoked = SQLColumn("revoked")
        }

        let granted: Int64
        let remaining: Int64
        let revoked: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            granted = try row.int(Columns.granted)
            remaining = try row.int(Columns.remaining)
            revoked = try row.int(Columns.revoked)
        }
    }

    /// A lot with units left, as spending consumes it.
    private struct OpenLot: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
            static let remaining = SQLColumn("remaining")
        }

        let id: Int64
        let remaining: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.int(Columns.id)
            remaining = try row.int(Columns.remaining)
        }
    }

    func position(_ user: String, _ currency: String) async throws -> Position {
        try await Self.position(executor, user, currency)
    }

    /// The user's position in `currency`, in a write or a read; all zero when there is none yet.
    static func position(_ executor: any SQLExecutor, _ user: String, _ currency: String) async throws -> Position {
        try await executor.fetchOne(
            Position.self, "SELECT \(Position.selection) FROM positions WHERE user_id = \(user) AND currency = \(currency)")
            ?? Position(available: 0, held: 0, debt: 0)
    }

    /// Locks the user's position in `currency` until the transaction ends, making it if
    /// needed, and returns it as it is then.
    @discardableResult
    func lock(_ user: String, _ currency: String) async throws -> Position {
        // An upsert that changes nothing: one statement that makes the row, locks it and reads it.
        let position = try await executor.fetchOne(
            Position.self,
            """
            INSERT INTO positions (user_id, currency) VALUES (\(user), \(currency))
            ON CONFLICT (user_id, currency) DO UPDATE SET available = positions.available
            RETURNING \(Position.selection)
            """)
        guard let position else { throw LedgerInconsistency(reason: "the position of \(user)/\(currency) was not returned") }
        return position
    }

    func entry(
        _ user: String, _ currency: String, kind: LedgerEntryKind, amount: Int64, bucket: LedgerBucket = .balance,
        transaction: String? = nil, operation: String? = nil, reference: String? = nil
    ) async throws {
        guard amount != 0 else { return }
        MetricsRollup.noteLedger(context, kind: kind, bucket: bucket, currency: currency, amount: amount)
        try await executor.execute(
            """
            INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, transaction_id, operation_id, reference, created_at)
            VALUES (\(user), \(currency), \(bucket), \(kind), \(amount), \(transaction), \(operation), \(reference), \(now))
            """)
    }

    /// Adds `amount` as a new lot, whose source is `kind`; debt is repaid from it first.
    /// Returns what was repaid.
    // `@inline(never)`: Swift 6.3.1's optimizer crashes (signal 11 in LLVM's coroutine
    // splitting) when this async method is inlined into the storage's write closures, so a
    // release build of TallyServer needs it kept out of line.
    @discardableResult
    @inline(never)
    func grant(
        _ user: String, _ currency: String, amount: Int64, kind: LedgerEntryKind,
        transaction: String? = nil, operation: String? = nil, reference: String? = nil
    ) async throws -> Int64 {
        precondition(amount > 0)
        let before = try await lock(user, currency)
        let repaid = min(before.debt, amount)
        try await executor.execute(
            "UPDATE positions SET available = available + \(amount - repaid), debt = debt - \(repaid) WHERE user_id = \(user) AND currency = \(currency)")
        try await executor.execute(
            """
            INSERT INTO lots (user_id, currency, source, transaction_id, granted, remaining, created_at)
            VALUES (\(user), \(currency), \(kind), \(transaction), \(amount), \(amount - repaid), \(now))
            """)
        try await entry(user, currency, kind: kind, amount: amount, transaction: transaction, operation: operation, reference: reference)
        try await debtRepaid(user, currency, repaid)
        return repaid
    }

    /// Takes `amount` from `available` if there is that much; false (and no change) if not.
    func spend(
        _ user: String, _ currency: String, amount: Int64, kind: LedgerEntryKind = .spend,
        operation: String? = nil, reference: String? = nil
    ) async throws -> Bool {
        guard amount > 0 else { return true }
        let changed = try await executor.execute(
            "UPDATE positions SET available = available - \(amount) WHERE user_id = \(user) AND currency = \(currency) AND available >= \(amount)")
        guard changed == 1 else { return false }
        try await consumeLots(user, currency, amount: amount)
        try await entry(user, currency, kind: kind, amount: -amount, operation: operation, reference: reference)
        return true
    }

    /// Moves `amount` from available to held; false (and no change) if not enough is available.
    func hold(_ user: String, _ currency: String, amount: Int64) async throws -> Bool {
        guard amount > 0 else { return true }
        let changed = try await executor.execute(
            """
            UPDATE positions SET available = available - \(amount), held = held + \(amount) \
            WHERE user_id = \(user) AND currency = \(currency) AND available >= \(amount)
            """)
        return changed == 1
    }

    /// Ends a hold of `held`: `used` of it is spent, the rest returns to available, repaying debt first.
    // `@inline(never)`: Swift 6.3.1's optimizer crashes (signal 11 in LLVM's coroutine
    // splitting) when this async method is inlined into the storage's write closures, so a
    // release build of TallyServer needs it kept out of line.
    @inline(never)
    /// - Parameter locked: the position as the caller locked it in this transaction, if it did.
    func settleHold(
        _ user: String, _ currency: String, held: Int64, used: Int64, operation: String?, reference: String?, locked: Position? = nil
    ) async throws {
        precondition(used >= 0 && used <= held)
        guard held > 0 else { return }
        let before: Position
        if let locked { before = locked } else { before = try await lock(user, currency) }
        let returned = held - used
        let repaid = min(before.debt, returned)
        try await executor.execute(
            """
            UPDATE positions SET held = held - \(held), available = available + \(returned - repaid), debt = debt - \(repaid) \
            WHERE user_id = \(user) AND currency = \(currency)
            """)
        // Used units leave the lots; repaid units pay the debt out of them too.
        try await consumeLots(user, currency, amount: used + repaid)
        try await entry(user, currency, kind: .spend, amount: -used, operation: operation, reference: reference)
        try await debtRepaid(user, currency, repaid)
    }

    private func debtRepaid(_ user: String, _ currency: String, _ repaid: Int64) async throws {
        guard repaid > 0 else { return }
        var data = TallyEventData(userID: user)
        data.currency = currency
        data.amount = repaid
        try await context.outbox.emit(.debtRepaid, data)
    }

    /// Takes back what a lot granted: the unspent part leaves available (as far as available
    /// goes: the rest is held by reservations), and everything else becomes debt.
    /// Returns the amounts removed and turned into debt.
    func clawBack(lotID: Int64, user: String, currency: String, transaction: String) async throws -> (removed: Int64, debt: Int64) {
        let position = try await lock(user, currency)
        let lot = try await executor.fetchOne(
            ClawedLot.self,
            "SELECT \(ClawedLot.Columns.granted), \(ClawedLot.Columns.remaining), \(ClawedLot.Columns.revoked) FROM lots WHERE id = \(lotID)")
        guard let lot, lot.revoked == 0 else { return (0, 0) }
        let removed = min(lot.remaining, position.available)
        let debt = lot.granted - removed
        try await executor.execute(
            "UPDATE positions SET available = available - \(removed), debt = debt + \(debt) WHERE user_id = \(user) AND currency = \(currency)")
        try await executor.execute(
            "UPDATE lots SET remaining = remaining - \(removed), revoked = 1 WHERE id = \(lotID)")
        try await entry(user, currency, kind: .refund, amount: -removed, transaction: transaction)
        try await entry(user, currency, kind: .refundDebt, amount: -debt, transaction: transaction)
        return (removed, debt)
    }

    /// Consumes `amount` from the user's lots, oldest first.
    private func consumeLots(_ user: String, _ currency: String, amount: Int64) async throws {
        var left = amount
        guard left > 0 else { return }
        // Most takes fit in the oldest open lot: then one statement finds it and takes from it
        // (the position's lock keeps the lots still meanwhile). Otherwise nothing changed, and
        // the lots are read and taken from one by one.
        let fitted = try await executor.execute(
            """
            UPDATE lots SET remaining = remaining - \(amount)
            WHERE id = (SELECT id FROM lots WHERE user_id = \(user) AND currency = \(currency) AND remaining > 0 ORDER BY id LIMIT 1)
            AND remaining >= \(amount)
            """)
        if fitted == 1 { return }
        let lots = try await executor.fetchAll(
            OpenLot.self,
            """
            SELECT \(OpenLot.Columns.id), \(OpenLot.Columns.remaining) FROM lots \
            WHERE user_id = \(user) AND currency = \(currency) AND remaining > 0 ORDER BY id LIMIT 64
            """)
        for lot in lots where left > 0 {
            let take = min(left, lot.remaining)
            try await executor.execute("UPDATE lots SET remaining = remaining - \(take) WHERE id = \(lot.id)")
            left -= take
        }
        if left > 0 {
            // More than 64 lots were needed: continue with the next ones.
            guard lots.count == 64 else { throw LedgerInconsistency(reason: "lots of \(user)/\(currency) hold less than the position") }
            try await consumeLots(user, currency, amount: left)
        }
    }
}

extension Ledger.Position: SQLRowDecodable {
    enum Columns {
        static let available = SQLColumn("available")
        static let held = SQLColumn("held")
        static let debt = SQLColumn("debt")
    }

    /// The columns a position is read from.
    static let selection: SQL = "\(Columns.available), \(Columns.held), \(Columns.debt)"

    init(row: SQLRow) throws(SQLDatabaseError) {
        available = try row.int(Columns.available)
        held = try row.int(Columns.held)
        debt = try row.int(Columns.debt)
    }
}

/// Lots and positions disagree: a defect, reported rather than papered over.
struct LedgerInconsistency: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
