public import TallyCore
public import TallySQL

/// What a ledger's host does beside the ledger's own writes, in the same transaction: the
/// server counts entries for its rollups and writes an event when debt is repaid; the device
/// does nothing more.
public protocol LedgerObserver: Sendable {
    /// An entry was written.
    func ledgerEntryWritten(kind: LedgerEntryKind, bucket: LedgerBucket, currency: String, amount: Int64)
    /// `amount` of the holder's debt in `currency` was repaid, from a grant or a returned hold.
    func debtRepaid(holder: String, currency: String, amount: Int64) async throws
}

/// The rules of credits, written once for the device and the server: positions, lots taken
/// oldest first, holds, debt and refunds, each function a step inside the caller's transaction.
///
/// For each holder and currency: `available` (spendable now), `held` (reserved) and `debt`
/// (taken back by a refund after it was spent), all ≥ 0. The ledger records every change of
/// `available + held − debt`, so that sum always equals the sum of the holder's `balance`
/// entries; lots record where units came from, and their `remaining` always sums to
/// `available + held`. Spending takes from the lot delivered first: a purchase delivered late
/// (or restored at a later launch) does not jump ahead of credits already there, whatever its
/// purchase date, and the order is the one a holder's lots were written in on either host.
///
/// Every write that reads before it changes takes ``lock(_:_:)`` first: that row lock
/// serializes concurrent work on one holder's currency on PostgreSQL (READ COMMITTED: each
/// statement after it sees what the previous holder committed), and SQLite has one writer anyway.
///
/// ```swift
/// let ledger = CreditLedger(executor, schema: schema, now: now)
/// try await ledger.grant("device", "credits", amount: 10, kind: .purchase, transaction: "2000000123")
/// let spent = try await ledger.spend("device", "credits", amount: 3, operation: "report-42")
/// ```
public struct CreditLedger: Sendable {
    /// The transaction's executor.
    public let executor: any SQLExecutor
    /// What tables the host keeps (``LedgerSchema``).
    public let schema: LedgerSchema
    /// Now, in epoch milliseconds: every row written carries it.
    public let now: Int64
    let observer: (any LedgerObserver)?

    /// A ledger inside one transaction.
    /// - Parameters:
    ///   - executor: the transaction's executor.
    ///   - schema: what tables the host keeps.
    ///   - now: the write's time in epoch milliseconds.
    ///   - observer: what the host does beside the ledger's writes, if anything.
    public init(_ executor: any SQLExecutor, schema: LedgerSchema, now: Int64, observer: (any LedgerObserver)? = nil) {
        self.executor = executor
        self.schema = schema
        self.now = now
        self.observer = observer
    }

    /// The holder's position in `currency`, in a write or a read; all zero when there is none yet.
    public static func position(_ executor: any SQLExecutor, _ holder: String, _ currency: String) async throws -> CreditPosition {
        try await executor.fetchOne(
            CreditPosition.self, "SELECT \(CreditPosition.selection) FROM positions WHERE user_id = \(holder) AND currency = \(currency)")
            ?? CreditPosition(available: 0, held: 0, debt: 0)
    }

    /// The holder's position in `currency`.
    public func position(_ holder: String, _ currency: String) async throws -> CreditPosition {
        try await Self.position(executor, holder, currency)
    }

    /// Locks the holder's position in `currency` until the transaction ends, making it if
    /// needed, and returns it as it is then.
    @discardableResult
    public func lock(_ holder: String, _ currency: String) async throws -> CreditPosition {
        guard schema.returning else {
            try await executor.execute("INSERT INTO positions (user_id, currency) VALUES (\(holder), \(currency)) ON CONFLICT (user_id, currency) DO NOTHING")
            return try await position(holder, currency)
        }
        // An upsert that changes nothing: one statement that makes the row, locks it and reads it.
        let position = try await executor.fetchOne(
            CreditPosition.self,
            """
            INSERT INTO positions (user_id, currency) VALUES (\(holder), \(currency))
            ON CONFLICT (user_id, currency) DO UPDATE SET available = positions.available
            RETURNING \(CreditPosition.selection)
            """)
        guard let position else { throw LedgerInconsistency(reason: "the position of \(holder)/\(currency) was not returned") }
        return position
    }

    /// Writes one entry; an entry of nothing is not written.
    public func entry(
        _ holder: String, _ currency: String, kind: LedgerEntryKind, amount: Int64, bucket: LedgerBucket = .balance,
        transaction: String? = nil, operation: String? = nil, reference: String? = nil
    ) async throws {
        guard amount != 0 else { return }
        observer?.ledgerEntryWritten(kind: kind, bucket: bucket, currency: currency, amount: amount)
        try await executor.execute(
            """
            INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, transaction_id, operation_id, reference, created_at)
            VALUES (\(holder), \(currency), \(bucket), \(kind), \(amount), \(transaction), \(operation), \(reference), \(now))
            """)
    }

    /// Adds `amount` as a new lot, whose source is `kind`; debt is repaid from it first.
    /// Returns what was repaid.
    // `@inline(never)`: Swift 6.3.1's optimizer crashes (signal 11 in LLVM's coroutine
    // splitting) when this async method is inlined into the hosts' write closures.
    @discardableResult
    @inline(never)
    public func grant(
        _ holder: String, _ currency: String, amount: Int64, kind: LedgerEntryKind,
        transaction: String? = nil, operation: String? = nil, reference: String? = nil
    ) async throws -> Int64 {
        guard amount > 0 else { throw LedgerInconsistency(reason: "a grant of \(amount) \(currency)") }
        let before = try await lock(holder, currency)
        let repaid = min(before.debt, amount)
        try await executor.execute(
            "UPDATE positions SET available = available + \(amount - repaid), debt = debt - \(repaid) WHERE user_id = \(holder) AND currency = \(currency)")
        try await executor.execute(
            """
            INSERT INTO lots (user_id, currency, source, transaction_id, granted, remaining, created_at)
            VALUES (\(holder), \(currency), \(kind), \(transaction), \(amount), \(amount - repaid), \(now))
            """)
        try await entry(holder, currency, kind: kind, amount: amount, transaction: transaction, operation: operation, reference: reference)
        try await debtRepaid(holder, currency, repaid)
        return repaid
    }

    /// Takes `amount` from `available` if there is that much; false (and no change) if not.
    /// An amount of zero or less changes nothing.
    public func spend(
        _ holder: String, _ currency: String, amount: Int64, kind: LedgerEntryKind = .spend,
        operation: String? = nil, reference: String? = nil
    ) async throws -> Bool {
        guard amount > 0 else { return true }
        let changed = try await executor.execute(
            "UPDATE positions SET available = available - \(amount) WHERE user_id = \(holder) AND currency = \(currency) AND available >= \(amount)")
        guard changed == 1 else { return false }
        try await take(holder, currency, amount: amount, kind: kind, operation: operation)
        try await entry(holder, currency, kind: kind, amount: -amount, operation: operation, reference: reference)
        return true
    }

    /// Moves `amount` from available to held; false (and no change) if not enough is available.
    /// An amount of zero or less changes nothing.
    public func hold(_ holder: String, _ currency: String, amount: Int64) async throws -> Bool {
        guard amount > 0 else { return true }
        let changed = try await executor.execute(
            """
            UPDATE positions SET available = available - \(amount), held = held + \(amount) \
            WHERE user_id = \(holder) AND currency = \(currency) AND available >= \(amount)
            """)
        return changed == 1
    }

    /// Ends a hold of `held`: `used` of it is spent, the rest returns to available, repaying debt first.
    /// - Parameter locked: the position as the caller locked it in this transaction, if it did.
    // `@inline(never)`: see ``grant(_:_:amount:kind:transaction:operation:reference:)``.
    @inline(never)
    public func settleHold(
        _ holder: String, _ currency: String, held: Int64, used: Int64, operation: String?, reference: String?, locked: CreditPosition? = nil
    ) async throws {
        guard used >= 0, used <= held else { throw LedgerInconsistency(reason: "\(used) used of a hold of \(held) \(currency)") }
        guard held > 0 else { return }
        let before: CreditPosition
        if let locked { before = locked } else { before = try await lock(holder, currency) }
        let returned = held - used
        let repaid = min(before.debt, returned)
        try await executor.execute(
            """
            UPDATE positions SET held = held - \(held), available = available + \(returned - repaid), debt = debt - \(repaid) \
            WHERE user_id = \(holder) AND currency = \(currency)
            """)
        // Used units leave the lots; repaid units pay the debt out of them too. Where takes are
        // kept, the two are told apart; otherwise one pass takes both.
        if schema.recordsTakes {
            try await take(holder, currency, amount: used, kind: .spend, operation: operation)
            try await take(holder, currency, amount: repaid, kind: .repay, operation: operation)
        } else {
            try await take(holder, currency, amount: used + repaid, kind: .spend, operation: operation)
        }
        try await entry(holder, currency, kind: .spend, amount: -used, operation: operation, reference: reference)
        try await debtRepaid(holder, currency, repaid)
    }

    private func debtRepaid(_ holder: String, _ currency: String, _ repaid: Int64) async throws {
        guard repaid > 0 else { return }
        try await observer?.debtRepaid(holder: holder, currency: currency, amount: repaid)
    }

    /// The lots a transaction granted and no refund took back yet, in the order they were written.
    public func unrevokedLots(transaction: String) async throws -> [GrantedLot] {
        try await executor.fetchAll(
            GrantedLot.self,
            """
            SELECT \(GrantedLot.Columns.id), \(GrantedLot.Columns.currency), \(GrantedLot.Columns.granted) FROM lots
            WHERE transaction_id = \(transaction) AND revoked = 0 ORDER BY id
            """)
    }

    /// Takes back what a lot granted: the unspent part leaves available (as far as available
    /// goes: the rest is held by reservations), and everything else becomes debt.
    /// Returns the amounts removed and turned into debt; nothing for a lot taken back before.
    @discardableResult
    public func clawBack(lotID: Int64, holder: String, currency: String, transaction: String) async throws -> (removed: Int64, debt: Int64) {
        let position = try await lock(holder, currency)
        let lot = try await executor.fetchOne(
            ClawedLot.self,
            "SELECT \(ClawedLot.Columns.granted), \(ClawedLot.Columns.remaining), \(ClawedLot.Columns.revoked) FROM lots WHERE id = \(lotID)")
        guard let lot, lot.revoked == 0 else { return (0, 0) }
        let removed = min(lot.remaining, position.available)
        let debt = lot.granted - removed
        try await executor.execute(
            "UPDATE positions SET available = available - \(removed), debt = debt + \(debt) WHERE user_id = \(holder) AND currency = \(currency)")
        try await executor.execute(
            "UPDATE lots SET remaining = remaining - \(removed), revoked = 1 WHERE id = \(lotID)")
        try await entry(holder, currency, kind: .refund, amount: -removed, transaction: transaction)
        try await entry(holder, currency, kind: .refundDebt, amount: -debt, transaction: transaction)
        return (removed, debt)
    }

    /// Takes `amount` from the holder's lots, oldest first, keeping each take where takes are kept.
    private func take(_ holder: String, _ currency: String, amount: Int64, kind: LedgerEntryKind, operation: String?) async throws {
        var left = amount
        guard left > 0 else { return }
        if !schema.recordsTakes {
            // Most takes fit in the oldest open lot: then one statement finds it and takes from
            // it (the position's lock keeps the lots still meanwhile). Otherwise nothing
            // changed, and the lots are read and taken from one by one.
            let fitted = try await executor.execute(
                """
                UPDATE lots SET remaining = remaining - \(amount)
                WHERE id = (SELECT id FROM lots WHERE user_id = \(holder) AND currency = \(currency) AND remaining > 0 ORDER BY id LIMIT 1)
                AND remaining >= \(amount)
                """)
            if fitted == 1 { return }
        }
        let lots = try await executor.fetchAll(
            OpenLot.self,
            """
            SELECT \(OpenLot.Columns.id), \(OpenLot.Columns.remaining) FROM lots \
            WHERE user_id = \(holder) AND currency = \(currency) AND remaining > 0 ORDER BY id LIMIT 64
            """)
        for lot in lots where left > 0 {
            let taken = min(left, lot.remaining)
            try await executor.execute("UPDATE lots SET remaining = remaining - \(taken) WHERE id = \(lot.id)")
            if schema.recordsTakes {
                try await executor.execute(
                    """
                    INSERT INTO lot_takes (lot_id, kind, amount, operation_id, created_at)
                    VALUES (\(lot.id), \(kind), \(taken), \(operation), \(now))
                    """)
            }
            left -= taken
        }
        if left > 0 {
            // More than 64 lots were needed: continue with the next ones.
            guard lots.count == 64 else { throw LedgerInconsistency(reason: "lots of \(holder)/\(currency) hold less than the position") }
            try await take(holder, currency, amount: left, kind: kind, operation: operation)
        }
    }

    /// Whether every position of the holder agrees with its entries and lots: the entries sum to
    /// `available + held − debt`, and the lots' `remaining` to `available + held`, in every
    /// currency the holder has a position, a lot or an entry in.
    public static func consistent(_ executor: any SQLExecutor, holder: String) async throws -> Bool {
        let sums = try await executor.fetchAll(
            HolderSums.self,
            """
            SELECT COALESCE(p.available, 0) AS available, COALESCE(p.held, 0) AS held, COALESCE(p.debt, 0) AS debt,
                (SELECT COALESCE(SUM(e.amount), 0) FROM ledger_entries e
                    WHERE e.user_id = \(holder) AND e.currency = c.currency AND e.bucket = \(LedgerBucket.balance)) AS entries,
                (SELECT COALESCE(SUM(l.remaining), 0) FROM lots l WHERE l.user_id = \(holder) AND l.currency = c.currency) AS lots
            FROM (SELECT currency FROM positions WHERE user_id = \(holder) UNION SELECT currency FROM lots WHERE user_id = \(holder)
                UNION SELECT currency FROM ledger_entries WHERE user_id = \(holder)) c
            LEFT JOIN positions p ON p.user_id = \(holder) AND p.currency = c.currency
            """)
        return sums.allSatisfy { $0.entries == $0.available + $0.held - $0.debt && $0.lots == $0.available + $0.held }
    }
}

/// What a holder has in one currency: a row of `positions`.
public struct CreditPosition: Equatable, Sendable {
    /// Spendable now.
    public var available: Int64
    /// Held by open reservations.
    public var held: Int64
    /// Taken back by a refund after it was spent; repaid by the next grant or returned hold.
    public var debt: Int64

    /// A position.
    public init(available: Int64, held: Int64, debt: Int64) {
        self.available = available
        self.held = held
        self.debt = debt
    }
}

extension CreditPosition: SQLRowDecodable {
    /// The columns of `positions` a position is read from.
    public enum Columns: Sendable {
        public static let available = SQLColumn("available")
        public static let held = SQLColumn("held")
        public static let debt = SQLColumn("debt")
    }

    /// The columns a position is read from, to select.
    public static let selection: SQL = "\(Columns.available), \(Columns.held), \(Columns.debt)"

    public init(row: SQLRow) throws(SQLDatabaseError) {
        available = try row.int(Columns.available)
        held = try row.int(Columns.held)
        debt = try row.int(Columns.debt)
    }
}

/// A lot a transaction granted: its id, currency and amount.
public struct GrantedLot: SQLRowDecodable, Sendable {
    enum Columns {
        static let id = SQLColumn("id")
        static let currency = SQLColumn("currency")
        static let granted = SQLColumn("granted")
    }

    /// The lot's id; later lots have greater ones.
    public let id: Int64
    /// The currency it granted.
    public let currency: String
    /// How much it granted.
    public let granted: Int64

    public init(row: SQLRow) throws(SQLDatabaseError) {
        id = try row.int(Columns.id)
        currency = try row.text(Columns.currency)
        granted = try row.int(Columns.granted)
    }
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

/// A lot with units left, as spending takes from it.
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

/// A position beside the sums of its entries and lots.
private struct HolderSums: SQLRowDecodable {
    enum Columns {
        static let available = SQLColumn("available")
        static let held = SQLColumn("held")
        static let debt = SQLColumn("debt")
        static let entries = SQLColumn("entries")
        static let lots = SQLColumn("lots")
    }

    let available: Int64
    let held: Int64
    let debt: Int64
    let entries: Int64
    let lots: Int64

    init(row: SQLRow) throws(SQLDatabaseError) {
        available = try row.int(Columns.available)
        held = try row.int(Columns.held)
        debt = try row.int(Columns.debt)
        entries = try row.int(Columns.entries)
        lots = try row.int(Columns.lots)
    }
}

/// Lots and positions disagree: a defect, reported rather than papered over.
public struct LedgerInconsistency: Error, CustomStringConvertible {
    /// What disagrees.
    public let reason: String

    /// A disagreement, said.
    public init(reason: String) { self.reason = reason }
    /// What disagrees.
    public var description: String { reason }
}
