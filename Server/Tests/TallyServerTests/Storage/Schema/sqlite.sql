CREATE TABLE adjustments (
    user_id TEXT NOT NULL REFERENCES users(id),
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount BIGINT NOT NULL CHECK (amount <> 0),
    reason TEXT NOT NULL,
    response_json TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, idempotency_key)
);
CREATE TABLE allowance_windows (
    user_id TEXT NOT NULL REFERENCES users(id),
    currency TEXT NOT NULL,
    original_transaction_id TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    window_end BIGINT NOT NULL,
    granted BIGINT NOT NULL CHECK (granted > 0),
    used BIGINT NOT NULL DEFAULT 0 CHECK (used >= 0),
    held BIGINT NOT NULL DEFAULT 0 CHECK (held >= 0),
    CHECK (used + held <= granted),
    PRIMARY KEY (original_transaction_id, currency, window_start)
);
CREATE TABLE apple_catch_up (
    environment TEXT PRIMARY KEY,
    checked_until BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE apple_subscription_checks (
    original_transaction_id TEXT PRIMARY KEY,
    checked_at BIGINT NOT NULL
);
CREATE TABLE console_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    before_text TEXT,
    after_text TEXT,
    detail TEXT
);
CREATE TABLE console_operators (
    name TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'read_only')),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE console_sessions (
    token_hash TEXT PRIMARY KEY,
    actor TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'read_only')),
    csrf_token TEXT NOT NULL,
    key_hash TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE TABLE consumption_requests (
    notification_uuid TEXT PRIMARY KEY,
    transaction_id TEXT NOT NULL,
    reason TEXT,
    consumption_json TEXT NOT NULL,
    sent_status TEXT,
    created_at BIGINT NOT NULL,
    claimed_at BIGINT,
    attempts BIGINT NOT NULL DEFAULT 0,
    answered_at BIGINT,
    detail TEXT
);
CREATE TABLE event_readers (
    name TEXT PRIMARY KEY,
    since BIGINT NOT NULL
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    version BIGINT NOT NULL,
    user_id TEXT,
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE TABLE granted_entitlements (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    entitlement TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    reason TEXT NOT NULL,
    granted_by TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    revoked_by TEXT,
    UNIQUE (user_id, idempotency_key)
);
CREATE TABLE ledger_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL REFERENCES users(id),
    currency TEXT NOT NULL,
    bucket TEXT NOT NULL CHECK (bucket IN ('balance', 'allowance')),
    kind TEXT NOT NULL,
    amount BIGINT NOT NULL CHECK (amount <> 0),
    transaction_id TEXT,
    operation_id TEXT,
    reference TEXT,
    created_at BIGINT NOT NULL
);
CREATE TABLE lots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL REFERENCES users(id),
    currency TEXT NOT NULL,
    source TEXT NOT NULL,
    transaction_id TEXT,
    granted BIGINT NOT NULL CHECK (granted > 0),
    remaining BIGINT NOT NULL CHECK (remaining >= 0 AND remaining <= granted),
    revoked BIGINT NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    created_at BIGINT NOT NULL
);
CREATE TABLE metric_days (
    environment TEXT NOT NULL,
    figure TEXT NOT NULL,
    day BIGINT NOT NULL,
    subject TEXT NOT NULL,
    currency TEXT NOT NULL,
    span BIGINT NOT NULL,
    shard BIGINT NOT NULL,
    subscription_group TEXT NOT NULL,
    value BIGINT NOT NULL,
    PRIMARY KEY (environment, figure, day, subject, currency, span, shard)
);
CREATE TABLE metric_state (
    name TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
CREATE TABLE notifications (
    notification_uuid TEXT PRIMARY KEY,
    notification_type TEXT NOT NULL,
    subtype TEXT,
    transaction_id TEXT,
    original_transaction_id TEXT,
    signed_date BIGINT,
    environment TEXT,
    outcome TEXT NOT NULL,
    detail TEXT,
    jws TEXT NOT NULL,
    received_at BIGINT NOT NULL
);
CREATE TABLE orders (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    product_id TEXT NOT NULL,
    app_account_token TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('created', 'fulfilled', 'failed')),
    transaction_id TEXT UNIQUE,
    failure_reason TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE positions (
    user_id TEXT NOT NULL REFERENCES users(id),
    currency TEXT NOT NULL,
    available BIGINT NOT NULL DEFAULT 0 CHECK (available >= 0),
    held BIGINT NOT NULL DEFAULT 0 CHECK (held >= 0),
    debt BIGINT NOT NULL DEFAULT 0 CHECK (debt >= 0),
    PRIMARY KEY (user_id, currency)
);
CREATE TABLE renewal_infos (
    original_transaction_id TEXT PRIMARY KEY,
    signed_date BIGINT NOT NULL,
    auto_renew BIGINT,
    auto_renew_product_id TEXT,
    in_billing_retry BIGINT,
    grace_expires BIGINT,
    expiration_intent BIGINT,
    jws TEXT NOT NULL
);
CREATE TABLE reservations (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount BIGINT NOT NULL CHECK (amount > 0),
    from_allowance BIGINT NOT NULL CHECK (from_allowance >= 0),
    from_balance BIGINT NOT NULL CHECK (from_balance >= 0),
    allowance_original_transaction_id TEXT,
    allowance_window_start BIGINT,
    status TEXT NOT NULL CHECK (status IN ('held', 'committed', 'released', 'expired')),
    used BIGINT CHECK (used >= 0),
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    closed_at BIGINT,
    UNIQUE (user_id, idempotency_key),
    CHECK (from_allowance + from_balance = amount)
);
CREATE TABLE schema_migrations (
    name TEXT PRIMARY KEY,
    applied_at BIGINT NOT NULL
);
CREATE TABLE spends (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount BIGINT NOT NULL CHECK (amount > 0),
    reference TEXT,
    response_json TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (user_id, idempotency_key)
);
CREATE TABLE store_transactions (
    transaction_id TEXT PRIMARY KEY,
    original_transaction_id TEXT NOT NULL,
    user_id TEXT REFERENCES users(id),
    binding TEXT,
    product_id TEXT NOT NULL,
    product_kind TEXT NOT NULL,
    environment TEXT NOT NULL,
    app_account_token TEXT,
    quantity BIGINT NOT NULL CHECK (quantity > 0),
    purchase_date BIGINT,
    expires_date BIGINT,
    signed_date BIGINT,
    granted BIGINT NOT NULL DEFAULT 0 CHECK (granted IN (0, 1)),
    revoked BIGINT NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    revocation_event_at BIGINT,
    revocation_reason BIGINT,
    grants_json TEXT,
    response_json TEXT,
    evidence_kind TEXT NOT NULL CHECK (evidence_kind IN ('jws', 'receipt')),
    evidence TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    price BIGINT,
    currency TEXT,
    storefront TEXT,
    ownership TEXT,
    subscription_group TEXT
);
CREATE TABLE user_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    created_at BIGINT NOT NULL
);
CREATE TABLE users (
    id TEXT PRIMARY KEY,
    app_user_id TEXT UNIQUE,
    app_account_token TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
CREATE TABLE verification_failures (
    minute BIGINT NOT NULL,
    source TEXT NOT NULL,
    code TEXT NOT NULL,
    count BIGINT NOT NULL CHECK (count > 0),
    PRIMARY KEY (minute, source, code)
);
CREATE TABLE webhook_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id TEXT NOT NULL,
    event_seq BIGINT NOT NULL,
    attempted_at BIGINT NOT NULL,
    status_code BIGINT,
    latency_ms BIGINT NOT NULL,
    response_excerpt TEXT,
    error TEXT
);
CREATE TABLE webhook_deliveries (
    endpoint_id TEXT NOT NULL,
    event_seq BIGINT NOT NULL REFERENCES events(seq),
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'paused')),
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    claim TEXT,
    claimed_until BIGINT,
    last_status_code BIGINT,
    delivered_at BIGINT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (endpoint_id, event_seq)
);
CREATE TABLE webhook_endpoint_types (
    endpoint_id TEXT NOT NULL,
    type TEXT NOT NULL,
    PRIMARY KEY (endpoint_id, type)
);
CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    description TEXT NOT NULL,
    all_types BIGINT NOT NULL CHECK (all_types IN (0, 1)),
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_until BIGINT,
    disabled BIGINT NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    disabled_reason TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
CREATE INDEX consumption_requests_due ON consumption_requests (created_at) WHERE sent_status IS NULL;
CREATE INDEX events_type_seq ON events (type, seq);
CREATE INDEX events_user_seq ON events (user_id, seq);
CREATE INDEX granted_entitlements_user ON granted_entitlements (user_id);
CREATE INDEX ledger_currency_time ON ledger_entries (currency, kind, created_at, id);
CREATE INDEX ledger_kind_time ON ledger_entries (kind, created_at, id);
CREATE INDEX ledger_time ON ledger_entries (created_at, id);
CREATE INDEX ledger_user ON ledger_entries (user_id, id);
CREATE INDEX lots_fifo ON lots (user_id, currency, id) WHERE remaining > 0;
CREATE INDEX lots_transaction ON lots (transaction_id);
CREATE INDEX notifications_original ON notifications (original_transaction_id);
CREATE INDEX notifications_outcome ON notifications (outcome, received_at);
CREATE INDEX notifications_received ON notifications (received_at);
CREATE INDEX positions_debt ON positions (currency) WHERE debt > 0;
CREATE INDEX reservations_open ON reservations (expires_at) WHERE status = 'held';
CREATE INDEX store_transactions_original ON store_transactions (original_transaction_id);
CREATE INDEX store_transactions_product ON store_transactions (product_id, received_at);
CREATE INDEX store_transactions_purchased ON store_transactions (purchase_date);
CREATE INDEX store_transactions_received ON store_transactions (received_at);
CREATE INDEX store_transactions_renewing ON store_transactions (expires_date) WHERE product_kind = 'auto_renewable';
CREATE INDEX store_transactions_revocations ON store_transactions (revocation_event_at) WHERE revoked = 1;
CREATE INDEX store_transactions_token ON store_transactions (app_account_token);
CREATE INDEX store_transactions_user ON store_transactions (user_id, received_at);
CREATE INDEX store_transactions_user_kind ON store_transactions (user_id, product_kind);
CREATE INDEX store_transactions_user_product ON store_transactions (user_id, product_id);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (endpoint_id, event_seq, id);
CREATE INDEX webhook_deliveries_claim ON webhook_deliveries (claim) WHERE claim IS NOT NULL;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status, event_seq);
CREATE TRIGGER console_audit_no_delete BEFORE DELETE ON console_audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER console_audit_no_update BEFORE UPDATE ON console_audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER events_deliveries AFTER INSERT ON events BEGIN INSERT OR IGNORE INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at) SELECT w.id, NEW.seq, 'pending', NEW.created_at, NEW.created_at FROM webhook_endpoints w WHERE w.disabled = 0 AND (w.all_types = 1 OR EXISTS (SELECT 1 FROM webhook_endpoint_types t WHERE t.endpoint_id = w.id AND t.type = NEW.type)); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
