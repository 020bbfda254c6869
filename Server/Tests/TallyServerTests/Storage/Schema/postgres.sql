CREATE TABLE adjustments (
    user_id text NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    currency text NOT NULL,
    amount bigint NOT NULL,
    reason text NOT NULL,
    response_json text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT adjustments_amount_check CHECK ((amount <> 0)),
    CONSTRAINT adjustments_pkey PRIMARY KEY (user_id, idempotency_key),
    CONSTRAINT adjustments_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
);
CREATE TABLE allowance_windows (
    user_id text NOT NULL,
    currency text NOT NULL,
    original_transaction_id text NOT NULL,
    window_start bigint NOT NULL,
    window_end bigint NOT NULL,
    granted bigint NOT NULL,
    used bigint NOT NULL DEFAULT 0,
    held bigint NOT NULL DEFAULT 0,
    CONSTRAINT allowance_windows_check CHECK (((used + held) <= granted)),
    CONSTRAINT allowance_windows_granted_check CHECK ((granted > 0)),
    CONSTRAINT allowance_windows_held_check CHECK ((held >= 0)),
    CONSTRAINT allowance_windows_pkey PRIMARY KEY (original_transaction_id, currency, window_start),
    CONSTRAINT allowance_windows_used_check CHECK ((used >= 0)),
    CONSTRAINT allowance_windows_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
);
CREATE TABLE apple_catch_up (
    environment text NOT NULL,
    checked_until bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT apple_catch_up_pkey PRIMARY KEY (environment)
);
CREATE TABLE apple_subscription_checks (
    original_transaction_id text NOT NULL,
    checked_at bigint NOT NULL,
    CONSTRAINT apple_subscription_checks_pkey PRIMARY KEY (original_transaction_id)
);
CREATE TABLE console_audit (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    at bigint NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    target text,
    before_text text,
    after_text text,
    detail text,
    CONSTRAINT console_audit_pkey PRIMARY KEY (id)
);
CREATE TABLE console_operators (
    name text NOT NULL,
    password_hash text NOT NULL,
    role text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT console_operators_pkey PRIMARY KEY (name),
    CONSTRAINT console_operators_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'read_only'::text])))
);
CREATE TABLE console_sessions (
    token_hash text NOT NULL,
    actor text NOT NULL,
    role text NOT NULL,
    csrf_token text NOT NULL,
    key_hash text,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    CONSTRAINT console_sessions_pkey PRIMARY KEY (token_hash),
    CONSTRAINT console_sessions_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'read_only'::text])))
);
CREATE TABLE consumption_requests (
    notification_uuid text NOT NULL,
    transaction_id text NOT NULL,
    reason text,
    consumption_json text NOT NULL,
    sent_status text,
    created_at bigint NOT NULL,
    claimed_at bigint,
    attempts bigint NOT NULL DEFAULT 0,
    answered_at bigint,
    detail text,
    CONSTRAINT consumption_requests_pkey PRIMARY KEY (notification_uuid)
);
CREATE TABLE event_readers (
    name text NOT NULL,
    since bigint NOT NULL,
    CONSTRAINT event_readers_pkey PRIMARY KEY (name)
);
CREATE TABLE events (
    seq bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    id text NOT NULL,
    type text NOT NULL,
    version bigint NOT NULL,
    user_id text,
    data text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT events_id_key UNIQUE (id),
    CONSTRAINT events_pkey PRIMARY KEY (seq)
);
CREATE TABLE granted_entitlements (
    id text NOT NULL,
    user_id text NOT NULL,
    entitlement text NOT NULL,
    expires_at bigint NOT NULL,
    reason text NOT NULL,
    granted_by text NOT NULL,
    idempotency_key text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint,
    revoked_by text,
    CONSTRAINT granted_entitlements_pkey PRIMARY KEY (id),
    CONSTRAINT granted_entitlements_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id),
    CONSTRAINT granted_entitlements_user_id_idempotency_key_key UNIQUE (user_id, idempotency_key)
);
CREATE TABLE ledger_entries (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    user_id text NOT NULL,
    currency text NOT NULL,
    bucket text NOT NULL,
    kind text NOT NULL,
    amount bigint NOT NULL,
    transaction_id text,
    operation_id text,
    reference text,
    created_at bigint NOT NULL,
    CONSTRAINT ledger_entries_amount_check CHECK ((amount <> 0)),
    CONSTRAINT ledger_entries_bucket_check CHECK ((bucket = ANY (ARRAY['balance'::text, 'allowance'::text]))),
    CONSTRAINT ledger_entries_pkey PRIMARY KEY (id),
    CONSTRAINT ledger_entries_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
);
CREATE TABLE lots (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    user_id text NOT NULL,
    currency text NOT NULL,
    source text NOT NULL,
    transaction_id text,
    granted bigint NOT NULL,
    remaining bigint NOT NULL,
    revoked bigint NOT NULL DEFAULT 0,
    created_at bigint NOT NULL,
    CONSTRAINT lots_check CHECK (((remaining >= 0) AND (remaining <= granted))),
    CONSTRAINT lots_granted_check CHECK ((granted > 0)),
    CONSTRAINT lots_pkey PRIMARY KEY (id),
    CONSTRAINT lots_revoked_check CHECK ((revoked = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
    CONSTRAINT lots_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
);
CREATE TABLE metric_days (
    environment text NOT NULL,
    figure text NOT NULL,
    day bigint NOT NULL,
    subject text NOT NULL,
    currency text NOT NULL,
    span bigint NOT NULL,
    shard bigint NOT NULL,
    subscription_group text NOT NULL,
    value bigint NOT NULL,
    CONSTRAINT metric_days_pkey PRIMARY KEY (environment, figure, day, subject, currency, span, shard)
);
CREATE TABLE metric_state (
    name text NOT NULL,
    value bigint NOT NULL,
    CONSTRAINT metric_state_pkey PRIMARY KEY (name)
);
CREATE TABLE notifications (
    notification_uuid text NOT NULL,
    notification_type text NOT NULL,
    subtype text,
    transaction_id text,
    original_transaction_id text,
    signed_date bigint,
    environment text,
    outcome text NOT NULL,
    detail text,
    jws text NOT NULL,
    received_at bigint NOT NULL,
    CONSTRAINT notifications_pkey PRIMARY KEY (notification_uuid)
);
CREATE TABLE orders (
    id text NOT NULL,
    user_id text NOT NULL,
    product_id text NOT NULL,
    app_account_token text NOT NULL,
    status text NOT NULL,
    transaction_id text,
    failure_reason text,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT orders_pkey PRIMARY KEY (id),
    CONSTRAINT orders_status_check CHECK ((status = ANY (ARRAY['created'::text, 'fulfilled'::text, 'failed'::text]))),
    CONSTRAINT orders_transaction_id_key UNIQUE (transaction_id),
    CONSTRAINT orders_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
);
CREATE TABLE positions (
    user_id text NOT NULL,
    currency text NOT NULL,
    available bigint NOT NULL DEFAULT 0,
    held bigint NOT NULL DEFAULT 0,
    debt bigint NOT NULL DEFAULT 0,
    CONSTRAINT positions_available_check CHECK ((available >= 0)),
    CONSTRAINT positions_debt_check CHECK ((debt >= 0)),
    CONSTRAINT positions_held_check CHECK ((held >= 0)),
    CONSTRAINT positions_pkey PRIMARY KEY (user_id, currency),
    CONSTRAINT positions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
);
CREATE TABLE renewal_infos (
    original_transaction_id text NOT NULL,
    signed_date bigint NOT NULL,
    auto_renew bigint,
    auto_renew_product_id text,
    in_billing_retry bigint,
    grace_expires bigint,
    expiration_intent bigint,
    jws text NOT NULL,
    CONSTRAINT renewal_infos_pkey PRIMARY KEY (original_transaction_id)
);
CREATE TABLE reservations (
    id text NOT NULL,
    user_id text NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    currency text NOT NULL,
    amount bigint NOT NULL,
    from_allowance bigint NOT NULL,
    from_balance bigint NOT NULL,
    allowance_original_transaction_id text,
    allowance_window_start bigint,
    status text NOT NULL,
    used bigint,
    expires_at bigint NOT NULL,
    created_at bigint NOT NULL,
    closed_at bigint,
    CONSTRAINT reservations_amount_check CHECK ((amount > 0)),
    CONSTRAINT reservations_check CHECK (((from_allowance + from_balance) = amount)),
    CONSTRAINT reservations_from_allowance_check CHECK ((from_allowance >= 0)),
    CONSTRAINT reservations_from_balance_check CHECK ((from_balance >= 0)),
    CONSTRAINT reservations_pkey PRIMARY KEY (id),
    CONSTRAINT reservations_status_check CHECK ((status = ANY (ARRAY['held'::text, 'committed'::text, 'released'::text, 'expired'::text]))),
    CONSTRAINT reservations_used_check CHECK ((used >= 0)),
    CONSTRAINT reservations_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id),
    CONSTRAINT reservations_user_id_idempotency_key_key UNIQUE (user_id, idempotency_key)
);
CREATE TABLE schema_migrations (
    name text NOT NULL,
    applied_at bigint NOT NULL,
    CONSTRAINT schema_migrations_pkey PRIMARY KEY (name)
);
CREATE TABLE spends (
    id text NOT NULL,
    user_id text NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    currency text NOT NULL,
    amount bigint NOT NULL,
    reference text,
    response_json text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT spends_amount_check CHECK ((amount > 0)),
    CONSTRAINT spends_pkey PRIMARY KEY (id),
    CONSTRAINT spends_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id),
    CONSTRAINT spends_user_id_idempotency_key_key UNIQUE (user_id, idempotency_key)
);
CREATE TABLE store_transactions (
    transaction_id text NOT NULL,
    original_transaction_id text NOT NULL,
    user_id text,
    binding text,
    product_id text NOT NULL,
    product_kind text NOT NULL,
    environment text NOT NULL,
    app_account_token text,
    quantity bigint NOT NULL,
    purchase_date bigint,
    expires_date bigint,
    signed_date bigint,
    granted bigint NOT NULL DEFAULT 0,
    revoked bigint NOT NULL DEFAULT 0,
    revocation_event_at bigint,
    revocation_reason bigint,
    grants_json text,
    response_json text,
    evidence_kind text NOT NULL,
    evidence text NOT NULL,
    received_at bigint NOT NULL,
    price bigint,
    currency text,
    storefront text,
    ownership text,
    subscription_group text,
    CONSTRAINT store_transactions_evidence_kind_check CHECK ((evidence_kind = ANY (ARRAY['jws'::text, 'receipt'::text]))),
    CONSTRAINT store_transactions_granted_check CHECK ((granted = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
    CONSTRAINT store_transactions_pkey PRIMARY KEY (transaction_id),
    CONSTRAINT store_transactions_quantity_check CHECK ((quantity > 0)),
    CONSTRAINT store_transactions_revoked_check CHECK ((revoked = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
    CONSTRAINT store_transactions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
);
CREATE TABLE user_tokens (
    token_hash text NOT NULL,
    user_id text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT user_tokens_pkey PRIMARY KEY (token_hash),
    CONSTRAINT user_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
);
CREATE TABLE users (
    id text NOT NULL,
    app_user_id text,
    app_account_token text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT users_app_account_token_key UNIQUE (app_account_token),
    CONSTRAINT users_app_user_id_key UNIQUE (app_user_id),
    CONSTRAINT users_pkey PRIMARY KEY (id)
);
CREATE TABLE verification_failures (
    minute bigint NOT NULL,
    source text NOT NULL,
    code text NOT NULL,
    count bigint NOT NULL,
    CONSTRAINT verification_failures_count_check CHECK ((count > 0)),
    CONSTRAINT verification_failures_pkey PRIMARY KEY (minute, source, code)
);
CREATE TABLE webhook_attempts (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    endpoint_id text NOT NULL,
    event_seq bigint NOT NULL,
    attempted_at bigint NOT NULL,
    status_code bigint,
    latency_ms bigint NOT NULL,
    response_excerpt text,
    error text,
    CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id)
);
CREATE TABLE webhook_deliveries (
    endpoint_id text NOT NULL,
    event_seq bigint NOT NULL,
    status text NOT NULL,
    attempts bigint NOT NULL DEFAULT 0,
    next_attempt_at bigint NOT NULL,
    claim text,
    claimed_until bigint,
    last_status_code bigint,
    delivered_at bigint,
    created_at bigint NOT NULL,
    CONSTRAINT webhook_deliveries_event_seq_fkey FOREIGN KEY (event_seq) REFERENCES events(seq),
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (endpoint_id, event_seq),
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text, 'paused'::text])))
);
CREATE TABLE webhook_endpoint_types (
    endpoint_id text NOT NULL,
    type text NOT NULL,
    CONSTRAINT webhook_endpoint_types_pkey PRIMARY KEY (endpoint_id, type)
);
CREATE TABLE webhook_endpoints (
    id text NOT NULL,
    url text NOT NULL,
    description text NOT NULL,
    all_types bigint NOT NULL,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_until bigint,
    disabled bigint NOT NULL DEFAULT 0,
    disabled_reason text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT webhook_endpoints_all_types_check CHECK ((all_types = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
    CONSTRAINT webhook_endpoints_disabled_check CHECK ((disabled = ANY (ARRAY[(0)::bigint, (1)::bigint]))),
    CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id)
);
CREATE UNIQUE INDEX adjustments_pkey ON adjustments USING btree (user_id, idempotency_key);
CREATE UNIQUE INDEX allowance_windows_pkey ON allowance_windows USING btree (original_transaction_id, currency, window_start);
CREATE UNIQUE INDEX apple_catch_up_pkey ON apple_catch_up USING btree (environment);
CREATE UNIQUE INDEX apple_subscription_checks_pkey ON apple_subscription_checks USING btree (original_transaction_id);
CREATE UNIQUE INDEX console_audit_pkey ON console_audit USING btree (id);
CREATE UNIQUE INDEX console_operators_pkey ON console_operators USING btree (name);
CREATE INDEX console_sessions_expiry ON console_sessions USING btree (expires_at);
CREATE UNIQUE INDEX console_sessions_pkey ON console_sessions USING btree (token_hash);
CREATE INDEX consumption_requests_due ON consumption_requests USING btree (created_at) WHERE (sent_status IS NULL);
CREATE UNIQUE INDEX consumption_requests_pkey ON consumption_requests USING btree (notification_uuid);
CREATE UNIQUE INDEX event_readers_pkey ON event_readers USING btree (name);
CREATE UNIQUE INDEX events_id_key ON events USING btree (id);
CREATE UNIQUE INDEX events_pkey ON events USING btree (seq);
CREATE INDEX events_type_seq ON events USING btree (type, seq);
CREATE INDEX events_user_seq ON events USING btree (user_id, seq);
CREATE UNIQUE INDEX granted_entitlements_pkey ON granted_entitlements USING btree (id);
CREATE INDEX granted_entitlements_user ON granted_entitlements USING btree (user_id);
CREATE UNIQUE INDEX granted_entitlements_user_id_idempotency_key_key ON granted_entitlements USING btree (user_id, idempotency_key);
CREATE INDEX ledger_currency_time ON ledger_entries USING btree (currency, kind, created_at, id);
CREATE UNIQUE INDEX ledger_entries_pkey ON ledger_entries USING btree (id);
CREATE INDEX ledger_kind_time ON ledger_entries USING btree (kind, created_at, id);
CREATE INDEX ledger_time ON ledger_entries USING btree (created_at, id);
CREATE INDEX ledger_user ON ledger_entries USING btree (user_id, id);
CREATE INDEX lots_fifo ON lots USING btree (user_id, currency, id) WHERE (remaining > 0);
CREATE UNIQUE INDEX lots_pkey ON lots USING btree (id);
CREATE INDEX lots_transaction ON lots USING btree (transaction_id);
CREATE UNIQUE INDEX metric_days_pkey ON metric_days USING btree (environment, figure, day, subject, currency, span, shard);
CREATE UNIQUE INDEX metric_state_pkey ON metric_state USING btree (name);
CREATE INDEX notifications_original ON notifications USING btree (original_transaction_id);
CREATE INDEX notifications_outcome ON notifications USING btree (outcome, received_at);
CREATE UNIQUE INDEX notifications_pkey ON notifications USING btree (notification_uuid);
CREATE INDEX notifications_received ON notifications USING btree (received_at);
CREATE UNIQUE INDEX orders_pkey ON orders USING btree (id);
CREATE UNIQUE INDEX orders_transaction_id_key ON orders USING btree (transaction_id);
CREATE INDEX positions_debt ON positions USING btree (currency) WHERE (debt > 0);
CREATE UNIQUE INDEX positions_pkey ON positions USING btree (user_id, currency);
CREATE UNIQUE INDEX renewal_infos_pkey ON renewal_infos USING btree (original_transaction_id);
CREATE INDEX reservations_open ON reservations USING btree (expires_at) WHERE (status = 'held'::text);
CREATE UNIQUE INDEX reservations_pkey ON reservations USING btree (id);
CREATE UNIQUE INDEX reservations_user_id_idempotency_key_key ON reservations USING btree (user_id, idempotency_key);
CREATE UNIQUE INDEX schema_migrations_pkey ON schema_migrations USING btree (name);
CREATE UNIQUE INDEX spends_pkey ON spends USING btree (id);
CREATE UNIQUE INDEX spends_user_id_idempotency_key_key ON spends USING btree (user_id, idempotency_key);
CREATE INDEX store_transactions_original ON store_transactions USING btree (original_transaction_id);
CREATE UNIQUE INDEX store_transactions_pkey ON store_transactions USING btree (transaction_id);
CREATE INDEX store_transactions_product ON store_transactions USING btree (product_id, received_at);
CREATE INDEX store_transactions_purchased ON store_transactions USING btree (purchase_date);
CREATE INDEX store_transactions_received ON store_transactions USING btree (received_at);
CREATE INDEX store_transactions_renewing ON store_transactions USING btree (expires_date) WHERE (product_kind = 'auto_renewable'::text);
CREATE INDEX store_transactions_revocations ON store_transactions USING btree (revocation_event_at) WHERE (revoked = 1);
CREATE INDEX store_transactions_token ON store_transactions USING btree (app_account_token);
CREATE INDEX store_transactions_user ON store_transactions USING btree (user_id, received_at);
CREATE INDEX store_transactions_user_kind ON store_transactions USING btree (user_id, product_kind);
CREATE INDEX store_transactions_user_product ON store_transactions USING btree (user_id, product_id);
CREATE UNIQUE INDEX user_tokens_pkey ON user_tokens USING btree (token_hash);
CREATE UNIQUE INDEX users_app_account_token_key ON users USING btree (app_account_token);
CREATE UNIQUE INDEX users_app_user_id_key ON users USING btree (app_user_id);
CREATE UNIQUE INDEX users_pkey ON users USING btree (id);
CREATE UNIQUE INDEX verification_failures_pkey ON verification_failures USING btree (minute, source, code);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts USING btree (endpoint_id, event_seq, id);
CREATE UNIQUE INDEX webhook_attempts_pkey ON webhook_attempts USING btree (id);
CREATE INDEX webhook_deliveries_claim ON webhook_deliveries USING btree (claim) WHERE (claim IS NOT NULL);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'pending'::text);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries USING btree (endpoint_id, status, event_seq);
CREATE UNIQUE INDEX webhook_deliveries_pkey ON webhook_deliveries USING btree (endpoint_id, event_seq);
CREATE UNIQUE INDEX webhook_endpoint_types_pkey ON webhook_endpoint_types USING btree (endpoint_id, type);
CREATE UNIQUE INDEX webhook_endpoints_pkey ON webhook_endpoints USING btree (id);
CREATE TRIGGER console_audit_no_change BEFORE DELETE OR UPDATE ON console_audit FOR EACH ROW EXECUTE FUNCTION console_audit_append_only();
CREATE TRIGGER events_deliveries AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_deliveries();
CREATE TRIGGER ledger_no_update BEFORE DELETE OR UPDATE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE OR REPLACE FUNCTION console_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $function$ BEGIN RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = '23514'; END $function$;
CREATE OR REPLACE FUNCTION events_deliveries() RETURNS trigger LANGUAGE plpgsql AS $function$ BEGIN INSERT INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at) SELECT w.id, NEW.seq, 'pending', NEW.created_at, NEW.created_at FROM webhook_endpoints w WHERE w.disabled = 0 AND (w.all_types = 1 OR EXISTS (SELECT 1 FROM webhook_endpoint_types t WHERE t.endpoint_id = w.id AND t.type = NEW.type)) ON CONFLICT (endpoint_id, event_seq) DO NOTHING; RETURN NULL; END $function$;
CREATE OR REPLACE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $function$ BEGIN RAISE EXCEPTION 'ledger entries are append-only' USING ERRCODE = '23514'; END $function$;
