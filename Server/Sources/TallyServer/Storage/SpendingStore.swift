import Foundation
public import TallyCore
import TallyLedger
import TallySQL

/// Spending: spends and reservations of a user's credits, allowance first, then the oldest
/// lots; each idempotent by its key. It writes through the unit of work the stores share
/// (``Transactions``).
public struct SpendingStore: TransactionalStore {
    let transactions: Transactions
    let catalog: TallyCatalog

    func validate(currency: String, amount: Int64, key: String) throws(StorageError) {
        guard catalog.hasCurrency(currency) else { throw StorageError(.unknownCurrency, "no currency \(currency) in the catalog") }
        guard amount > 0, amount <= TallyCatalog.maximumAmount else {
            throw StorageError(.invalidAmount, "amount must be 1 to \(TallyCatalog.maximumAmount)")
        }
        guard !key.isEmpty, key.unicodeScalars.count <= 128 else {
            throw StorageError(.invalidIdempotencyKey, "idempotency_key must be 1 to 128 characters")
        }
    }

    /// Spends from the allowance first, then the oldest lots; idempotent by key.
    public func spend(user: User, request: SpendRequest) async throws -> SpendResponse {
        try validate(currency: request.currency, amount: request.amount, key: request.idempotencyKey)
        if let reference = request.reference, reference.unicodeScalars.count > 256 {
            throw StorageError(.invalidRequest, "reference must be at most 256 characters")
        }
        let requestHash = SQLStorage.hash(request.currency, String(request.amount), request.reference ?? "")
        // A spend found its key taken, and the answer is read after it. Where the spend that took
        // it did not commit after all (its SQLite batch failed), the key is free again: the spend
        // runs once more.
        for _ in 0..<3 {
            do {
                return try await spendOnce(user: user, request: request, requestHash: requestHash)
            } catch is SpentBefore {
                if let answer = try await replay(user: user, request: request, requestHash: requestHash) { return answer }
            }
        }
        throw SQLDatabaseError(.retryable, "spend \(request.idempotencyKey) conflicted but is not there")
    }

    /// One attempt at a spend: the allowance and the oldest lots, then its key with its answer.
    /// - Throws: ``SpentBefore`` when an earlier spend holds the key (this one rolls back).
    private func spendOnce(user: User, request: SpendRequest, requestHash: String) async throws -> SpendResponse {
        try await write { executor, time in
            let id = RandomID.uuidV7(millis: time)
            let (ledger, allowances, window, fromAllowance, fromBalance, locked) = try await allocate(
                executor, user: user.id, currency: request.currency, amount: request.amount, time: time)
            if let window, fromAllowance > 0 {
                guard
                    try await allowances.use(
                        window, user: user.id, currency: request.currency, amount: fromAllowance,
                        operation: id, reference: request.reference)
                else {
                    throw LedgerInconsistency(reason: "allowance of \(user.id)/\(request.currency) changed under the position lock")
                }
            }
            guard try await ledger.spend(user.id, request.currency, amount: fromBalance, operation: id, reference: request.reference) else {
                // A retry of a spend that took the last units finds none left: its key answers it.
                if try await Self.stored(executor, user: user.id, key: request.idempotencyKey) != nil { throw SpentBefore() }
                throw StorageError.insufficient(request.currency, available: locked.available + (window?.free ?? 0))
            }
            // The position as locked, less what was spent: nothing else changes it in this transaction.
            var after = locked
            after.available -= fromBalance
            let response = SpendResponse(
                spendID: id, currency: request.currency, amount: request.amount, fromAllowance: fromAllowance, fromBalance: fromBalance,
                balance: try await accounts.balance(executor, user: user.id, currency: request.currency, time: time, position: after),
                replayed: false)
            // The key is written last, with its answer. If a spend holds it already (committed,
            // or on PostgreSQL running now: this insert waits for it to end), nothing is
            // inserted, and this one rolls back and answers what that one did.
            let claimed = try await executor.execute(
                """
                INSERT INTO spends (id, user_id, idempotency_key, request_hash, currency, amount, reference, response_json, created_at)
                VALUES (\(id), \(user.id), \(request.idempotencyKey), \(requestHash), \(request.currency), \(request.amount), \(request.reference), \
                \(SQLStorage.encode(response)), \(time)) ON CONFLICT (user_id, idempotency_key) DO NOTHING
                """)
            guard claimed == 1 else { throw SpentBefore() }
            var data = SQLStorage.creditsEvent(user: user.id, currency: request.currency, amount: request.amount)
            data.spendID = id
            data.reference = request.reference
            try await executor.outbox.emit(.creditsSpent, data)
            return response
        }
    }

    /// The answer kept under a spend's key, as a replay; nil when the key is free.
    private func replay(user: User, request: SpendRequest, requestHash: String) async throws -> SpendResponse? {
        // Read as a write: after the spend that holds the key, which may not have committed yet
        // (SQLite commits a batch of writes at once).
        try await write { executor, _ in
            guard let existing = try await Self.stored(executor, user: user.id, key: request.idempotencyKey) else { return nil }
            guard existing.requestHash == requestHash else {
                throw StorageError(.idempotencyKeyReused, "idempotency_key \(request.idempotencyKey) was used for another spend")
            }
            var first = try SQLStorage.decode(SpendResponse.self, existing.responseJSON)
            first.replayed = true
            return first
        }
    }

    /// A spend's key was taken by an earlier spend: the work done for it is rolled back and the
    /// earlier answer given.
    private struct SpentBefore: Error {}

    /// The request's hash and the answer kept under a spend's key, if the key was used.
    private static func stored(_ executor: any SQLExecutor, user: String, key: String) async throws -> StoredAnswer? {
        try await executor.fetchOne(
            StoredAnswer.self,
            """
            SELECT \(StoredAnswer.Columns.requestHash), \(StoredAnswer.Columns.responseJSON) FROM spends \
            WHERE user_id = \(user) AND idempotency_key = \(key)
            """)
    }

    // MARK: - Reservations

    /// Holds an amount for metered use; idempotent by key.
    public func reserve(user: User, request: ReservationRequest) async throws -> Reservation {
        try validate(currency: request.currency, amount: request.amount, key: request.idempotencyKey)
        guard request.ttlSeconds > 0, request.ttlSeconds <= catalog.maximumReservationSeconds else {
            throw StorageError(.invalidRequest, "ttl_seconds must be 1 to \(catalog.maximumReservationSeconds)")
        }
        let requestHash = SQLStorage.hash(request.currency, String(request.amount), String(request.ttlSeconds))
        return try await write { executor, time in
            let id = RandomID.uuidV7(millis: time)
            // Claimed first, before anything is read; the split between allowance and balance is set below.
            let claimed = try await executor.execute(
                """
                INSERT INTO reservations (id, user_id, idempotency_key, request_hash, currency, amount, from_allowance, from_balance,
                    status, expires_at, created_at)
                VALUES (\(id), \(user.id), \(request.idempotencyKey), \(requestHash), \(request.currency), \(request.amount), 0, \(request.amount), 'held', \
                \(time + request.ttlSeconds * 1000), \(time)) ON CONFLICT (user_id, idempotency_key) DO NOTHING
                """)
            if claimed == 0 {
                guard
                    let existing = try await executor.fetchOne(
                        ReservationRow.self, "SELECT * FROM reservations WHERE user_id = \(user.id) AND idempotency_key = \(request.idempotencyKey)")
                else {
                    throw SQLDatabaseError(.retryable, "reservation \(request.idempotencyKey) conflicted but is not there")
                }
                guard existing.requestHash == requestHash else {
                    throw StorageError(.idempotencyKeyReused, "idempotency_key \(request.idempotencyKey) was used for another reservation")
                }
                var reservation = try await reservation(executor, existing, time: time)
                reservation.replayed = true
                return reservation
            }
            let (ledger, allowances, window, fromAllowance, fromBalance, locked) = try await allocate(
                executor, user: user.id, currency: request.currency, amount: request.amount, time: time)
            if let window, fromAllowance > 0 {
                guard try await allowances.hold(window, currency: request.currency, amount: fromAllowance) else {
                    throw LedgerInconsistency(reason: "allowance of \(user.id)/\(request.currency) changed under the position lock")
                }
                try await executor.execute(
                    """
                    UPDATE reservations SET from_allowance = \(fromAllowance), from_balance = \(fromBalance), \
                    allowance_original_transaction_id = \(window.originalTransactionID),
                        allowance_window_start = \(window.start)
                    WHERE id = \(id)
                    """)
            }
            guard try await ledger.hold(user.id, request.currency, amount: fromBalance) else {
                throw StorageError.insufficient(request.currency, available: locked.available + (window?.free ?? 0))
            }
            var data = SQLStorage.creditsEvent(user: user.id, currency: request.currency, amount: request.amount)
            data.reservationID = id
            data.expiresAt = SQLStorage.date(time + request.ttlSeconds * 1000)
            try await executor.outbox.emit(.reservationCreated, data)
            return try await reservation(executor, id: id, user: user.id, time: time)
        }
    }

    /// Spends what a held reservation used and returns the rest.
    public func commit(user: User, reservationID: String, used: Int64) async throws -> Reservation {
        guard used >= 0, used <= TallyCatalog.maximumAmount else {
            throw StorageError(.invalidAmount, "used must be 0 to \(TallyCatalog.maximumAmount)")
        }
        return try await write { executor, time in
            let row = try await reservationRow(executor, id: reservationID, user: user.id)
            let status = row.status
            if status == .committed, row.used == used {
                var reservation = try await reservation(executor, row, time: time)
                reservation.replayed = true
                return reservation
            }
            guard status == .held, row.expiresAt > time else {
                throw StorageError(.reservationClosed, "reservation \(reservationID) is \(status == .held ? ReservationStatus.expired : status)")
            }
            guard used <= row.amount else {
                throw StorageError(.usedExceedsReservation, "used \(used) is more than the \(row.amount) reserved")
            }
            try await settle(executor, row, used: used, status: .committed, time: time)
            return try await reservation(executor, id: reservationID, user: user.id, time: time)
        }
    }

    /// Returns a held reservation whole.
    public func release(user: User, reservationID: String) async throws -> Reservation {
        try await write { executor, time in
            let row = try await reservationRow(executor, id: reservationID, user: user.id)
            switch row.status {
            case .released, .expired:
                var reservation = try await reservation(executor, row, time: time)
                reservation.replayed = true
                return reservation
            case .committed:
                throw StorageError(.reservationClosed, "reservation \(reservationID) is committed")
            default:
                try await settle(executor, row, used: 0, status: row.expiresAt > time ? .released : .expired, time: time)
                return try await reservation(executor, id: reservationID, user: user.id, time: time)
            }
        }
    }

    /// Releases every held reservation whose time is up.
    public func expireReservations() async throws -> Int {
        try await write { executor, time in
            let rows = try await executor.fetchAll(
                ReservationRow.self, "SELECT * FROM reservations WHERE status = 'held' AND expires_at <= \(time) ORDER BY expires_at LIMIT 500")
            for row in rows { try await settle(executor, row, used: 0, status: .expired, time: time) }
            return rows.count
        }
    }

    /// Expires the user's due holds on a currency before it is spent or held again.
    /// How an amount divides between the subscription allowance (first) and the purchased
    /// balance, for a spend or a hold about to take it. Expired holds are returned first, and the
    /// allowance is read under the user's position lock, so the split is what the caller changes.
    func allocate(
        _ executor: WriteContext, user: String, currency: String, amount: Int64, time: Int64
    ) async throws -> (
        ledger: CreditLedger, allowances: Allowances, window: Allowances.Window?, fromAllowance: Int64, fromBalance: Int64, position: CreditPosition
    ) {
        try await expireDue(executor, user: user, currency: currency, time: time)
        let allowances = Allowances(context: executor, catalog: catalog)
        let ledger = executor.ledger
        let position = try await ledger.lock(user, currency)
        let window = try await allowances.current(user, currency)
        let fromAllowance = min(amount, window?.free ?? 0)
        return (ledger, allowances, window, fromAllowance, amount - fromAllowance, position)
    }

    func expireDue(_ executor: WriteContext, user: String, currency: String, time: Int64) async throws {
        let rows = try await executor.fetchAll(
            ReservationRow.self,
            "SELECT * FROM reservations WHERE user_id = \(user) AND currency = \(currency) AND status = 'held' AND expires_at <= \(time)")
        for row in rows { try await settle(executor, row, used: 0, status: .expired, time: time) }
    }

    /// Closes a held reservation: allowance is used first, then balance; the rest returns.
    private func settle(_ executor: WriteContext, _ row: ReservationRow, used: Int64, status: ReservationStatus, time: Int64) async throws {
        let id = row.id
        let closed = try await executor.execute(
            "UPDATE reservations SET status = \(status), used = \(used), closed_at = \(time) WHERE id = \(id) AND status = 'held'")
        guard closed == 1 else { return }
        let user = row.userID
        let currency = row.currency
        let fromAllowance = row.fromAllowance
        let fromBalance = row.fromBalance
        let usedAllowance = min(used, fromAllowance)
        // The position first, as every write to the user's currency locks it (see ``Ledger``).
        let position = try await executor.ledger.lock(user, currency)
        if fromAllowance > 0, let original = row.allowanceOriginalTransactionID, let start = row.allowanceWindowStart {
            try await Allowances(context: executor, catalog: catalog).settle(
                original: original, currency: currency, start: start, held: fromAllowance, used: usedAllowance,
                user: user, operation: id, reference: "reservation")
        }
        try await executor.ledger.settleHold(
            user, currency, held: fromBalance, used: used - usedAllowance, operation: id, reference: "reservation", locked: position)
        var data = SQLStorage.creditsEvent(user: user, currency: currency, amount: row.amount)
        data.reservationID = id
        if status == .committed {
            data.used = used
            try await executor.outbox.emit(.reservationCommitted, data)
        } else {
            data.reason = status.rawValue
            try await executor.outbox.emit(.reservationReleased, data)
        }
    }

    private func reservationRow(_ executor: any SQLExecutor, id: String, user: String) async throws -> ReservationRow {
        guard let row = try await executor.fetchOne(ReservationRow.self, "SELECT * FROM reservations WHERE id = \(id) AND user_id = \(user)") else {
            throw StorageError(.notFound, "no reservation \(id)")
        }
        return row
    }

    private func reservation(_ executor: any SQLExecutor, id: String, user: String, time: Int64) async throws -> Reservation {
        try await reservation(executor, try await reservationRow(executor, id: id, user: user), time: time)
    }

    private func reservation(_ executor: any SQLExecutor, _ row: ReservationRow, time: Int64) async throws -> Reservation {
        var status = row.status
        if status == .held, row.expiresAt <= time { status = .expired }
        return Reservation(
            reservationID: row.id, currency: row.currency, amount: row.amount,
            fromAllowance: row.fromAllowance, fromBalance: row.fromBalance, status: status,
            used: row.used, expiresAt: SQLStorage.date(row.expiresAt),
            balance: try await accounts.balance(executor, user: row.userID, currency: row.currency, time: time),
            replayed: false)
    }

    // MARK: - Rows

    /// A row of `reservations`.
    private struct ReservationRow: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
            static let userID = SQLColumn("user_id")
            static let requestHash = SQLColumn("request_hash")
            static let currency = SQLColumn("currency")
            static let amount = SQLColumn("amount")
            static let fromAllowance = SQLColumn("from_allowance")
            static let fromBalance = SQLColumn("from_balance")
            static let allowanceOriginalTransactionID = SQLColumn("allowance_original_transaction_id")
            static let allowanceWindowStart = SQLColumn("allowance_window_start")
            static let status = SQLColumn("status")
            static let used = SQLColumn("used")
            static let expiresAt = SQLColumn("expires_at")
        }

        let id: String
        let userID: String
        let requestHash: String
        let currency: String
        let amount: Int64
        let fromAllowance: Int64
        let fromBalance: Int64
        let allowanceOriginalTransactionID: String?
        let allowanceWindowStart: Int64?
        let status: ReservationStatus
        let used: Int64?
        let expiresAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.text(Columns.id)
            userID = try row.text(Columns.userID)
            requestHash = try row.text(Columns.requestHash)
            currency = try row.text(Columns.currency)
            amount = try row.int(Columns.amount)
            fromAllowance = try row.int(Columns.fromAllowance)
            fromBalance = try row.int(Columns.fromBalance)
            allowanceOriginalTransactionID = try row.optionalText(Columns.allowanceOriginalTransactionID)
            allowanceWindowStart = try row.optionalInt(Columns.allowanceWindowStart)
            status = try row.code(ReservationStatus.self, Columns.status)
            used = try row.optionalInt(Columns.used)
            expiresAt = try row.int(Columns.expiresAt)
        }
    }
}
