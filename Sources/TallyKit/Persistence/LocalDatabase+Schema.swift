import TallyCore
import TallyLedger
import TallySQL

/// The device's schema, all of it, as named append-only migrations run by TallySQL's one
/// migration runner when the database opens. A migration, once released, is never edited:
/// changes come as new migrations at the end: `0002_ledger` moved the credits into the
/// ledger's tables shared with the server (TallyLedger's ``LedgerSchema``), converting what a
/// database made by `0001_device` held.
///
/// Times are milliseconds since 1970 and the trusted clock's uptime is milliseconds since the
/// device started: only integers and text are stored, as on the server.
extension LocalDatabase {
    /// Every migration, in order.
    static let migrations: [Migration] = [device, sharedLedger]

    static let device = Migration(name: "0001_device", sqlite: journal + account + ledger)

    /// The purchase journal (``PurchaseJournal``): transactions until finished, purchases
    /// prepared and not yet paid, spends whose answer did not arrive.
    private static let journal = [
        """
        CREATE TABLE journal (
            event_id TEXT PRIMARY KEY,
            transaction_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            evidence_kind TEXT NOT NULL CHECK (evidence_kind IN ('jws', 'receipt')),
            evidence TEXT NOT NULL,
            order_id TEXT,
            state TEXT NOT NULL CHECK (state IN ('received', 'delivered', 'finished', 'rejected')),
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            last_error TEXT,
            receipt_json TEXT,
            received_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX journal_state ON journal (state)",
        """
        CREATE TABLE purchase_intents (
            id TEXT PRIMARY KEY,
            product_id TEXT NOT NULL,
            order_id TEXT,
            app_account_token TEXT,
            state TEXT NOT NULL CHECK (state IN ('open', 'pending', 'paid', 'abandoned')),
            transaction_id TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE pending_spends (
            idempotency_key TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('spend', 'commit', 'release')),
            body_json TEXT NOT NULL,
            created_at INTEGER NOT NULL
        )
        """,
        // A transaction that arrives by itself is matched among the product's open intents.
        "CREATE INDEX purchase_intents_open ON purchase_intents (product_id, state, created_at)",
    ]

    /// The entitlements cache (``AccountCache``), the trusted clock's mark (``TrustedClock``)
    /// and the onboarding gate.
    private static let account = [
        """
        CREATE TABLE account_cache (
            scope TEXT PRIMARY KEY,
            snapshot_json TEXT NOT NULL,
            fetched_at INTEGER NOT NULL
        )
        """,
        // One row: the latest wall time seen, and the trusted time with the uptime (in
        // milliseconds since the device started) it was given at.
        """
        CREATE TABLE clock_high_water (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            latest INTEGER NOT NULL,
            uptime INTEGER,
            trusted INTEGER
        )
        """,
        """
        CREATE TABLE onboarding (
            scope TEXT PRIMARY KEY,
            completed_at INTEGER NOT NULL,
            transaction_id TEXT NOT NULL
        )
        """,
    ]

    /// The on-device ledger (``OnDeviceLedger``): purchases, lots, append-only entries,
    /// balances, consumptions and reservations, in TallyCore's vocabulary.
    private static let ledger =
        [
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
                evidence_kind TEXT NOT NULL CHECK (evidence_kind IN ('jws', 'receipt')),
                evidence TEXT NOT NULL,
                recorded_at INTEGER NOT NULL,
                revoked_at INTEGER
            )
            """,
            """
            CREATE TABLE ledger_renewals (
                original_transaction_id TEXT PRIMARY KEY,
                product_id TEXT NOT NULL,
                will_renew INTEGER NOT NULL CHECK (will_renew IN (0, 1)),
                grace_expires INTEGER,
                signed_at INTEGER NOT NULL
            )
            """,
            """
            CREATE TABLE ledger_lots (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                transaction_id TEXT NOT NULL REFERENCES ledger_purchases (transaction_id),
                currency TEXT NOT NULL,
                amount INTEGER NOT NULL CHECK (amount > 0),
                acquired_at INTEGER NOT NULL,
                UNIQUE (transaction_id, currency)
            )
            """,
            // The buckets and kinds of its time, written out: a released migration is never edited.
            """
            CREATE TABLE ledger_entries (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                currency TEXT NOT NULL,
                bucket TEXT NOT NULL CHECK (bucket IN ('balance', 'allowance', 'held', 'debt')),
                kind TEXT NOT NULL CHECK (kind IN ('purchase', 'signup', 'spend', 'refund', 'refund_debt', 'refund_reversal', 'adjustment', 'adjustment_debt', 'allowance_grant', 'allowance_spend', 'repay', 'hold', 'release', 'commit', 'expire')),
                amount INTEGER NOT NULL CHECK (amount <> 0),
                lot_id INTEGER REFERENCES ledger_lots (id),
                transaction_id TEXT,
                operation_id TEXT,
                reference TEXT,
                created_at INTEGER NOT NULL
            )
            """,
            "CREATE INDEX ledger_entries_lot ON ledger_entries (lot_id)",
            """
            CREATE TABLE ledger_balances (
                currency TEXT PRIMARY KEY,
                available INTEGER NOT NULL CHECK (available >= 0),
                held INTEGER NOT NULL CHECK (held >= 0),
                debt INTEGER NOT NULL CHECK (debt >= 0)
            )
            """,
            """
            CREATE TABLE ledger_spends (
                idempotency_key TEXT PRIMARY KEY,
                currency TEXT NOT NULL,
                amount INTEGER NOT NULL CHECK (amount > 0),
                reference TEXT,
                created_at INTEGER NOT NULL
            )
            """,
            """
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
            )
            """,
        ] + appendOnly

    /// The ledger's entries, and the audit trail of consumptions and the lots, are history:
    /// the database refuses to change or remove them; purchases are never removed.
    private static let appendOnly = [
        ("ledger_entries_no_update", "UPDATE ON ledger_entries", "the ledger is append-only"),
        ("ledger_entries_no_delete", "DELETE ON ledger_entries", "the ledger is append-only"),
        ("ledger_spends_no_update", "UPDATE ON ledger_spends", "consumptions are append-only"),
        ("ledger_spends_no_delete", "DELETE ON ledger_spends", "consumptions are append-only"),
        ("ledger_lots_no_update", "UPDATE ON ledger_lots", "lots are append-only"),
        ("ledger_lots_no_delete", "DELETE ON ledger_lots", "lots are append-only"),
        ("ledger_purchases_no_delete", "DELETE ON ledger_purchases", "purchases are never removed"),
    ].map { name, event, message in
        "CREATE TRIGGER \(name) BEFORE \(event) BEGIN SELECT RAISE(ABORT, '\(message)'); END"
    }

    /// The device's credits in the ledger's tables shared with the server: one holder, the
    /// device, and each take from a lot kept for the credit history. No RETURNING: the system
    /// SQLite of iOS 13 and 14 is older than 3.35.
    static let ledgerSchema = LedgerSchema(holders: nil, recordsTakes: true, returning: false)

    /// The holder of every position, lot and entry on the device.
    static let holder = "device"

    /// `0002_ledger`: the shared tables, and what `0001_device`'s kept converted into them.
    /// - Balances become positions, as they were.
    /// - Lots keep their ids (so their order), with what their entries left of them as
    ///   `remaining` and their purchase's revocation as `revoked`.
    /// - Entries become what the server writes: every change of `available + held − debt`.
    ///   Each debt entry counts against it (a refund's debt, negated); a repayment moved units
    ///   from a lot to the debt and changed nothing of that sum, and holds moved units between
    ///   available and held: neither is written.
    /// - The spend and repay entries of a consumption, each naming its lot, become its takes.
    static let sharedLedger = Migration(
        name: "0002_ledger",
        sqlite: ["ALTER TABLE ledger_entries RENAME TO ledger_entries_0001"] + ledgerSchema.statements(.sqlite) + [
            """
            INSERT INTO positions (user_id, currency, available, held, debt)
            SELECT '\(holder)', currency, available, held, debt FROM ledger_balances
            """,
            """
            INSERT INTO lots (id, user_id, currency, source, transaction_id, granted, remaining, revoked, created_at)
            SELECT l.id, '\(holder)', l.currency, '\(LedgerEntryKind.purchase.rawValue)', l.transaction_id, l.amount,
                COALESCE((SELECT SUM(e.amount) FROM ledger_entries_0001 e WHERE e.lot_id = l.id AND e.bucket = 'balance'), 0),
                CASE WHEN p.revoked_at IS NULL THEN 0 ELSE 1 END, p.recorded_at
            FROM ledger_lots l JOIN ledger_purchases p ON p.transaction_id = l.transaction_id ORDER BY l.id
            """,
            """
            INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, transaction_id, operation_id, reference, created_at)
            SELECT '\(holder)', currency, 'balance', kind, CASE WHEN bucket = 'debt' THEN -amount ELSE amount END, transaction_id,
                operation_id, reference, created_at
            FROM ledger_entries_0001 WHERE bucket IN ('balance', 'debt') AND kind <> '\(LedgerEntryKind.repay.rawValue)' ORDER BY id
            """,
            """
            INSERT INTO lot_takes (lot_id, kind, amount, operation_id, created_at)
            SELECT lot_id, kind, -amount, operation_id, created_at FROM ledger_entries_0001
            WHERE bucket = 'balance' AND kind IN ('\(LedgerEntryKind.spend.rawValue)', '\(LedgerEntryKind.repay.rawValue)') AND lot_id IS NOT NULL
                AND operation_id IS NOT NULL
            ORDER BY id
            """,
            // Dropping a table fires none of its triggers.
            "DROP TABLE ledger_entries_0001",
            "DROP TABLE ledger_lots",
            "DROP TABLE ledger_balances",
        ])
}
