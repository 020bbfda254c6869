-- 0001_device
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
);
CREATE INDEX journal_state ON journal (state);
CREATE TABLE purchase_intents (
    id TEXT PRIMARY KEY,
    product_id TEXT NOT NULL,
    order_id TEXT,
    app_account_token TEXT,
    state TEXT NOT NULL CHECK (state IN ('open', 'pending', 'paid', 'abandoned')),
    transaction_id TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE pending_spends (
    idempotency_key TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('spend', 'commit', 'release')),
    body_json TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX purchase_intents_open ON purchase_intents (product_id, state, created_at);
CREATE TABLE account_cache (
    scope TEXT PRIMARY KEY,
    snapshot_json TEXT NOT NULL,
    fetched_at INTEGER NOT NULL
);
CREATE TABLE clock_high_water (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    latest INTEGER NOT NULL,
    uptime INTEGER,
    trusted INTEGER
);
CREATE TABLE onboarding (
    scope TEXT PRIMARY KEY,
    completed_at INTEGER NOT NULL,
    transaction_id TEXT NOT NULL
);
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
);
CREATE TABLE ledger_renewals (
    original_transaction_id TEXT PRIMARY KEY,
    product_id TEXT NOT NULL,
    will_renew INTEGER NOT NULL CHECK (will_renew IN (0, 1)),
    grace_expires INTEGER,
    signed_at INTEGER NOT NULL
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
    bucket TEXT NOT NULL CHECK (bucket IN ('balance', 'allowance', 'held', 'debt')),
    kind TEXT NOT NULL CHECK (kind IN ('purchase', 'signup', 'spend', 'refund', 'refund_debt', 'refund_reversal', 'adjustment', 'adjustment_debt', 'allowance_grant', 'allowance_spend', 'repay', 'hold', 'release', 'commit', 'expire')),
    amount INTEGER NOT NULL CHECK (amount <> 0),
    lot_id INTEGER REFERENCES ledger_lots (id),
    transaction_id TEXT,
    operation_id TEXT,
    reference TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX ledger_entries_lot ON ledger_entries (lot_id);
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
    status TEXT NOT NULL CHECK (status IN ('held', 'committed', 'released', 'expired')),
    used INTEGER CHECK (used >= 0 AND used <= amount),
    reference TEXT,
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_spends_no_update BEFORE UPDATE ON ledger_spends BEGIN SELECT RAISE(ABORT, 'consumptions are append-only'); END;
CREATE TRIGGER ledger_spends_no_delete BEFORE DELETE ON ledger_spends BEGIN SELECT RAISE(ABORT, 'consumptions are append-only'); END;
CREATE TRIGGER ledger_lots_no_update BEFORE UPDATE ON ledger_lots BEGIN SELECT RAISE(ABORT, 'lots are append-only'); END;
CREATE TRIGGER ledger_lots_no_delete BEFORE DELETE ON ledger_lots BEGIN SELECT RAISE(ABORT, 'lots are append-only'); END;
CREATE TRIGGER ledger_purchases_no_delete BEFORE DELETE ON ledger_purchases BEGIN SELECT RAISE(ABORT, 'purchases are never removed'); END;

-- 0002_ledger
ALTER TABLE ledger_entries RENAME TO ledger_entries_0001;
CREATE TABLE positions (
    user_id TEXT NOT NULL,
    currency TEXT NOT NULL,
    available BIGINT NOT NULL DEFAULT 0 CHECK (available >= 0),
    held BIGINT NOT NULL DEFAULT 0 CHECK (held >= 0),
    debt BIGINT NOT NULL DEFAULT 0 CHECK (debt >= 0),
    PRIMARY KEY (user_id, currency)
);
CREATE TABLE lots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    currency TEXT NOT NULL,
    source TEXT NOT NULL,
    transaction_id TEXT,
    granted BIGINT NOT NULL CHECK (granted > 0),
    remaining BIGINT NOT NULL CHECK (remaining >= 0 AND remaining <= granted),
    revoked BIGINT NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    created_at BIGINT NOT NULL
);
CREATE INDEX lots_fifo ON lots (user_id, currency, id) WHERE remaining > 0;
CREATE INDEX lots_transaction ON lots (transaction_id);
CREATE TABLE ledger_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    currency TEXT NOT NULL,
    bucket TEXT NOT NULL CHECK (bucket IN ('balance', 'allowance')),
    kind TEXT NOT NULL,
    amount BIGINT NOT NULL CHECK (amount <> 0),
    transaction_id TEXT,
    operation_id TEXT,
    reference TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX ledger_user ON ledger_entries (user_id, id);
CREATE TABLE lot_takes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    lot_id BIGINT NOT NULL REFERENCES lots(id),
    kind TEXT NOT NULL,
    amount BIGINT NOT NULL CHECK (amount > 0),
    operation_id TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX lot_takes_operation ON lot_takes (operation_id);
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
CREATE TRIGGER lot_takes_no_update BEFORE UPDATE ON lot_takes
BEGIN SELECT RAISE(ABORT, 'takes from lots are append-only'); END;
CREATE TRIGGER lot_takes_no_delete BEFORE DELETE ON lot_takes
BEGIN SELECT RAISE(ABORT, 'takes from lots are append-only'); END;
INSERT INTO positions (user_id, currency, available, held, debt)
SELECT 'device', currency, available, held, debt FROM ledger_balances;
INSERT INTO lots (id, user_id, currency, source, transaction_id, granted, remaining, revoked, created_at)
SELECT l.id, 'device', l.currency, 'purchase', l.transaction_id, l.amount,
    COALESCE((SELECT SUM(e.amount) FROM ledger_entries_0001 e WHERE e.lot_id = l.id AND e.bucket = 'balance'), 0),
    CASE WHEN p.revoked_at IS NULL THEN 0 ELSE 1 END, p.recorded_at
FROM ledger_lots l JOIN ledger_purchases p ON p.transaction_id = l.transaction_id ORDER BY l.id;
INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, transaction_id, operation_id, reference, created_at)
SELECT 'device', currency, 'balance', kind, CASE WHEN bucket = 'debt' THEN -amount ELSE amount END, transaction_id,
    operation_id, reference, created_at
FROM ledger_entries_0001 WHERE bucket IN ('balance', 'debt') AND kind <> 'repay' ORDER BY id;
INSERT INTO lot_takes (lot_id, kind, amount, operation_id, created_at)
SELECT lot_id, kind, -amount, operation_id, created_at FROM ledger_entries_0001
WHERE bucket = 'balance' AND kind IN ('spend', 'repay') AND lot_id IS NOT NULL
    AND operation_id IS NOT NULL
ORDER BY id;
DROP TABLE ledger_entries_0001;
DROP TABLE ledger_lots;
DROP TABLE ledger_balances;
