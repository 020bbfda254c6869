public import Foundation
public import TallyCore
import TallySQLite
public import TallyVerify

/// Delivery for apps without a backend: purchases are verified on the device with
/// TallyVerify (Apple Root CA - G3 by default) and credited to a ledger in the device's
/// SQLite database, in one transaction with the purchase record.
///
/// Credits are kept in lots, one per purchase and currency, and spent oldest first. The
/// ledger is append-only (triggers refuse updates and deletes); balances are kept in the
/// same transaction as the entries that change them. A refunded purchase takes back what
/// is left of its lot; what was already spent is recorded as debt, repaid by the next grant.
/// ``creditHistory(currency:)`` lists each lot and each consumption with the lots it took.
///
/// Subscriptions: entitlements come from the transactions recorded here (a purchase, the
/// store's current entitlements at each refresh, the history at a restore), active until the
/// latest known expiry on the device's trusted time. Their `willRenew` is always `nil` and
/// `inGracePeriod` always `false`: the device does not read the store's renewal information yet,
/// so a subscription in a billing grace period reads expired at its expiry date. A Tally server
/// reports both.
///
/// ```swift
/// let database = try LocalDatabase.standard()
/// let ledger = try await OnDeviceLedger(
///     database: database, catalog: catalog,
///     verifier: SignedDataVerifier(.init(bundleID: .equals("com.zorya.app"), appAppleID: .equals(6_450_000_000),
///                                        environments: [.production, .sandbox]), now: { Date() }),
///     now: { Date() })
/// ```
public struct OnDeviceLedger: Delivery {
    /// What the app sells.
    public let catalog: OnDeviceCatalog
    let database: LocalDatabase
    let verifier: SignedDataVerifier
    let now: @Sendable () -> Date
    /// The device's trusted time, shared with the entitlements cache: expiries and holds are
    /// judged on it, so moving the device's clock neither ends a subscription nor extends one.
    let clock: TrustedClock

    /// Opens the ledger in `database`, creating its tables the first time.
    /// - Parameters:
    ///   - database: the device's database.
    ///   - catalog: what each product grants and unlocks.
    ///   - verifier: checks every transaction before it is credited.
    ///   - now: the device's clock.
    ///   - uptime: seconds since the device started. Subscription expiries, holds and the
    ///     ledger's times are judged on the device's trusted time, which advances with uptime
    ///     (the same one ``PurchaseManager`` judges its cache on), so that moving the device's
    ///     clock neither ends a paid subscription nor extends one.
    /// - Throws: ``TallyError`` `invalid_request` for a catalog with a problem, `storage_failed`.
    public init(
        database: LocalDatabase, catalog: OnDeviceCatalog, verifier: SignedDataVerifier, now: @escaping @Sendable () -> Date,
        uptime: @escaping @Sendable () -> TimeInterval = PurchaseManager.timeSinceBoot
    ) async throws(TallyError) {
        if let problem = catalog.problem { throw TallyError(.invalidRequest, "the on-device catalog is wrong: \(problem)") }
        self.database = database
        self.catalog = catalog
        self.verifier = verifier
        self.now = now
        self.clock = TrustedClock(uptime: uptime)
        try await database.migrate(TrustedClock.migrations)
        try await database.migrate(Self.migrations)
    }

    static let migrations: [(name: String, sql: String)] = [
        (
            "ledger_0001",
            """
            CREATE TABLE ledger_purchases (
                transaction_id TEXT PRIMARY KEY,
                original_transaction_id TEXT NOT NULL,
                product_id TEXT NOT NULL,
                quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10),
                purchase_date INTEGER,
                expires_date INTEGER,
                price INTEGER,
                currency TEXT,
                environment TEXT,
                jws TEXT NOT NULL,
                recorded_at INTEGER NOT NULL,
                revoked_at INTEGER
            );
            CREATE TABLE ledger_lots (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                transaction_id TEXT NOT NULL REFERENCES ledger_purchases (transaction_id),
                currency TEXT NOT NULL,
                amount INTEGER NOT NULL CHECK (amount > 0),
                acquired_at INTEGER NOT NULL,
                UNIQUE (transaction_id, currency)
            );
            CREATE TABLE ledger_entries (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                currency TEXT NOT NULL,
                bucket TEXT NOT NULL CHECK (bucket IN (\(LedgerBucket.sqlList))),
                kind TEXT NOT NULL CHECK (kind IN (\(LedgerEntryKind.sqlList))),
                amount INTEGER NOT NULL CHECK (amount <> 0),
                lot_id INTEGER REFERENCES ledger_lots (id),
                transaction_id TEXT,
                operation_id TEXT,
                reference TEXT,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX ledger_entries_lot ON ledger_entries (lot_id);
            CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
                BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
            CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
                BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
            CREATE TABLE ledger_balances (
                currency TEXT PRIMARY KEY,
                available INTEGER NOT NULL CHECK (available >= 0),
                held INTEGER NOT NULL CHECK (held >= 0),
                debt INTEGER NOT NULL CHECK (debt >= 0)
            );
            CREATE TABLE ledger_spends (
                idempotency_key TEXT PRIMARY KEY,
                currency TEXT NOT NULL,
                amount INTEGER NOT NULL CHECK (amount > 0),
                reference TEXT,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE ledger_reservations (
                id TEXT PRIMARY KEY,
                idempotency_key TEXT NOT NULL UNIQUE,
                currency TEXT NOT NULL,
                amount INTEGER NOT NULL CHECK (amount > 0),
                status TEXT NOT NULL CHECK (status IN (\(ReservationStatus.sqlList))),
                used INTEGER CHECK (used >= 0 AND used <= amount),
                reference TEXT,
                expires_at INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            );
            -- The audit trail of consumptions and the lots are history too: never changed, never removed.
            CREATE TRIGGER ledger_spends_no_update BEFORE UPDATE ON ledger_spends
                BEGIN SELECT RAISE(ABORT, 'consumptions are append-only'); END;
            CREATE TRIGGER ledger_spends_no_delete BEFORE DELETE ON ledger_spends
                BEGIN SELECT RAISE(ABORT, 'consumptions are append-only'); END;
            CREATE TRIGGER ledger_lots_no_update BEFORE UPDATE ON ledger_lots
                BEGIN SELECT RAISE(ABORT, 'lots are append-only'); END;
            CREATE TRIGGER ledger_lots_no_delete BEFORE DELETE ON ledger_lots
                BEGIN SELECT RAISE(ABORT, 'lots are append-only'); END;
            CREATE TRIGGER ledger_purchases_no_delete BEFORE DELETE ON ledger_purchases
                BEGIN SELECT RAISE(ABORT, 'purchases are never removed'); END;
            """
        )
    ]

    // MARK: - Delivery

    public func catalog(language: TallyLanguage) async throws(TallyError) -> [ProductGrant] {
        catalog.grants(in: language)
    }

    public func prepare(productID: String) async throws(TallyError) -> PurchaseTicket {
        guard catalog.product(productID) != nil else {
            throw TallyError(.productNotFound, "\(productID) is not in the on-device catalog")
        }
        return PurchaseTicket(productID: productID)
    }

    public func abandon(_ ticket: PurchaseTicket, reason: String) async throws(TallyError) {}

    public func deliver(_ transaction: StoreTransaction, ticket: PurchaseTicket?) async throws(TallyError) -> DeliveryReceipt {
        let payload = try await verified(transaction.jws)
        guard let product = catalog.product(payload.productId ?? "") else {
            // Not finished, so the store keeps it until an app version that knows the product delivers it.
            throw TallyError(.productNotFound, "\(payload.productId ?? "?") is not in the on-device catalog")
        }
        let wall = now(), clock = clock
        return try await database.write { connection in
            let time = try clock.millis(in: connection, wall: wall)
            try Self.expireReservations(connection, now: time)
            var granted: [Amount] = []
            var replayed: Bool
            if payload.revocationDate != nil {
                replayed = try !Self.revoke(connection, payload: payload, jws: transaction.jws, time: time)
            } else {
                replayed = try !Self.record(connection, payload: payload, jws: transaction.jws, time: time)
                if !replayed {
                    granted = try Self.grant(connection, product: product, payload: payload, time: time)
                } else {
                    granted = try Self.grants(connection, transactionID: payload.transactionId ?? "")
                }
            }
            return DeliveryReceipt(
                transactionID: payload.transactionId ?? "", productID: product.id, granted: granted,
                balances: try Self.balances(connection), entitlements: try Self.entitlements(connection, catalog: catalog, now: time),
                replayed: replayed)
        }
    }

    public func account(storeEntitlements: [StoreTransaction]) async throws(TallyError) -> AccountSnapshot {
        var payloads: [(TransactionPayload, String)] = []
        for transaction in storeEntitlements {
            // What does not verify is left out: it unlocks nothing.
            if let payload = try? await verified(transaction.jws), catalog.product(payload.productId ?? "") != nil {
                payloads.append((payload, transaction.jws))
            }
        }
        let recorded = payloads
        let wall = now(), clock = clock
        return try await database.write { connection in
            let time = try clock.millis(in: connection, wall: wall)
            try Self.expireReservations(connection, now: time)
            for (payload, jws) in recorded where payload.revocationDate == nil && payload.type != .consumable {
                try Self.record(connection, payload: payload, jws: jws, time: time)
            }
            return AccountSnapshot(
                balances: try Self.balances(connection), entitlements: try Self.entitlements(connection, catalog: catalog, now: time))
        }
    }

    public func spend(_ order: SpendOrder) async throws(TallyError) -> SpendResponse {
        try validate(currency: order.currency, amount: order.amount, key: order.idempotencyKey)
        let wall = now(), clock = clock
        return try await database.write { connection in
            let time = try clock.millis(in: connection, wall: wall)
            try Self.expireReservations(connection, now: time)
            if let row = try connection.query("SELECT * FROM ledger_spends WHERE idempotency_key = ?", [.text(order.idempotencyKey)]).first {
                guard try row.string("currency") == order.currency, try row.int("amount") == order.amount else {
                    throw TallyError(.invalidRequest, "idempotency key \(order.idempotencyKey) was used for another spend")
                }
                return SpendResponse(
                    spendId: order.idempotencyKey, currency: order.currency, amount: order.amount, fromAllowance: 0,
                    fromBalance: order.amount, balance: try Self.balance(connection, order.currency), replayed: true)
            }
            let balance = try Self.balance(connection, order.currency)
            guard balance.available >= order.amount else {
                throw TallyError(
                    .insufficientCredits, "\(order.amount) \(order.currency) asked, \(balance.available) available",
                    currency: order.currency, available: balance.available)
            }
            try Self.take(
                connection, currency: order.currency, amount: order.amount, kind: .spend, operation: order.idempotencyKey,
                reference: order.reference, time: time)
            try Self.adjust(connection, order.currency, available: -order.amount)
            try connection.query(
                "INSERT INTO ledger_spends (idempotency_key, currency, amount, reference, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(order.idempotencyKey), .text(order.currency), .integer(order.amount), .optional(order.reference), .integer(time)])
            return SpendResponse(
                spendId: order.idempotencyKey, currency: order.currency, amount: order.amount, fromAllowance: 0,
                fromBalance: order.amount, balance: try Self.balance(connection, order.currency), replayed: false)
        }
    }

    public func reserve(_ order: ReservationOrder) async throws(TallyError) -> Reservation {
        try validate(currency: order.currency, amount: order.amount, key: order.idempotencyKey)
        guard (1...86_400).contains(order.ttlSeconds) else {
            throw TallyError(.invalidRequest, "ttl_seconds must be between 1 and 86400")
        }
        let wall = now(), clock = clock
        return try await database.write { connection in
            let time = try clock.millis(in: connection, wall: wall)
            try Self.expireReservations(connection, now: time)
            if let row = try connection.query(
                "SELECT * FROM ledger_reservations WHERE idempotency_key = ?", [.text(order.idempotencyKey)]
            ).first {
                guard try row.string("currency") == order.currency, try row.int("amount") == order.amount else {
                    throw TallyError(.invalidRequest, "idempotency key \(order.idempotencyKey) was used for another reservation")
                }
                return try Self.reservation(connection, row, replayed: true)
            }
            let balance = try Self.balance(connection, order.currency)
            guard balance.available >= order.amount else {
                throw TallyError(
                    .insufficientCredits, "\(order.amount) \(order.currency) asked, \(balance.available) available",
                    currency: order.currency, available: balance.available)
            }
            let id = "res_" + UUID().uuidString.lowercased()
            try connection.query(
                """
                INSERT INTO ledger_reservations (id, idempotency_key, currency, amount, status, reference, expires_at, created_at)
                VALUES (?, ?, ?, ?, '\(ReservationStatus.held)', ?, ?, ?)
                """,
                [
                    .text(id), .text(order.idempotencyKey), .text(order.currency), .integer(order.amount), .optional(order.reference),
                    .integer(time + order.ttlSeconds * 1000), .integer(time),
                ])
            try Self.entry(connection, order.currency, bucket: .held, kind: .hold, amount: order.amount, operation: id, time: time)
            try Self.adjust(connection, order.currency, available: -order.amount, held: order.amount)
            return try Self.reservation(connection, id: id, replayed: false)
        }
    }

    public func commit(reservationID: String, used: Int64) async throws(TallyError) -> Reservation {
        guard used >= 0 else { throw TallyError(.invalidRequest, "used must not be negative") }
        let wall = now(), clock = clock
        return try await database.write { connection in
            let time = try clock.millis(in: connection, wall: wall)
            let (row, status, amount, currency) = try Self.reservationRow(connection, reservationID, now: time)
            if status == .committed, row["used"].integer == used { return try Self.reservation(connection, row, replayed: true) }
            guard status == .held else { throw TallyError(.reservationClosed, "reservation \(reservationID) is \(status)") }
            guard used <= amount else { throw TallyError(.invalidRequest, "used \(used) is more than the \(amount) reserved") }
            if used > 0 {
                let reference = row["reference"].text
                try Self.take(connection, currency: currency, amount: used, kind: .spend, operation: reservationID, reference: reference, time: time)
                // The audit trail of spends lists what a reservation used, under the reservation's id.
                try connection.query(
                    "INSERT INTO ledger_spends (idempotency_key, currency, amount, reference, created_at) VALUES (?, ?, ?, ?, ?)",
                    [.text(reservationID), .text(currency), .integer(used), .optional(reference), .integer(time)])
            }
            try Self.entry(connection, currency, bucket: .held, kind: .commit, amount: -amount, operation: reservationID, time: time)
            try Self.adjust(connection, currency, held: -amount)
            try Self.giveBack(connection, currency, amount: amount - used, operation: reservationID, time: time)
            try connection.query(
                "UPDATE ledger_reservations SET status = '\(ReservationStatus.committed)', used = ? WHERE id = ?", [.integer(used), .text(reservationID)])
            return try Self.reservation(connection, id: reservationID, replayed: false)
        }
    }

    /// A reservation as it stands once the holds expired by `time` have been returned.
    private static func reservationRow(
        _ connection: SQLiteConnection, _ reservationID: String, now time: Int64
    ) throws -> (row: SQLiteRow, status: ReservationStatus, amount: Int64, currency: String) {
        try expireReservations(connection, now: time)
        guard let row = try connection.query("SELECT * FROM ledger_reservations WHERE id = ?", [.text(reservationID)]).first else {
            throw TallyError(.invalidRequest, "no reservation \(reservationID)")
        }
        return (row, ReservationStatus(rawValue: try row.string("status")), try row.int("amount"), try row.string("currency"))
    }

    public func release(reservationID: String) async throws(TallyError) -> Reservation {
        let wall = now(), clock = clock
        return try await database.write { connection in
            let time = try clock.millis(in: connection, wall: wall)
            let (row, status, amount, currency) = try Self.reservationRow(connection, reservationID, now: time)
            if status == .released || status == .expired { return try Self.reservation(connection, row, replayed: true) }
            guard status == .held else { throw TallyError(.reservationClosed, "reservation \(reservationID) is \(status)") }
            try Self.entry(connection, currency, bucket: .held, kind: .release, amount: -amount, operation: reservationID, time: time)
            try Self.adjust(connection, currency, held: -amount)
            try Self.giveBack(connection, currency, amount: amount, operation: reservationID, time: time)
            try connection.query("UPDATE ledger_reservations SET status = '\(ReservationStatus.released)' WHERE id = ?", [.text(reservationID)])
            return try Self.reservation(connection, id: reservationID, replayed: false)
        }
    }

    // MARK: - Audit

    public func localAccount() async throws(TallyError) -> AccountSnapshot? {
        try await account(storeEntitlements: [])
    }

    /// Every lot (one per purchase and currency) with what is left of it, and every
    /// consumption with the lots it was taken from, oldest first; nothing here is ever removed.
    public func creditHistory(currency: String?) async throws(TallyError) -> CreditHistory {
        try await database.read { connection in
            let acquisitions = try connection.query(
                """
                SELECT l.transaction_id, l.currency, l.amount, l.acquired_at, COALESCE(SUM(e.amount), 0) AS remaining
                FROM ledger_lots l LEFT JOIN ledger_entries e ON e.lot_id = l.id AND e.bucket = '\(LedgerBucket.balance)'
                WHERE ? IS NULL OR l.currency = ? GROUP BY l.id ORDER BY l.acquired_at, l.id
                """, [.optional(currency), .optional(currency)]
            ).map { row in
                CreditHistory.Acquisition(
                    transactionID: row["transaction_id"].text, currency: try row.string("currency"), amount: try row.int("amount"),
                    acquiredAt: JournalTime.date(try row.int("acquired_at")), remaining: try row.int("remaining"))
            }
            // What each consumption took from which lot: its spend entries, under its key.
            var sources: [String: [CreditHistory.Source]] = [:]
            for row in try connection.query(
                """
                SELECT e.operation_id, l.transaction_id, l.acquired_at, -e.amount AS taken
                FROM ledger_entries e JOIN ledger_lots l ON l.id = e.lot_id
                WHERE e.kind = '\(LedgerEntryKind.spend)' AND (? IS NULL OR e.currency = ?) ORDER BY e.id
                """, [.optional(currency), .optional(currency)])
            {
                guard let operation = row["operation_id"].text else { continue }
                sources[operation, default: []].append(
                    CreditHistory.Source(
                        transactionID: row["transaction_id"].text, acquiredAt: JournalTime.date(try row.int("acquired_at")),
                        amount: try row.int("taken")))
            }
            let consumptions = try connection.query(
                "SELECT * FROM ledger_spends WHERE ? IS NULL OR currency = ? ORDER BY created_at, rowid",
                [.optional(currency), .optional(currency)]
            ).map { row in
                let id = try row.string("idempotency_key")
                return CreditHistory.Consumption(
                    id: id, currency: try row.string("currency"), amount: try row.int("amount"), reference: row["reference"].text,
                    date: JournalTime.date(try row.int("created_at")), sources: sources[id] ?? [])
            }
            return CreditHistory(acquisitions: acquisitions, consumptions: consumptions)
        }
    }

    /// Whether every balance equals the sum of its ledger entries (for tests and diagnostics).
    public func balancesMatchEntries() async throws(TallyError) -> Bool {
        try await database.read { connection in
            let sums = try connection.query(
                """
                SELECT currency,
                    COALESCE(SUM(CASE WHEN bucket = '\(LedgerBucket.balance)' THEN amount END), 0) - COALESCE(SUM(CASE WHEN bucket = '\(LedgerBucket.held)' THEN amount END), 0) AS available,
                    COALESCE(SUM(CASE WHEN bucket = '\(LedgerBucket.held)' THEN amount END), 0) AS held,
                    COALESCE(SUM(CASE WHEN bucket = '\(LedgerBucket.debt)' THEN amount END), 0) AS debt
                FROM ledger_entries GROUP BY currency
                """)
            for row in sums {
                let balance = try Self.balance(connection, try row.string("currency"))
                guard balance.available == (try row.int("available")), balance.held == (try row.int("held")), balance.debt == (try row.int("debt")) else {
                    return false
                }
            }
            return true
        }
    }

    // MARK: - Verification

    private func verified(_ jws: String) async throws(TallyError) -> TransactionPayload {
        switch await verifier.verifyTransaction(jws) {
        case .valid(let verified):
            return verified.payload
        case .invalid(let failure) where failure.isRetryable:
            throw TallyError(.verificationUnavailable, failure.description)
        case .invalid(let failure):
            throw TallyError(.verificationFailed, failure.description)
        }
    }

    private func validate(currency: String, amount: Int64, key: String) throws(TallyError) {
        guard amount > 0 else { throw TallyError(.invalidRequest, "amount must be more than zero") }
        guard !key.isEmpty, key.utf8.count <= 128 else { throw TallyError(.invalidRequest, "the idempotency key must be 1 to 128 bytes") }
        guard catalog.products.contains(where: { $0.grants.contains { $0.currency == currency } }) else {
            throw TallyError(.invalidRequest, "no product grants \(currency)")
        }
    }
}

/// Milliseconds since 1970, as the device's tables store times.
enum JournalTime {
    static func millis(_ date: Date) -> Int64 { PurchaseJournal.millis(date) }
    static func date(_ millis: Int64) -> Date { PurchaseJournal.date(millis) }
}
