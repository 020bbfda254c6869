import TallyCore
public import TallyLedger
public import TallySQL

/// The schema, as named append-only migrations. A migration, once released, is never edited:
/// changes come as new migrations at the end. Before the first release the migrations added
/// during development are folded back into `0001_core` (tables created with their final
/// columns), and their names are recorded with it (``TallySQL/Migration/folds``) so that a
/// database a development build migrated opens as before; `0005_metrics`,
/// `0006_event_deliveries`, `0007_ledger_by_user_once` and `0008_event_readers` came after the
/// last fold and are applied to such databases. `Server/Tests/TallyServerTests/Storage/Schema/`
/// holds the schema it makes, reviewed.
public enum Migrations: Sendable {
    /// Every migration, in order.
    public static let all: [Migration] = [core, metrics, eventDeliveries, ledgerByUserOnce, eventReaders]

    /// Tables of users, positions, lots, the ledger, store transactions, orders, spends,
    /// reservations, allowances and notifications; what the server learns from Apple; the web
    /// console's; events and webhooks. Amounts are BIGINT with CHECKs; times are epoch
    /// milliseconds; idempotency lives in UNIQUE constraints; the database itself refuses to
    /// change or delete a ledger entry or a line of the console's audit log.
    static let core = Migration(
        name: "0001_core", folds: ["0002_apple", "0003_console", "0004_events"],
        sqlite: statements(autoIncrement: "INTEGER PRIMARY KEY AUTOINCREMENT", ledger: ledger.statements(.sqlite)) + appendOnlyAudit.sqlite,
        postgres: statements(autoIncrement: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", ledger: ledger.statements(.postgres))
            + appendOnlyAudit.postgres)

    /// The credit ledger's tables (TallyLedger's fragment, shared with the device): one holder
    /// per user, no record of takes from lots.
    public static let ledger = LedgerSchema(holders: "users(id)", recordsTakes: false, returning: true)

    /// The rollups of the subscription and revenue figures (docs/metrics.md), and what the
    /// transactions must say for them: who owns a copy (Family Sharing) and its subscription
    /// group. `metric_days` holds changes: a figure of a day is the sum of its rows, and a count
    /// of what is active is the sum of the changes until then. Each key has up to 16 `shard`
    /// rows, so that concurrent writes on PostgreSQL do not queue on one row lock. `metric_state` says whether the
    /// rollups were built from what was stored before them (``MetricsRollup/ensureBuilt(_:)``).
    static let metrics = Migration(name: "0005_metrics", sqlite: metricsStatements, postgres: metricsStatements)

    /// An event's deliveries are made by the database as the event is inserted, one for each
    /// enabled endpoint that wants its type: writing an event is one statement on both databases
    /// (SQLite has no INSERT inside WITH, which PostgreSQL used for it). A delivery already there
    /// is left alone: during a rolling upgrade an instance still running the build before inserts
    /// the deliveries itself, in the same statement.
    static let eventDeliveries = Migration(
        name: "0006_event_deliveries",
        sqlite: [
            """
            CREATE TRIGGER events_deliveries AFTER INSERT ON events
            BEGIN
                INSERT OR IGNORE INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at)
                SELECT w.id, NEW.seq, 'pending', NEW.created_at, NEW.created_at FROM \(wantingEndpoints);
            END
            """
        ],
        postgres: [
            """
            CREATE FUNCTION events_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at)
                SELECT w.id, NEW.seq, 'pending', NEW.created_at, NEW.created_at FROM \(wantingEndpoints)
                ON CONFLICT (endpoint_id, event_seq) DO NOTHING;
                RETURN NULL;
            END $$
            """,
            "CREATE TRIGGER events_deliveries AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_deliveries()",
        ])

    /// The ledger keeps one index by user, `ledger_user` (user, id): the console lists one
    /// user's entries in its order, as the API does, and every ledger entry written then
    /// changes one page of an index keyed by its user instead of two (decision 0041).
    static let ledgerByUserOnce = Migration(
        name: "0007_ledger_by_user_once", sqlite: [dropLedgerUserTime], postgres: [dropLedgerUserTime])

    /// `IF EXISTS`: a development build's `0007_user_indexes` dropped it already.
    private static let dropLedgerUserTime = "DROP INDEX IF EXISTS ledger_user_time"

    /// Events are written only while something reads them (decision 0042): a webhook endpoint,
    /// or a reader named in `event_readers` from the first time it asked (``EventReader``). A
    /// database that has events already goes on keeping them: its stream counts as read by the
    /// API since its first event.
    static let eventReaders = Migration(name: "0008_event_readers", sqlite: eventReadersStatements, postgres: eventReadersStatements)

    private static let eventReadersStatements = [
        "CREATE TABLE event_readers (name TEXT PRIMARY KEY, since BIGINT NOT NULL)",
        "INSERT INTO event_readers (name, since) SELECT 'api', created_at FROM events ORDER BY seq LIMIT 1",
    ]

    /// The enabled endpoints that want the event `NEW` (every type, or its own).
    private static let wantingEndpoints = """
        webhook_endpoints w
        WHERE w.disabled = 0 AND (w.all_types = 1 OR EXISTS (
            SELECT 1 FROM webhook_endpoint_types t WHERE t.endpoint_id = w.id AND t.type = NEW.type))
        """

    private static let metricsStatements = [
        "ALTER TABLE store_transactions ADD COLUMN ownership TEXT",
        "ALTER TABLE store_transactions ADD COLUMN subscription_group TEXT",
        """
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
        )
        """,
        "CREATE TABLE metric_state (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
        "CREATE INDEX positions_debt ON positions (currency) WHERE debt > 0",
    ]

    /// Every table and index, with `autoIncrement` as the dialect spells an increasing key and
    /// the ledger's fragment after users.
    private static func statements(autoIncrement: String, ledger: [String]) -> [String] {
        users + ledger + tables(autoIncrement: autoIncrement) + accountIndexes + apple + consoleTables(autoIncrement: autoIncrement)
            + consoleIndexes + eventTables(autoIncrement: autoIncrement)
    }

    /// Users and their tokens: the ledger's holders.
    private static let users = [
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            app_user_id TEXT UNIQUE,
            app_account_token TEXT NOT NULL UNIQUE,
            created_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE user_tokens (
            token_hash TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id),
            created_at BIGINT NOT NULL
        )
        """,
    ]

    private static func tables(autoIncrement: String) -> [String] {
        [
            """
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
                storefront TEXT
            )
            """,
            "CREATE INDEX store_transactions_original ON store_transactions (original_transaction_id)",
            "CREATE INDEX store_transactions_user ON store_transactions (user_id, received_at)",
            "CREATE INDEX store_transactions_received ON store_transactions (received_at)",
            """
            CREATE TABLE renewal_infos (
                original_transaction_id TEXT PRIMARY KEY,
                signed_date BIGINT NOT NULL,
                auto_renew BIGINT,
                auto_renew_product_id TEXT,
                in_billing_retry BIGINT,
                grace_expires BIGINT,
                expiration_intent BIGINT,
                jws TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE orders (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id),
                product_id TEXT NOT NULL,
                app_account_token TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN (\(OrderStatus.sqlList(OrderStatus.stored)))),
                transaction_id TEXT UNIQUE,
                failure_reason TEXT,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE spends (
                \(amountRequestColumns),
                reference TEXT,
                response_json TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                UNIQUE (user_id, idempotency_key)
            )
            """,
            """
            CREATE TABLE reservations (
                \(amountRequestColumns),
                from_allowance BIGINT NOT NULL CHECK (from_allowance >= 0),
                from_balance BIGINT NOT NULL CHECK (from_balance >= 0),
                allowance_original_transaction_id TEXT,
                allowance_window_start BIGINT,
                status TEXT NOT NULL CHECK (status IN (\(ReservationStatus.sqlList))),
                used BIGINT CHECK (used >= 0),
                expires_at BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                closed_at BIGINT,
                UNIQUE (user_id, idempotency_key),
                CHECK (from_allowance + from_balance = amount)
            )
            """,
            "CREATE INDEX reservations_open ON reservations (expires_at) WHERE status = '\(ReservationStatus.held)'",
            """
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
            )
            """,
            """
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
            )
            """,
            "CREATE INDEX notifications_received ON notifications (received_at)",
            """
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
            )
            """,
            """
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
            )
            """,
        ]
    }

    /// What the server learns from asking Apple and tells it: how far the catch-up with the App
    /// Store Server Notifications got, per environment (epoch milliseconds; notifications signed
    /// before `checked_until` were fetched and applied); when each subscription's state was last
    /// asked of Apple by the scheduled refresh, which looks for subscriptions by expiry; and the
    /// answers to consumption requests as a queue (`sent_status` NULL while due; a claim with its
    /// time and the tries made).
    private static let apple = [
        """
        CREATE TABLE apple_catch_up (
            environment TEXT PRIMARY KEY,
            checked_until BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE apple_subscription_checks (
            original_transaction_id TEXT PRIMARY KEY,
            checked_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX store_transactions_renewing ON store_transactions (expires_date) WHERE product_kind = '\(ProductKind.autoRenewable.rawValue)'",
        "CREATE INDEX consumption_requests_due ON consumption_requests (created_at) WHERE sent_status IS NULL",
    ]

    /// What the web console needs: its operators (password hashes), sessions (by the
    /// SHA-256 of the cookie, with the CSRF token), an append-only audit log; entitlements an
    /// operator grants until a date; verification failures counted per minute.
    private static func consoleTables(autoIncrement: String) -> [String] {
        [
            """
            CREATE TABLE console_operators (
                name TEXT PRIMARY KEY,
                password_hash TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('admin', 'read_only')),
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE console_sessions (
                token_hash TEXT PRIMARY KEY,
                actor TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('admin', 'read_only')),
                csrf_token TEXT NOT NULL,
                key_hash TEXT,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX console_sessions_expiry ON console_sessions (expires_at)",
            """
            CREATE TABLE console_audit (
                id \(autoIncrement),
                at BIGINT NOT NULL,
                actor TEXT NOT NULL,
                action TEXT NOT NULL,
                target TEXT,
                before_text TEXT,
                after_text TEXT,
                detail TEXT
            )
            """,
            """
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
            )
            """,
            "CREATE INDEX granted_entitlements_user ON granted_entitlements (user_id)",
            """
            CREATE TABLE verification_failures (
                minute BIGINT NOT NULL,
                source TEXT NOT NULL,
                code TEXT NOT NULL,
                count BIGINT NOT NULL CHECK (count > 0),
                PRIMARY KEY (minute, source, code)
            )
            """,
        ]
    }

    /// The indexes of the console's lists: transactions by token, product, purchase date and
    /// revocation (each transaction's signed price, currency and storefront are its own
    /// columns, NULL where it was recorded without them), the ledger and notifications.
    private static let consoleIndexes = [
        "CREATE INDEX store_transactions_token ON store_transactions (app_account_token)",
        "CREATE INDEX store_transactions_product ON store_transactions (product_id, received_at)",
        "CREATE INDEX store_transactions_purchased ON store_transactions (purchase_date)",
        "CREATE INDEX store_transactions_revocations ON store_transactions (revocation_event_at) WHERE revoked = 1",
        // The console lists the ledger newest first by (created_at, id), so that a date range
        // is a range of one index whatever else is filtered.
        "CREATE INDEX ledger_time ON ledger_entries (created_at, id)",
        "CREATE INDEX ledger_kind_time ON ledger_entries (kind, created_at, id)",
        "CREATE INDEX ledger_currency_time ON ledger_entries (currency, kind, created_at, id)",
        "CREATE INDEX ledger_user_time ON ledger_entries (user_id, created_at, id)",  // dropped by 0007_ledger_by_user_once
        "CREATE INDEX notifications_original ON notifications (original_transaction_id)",
        "CREATE INDEX notifications_outcome ON notifications (outcome, received_at)",
    ]

    /// Events out: every change to money or access as an event (while something reads them,
    /// since `0008_event_readers`), written in the same transaction as the change (an outbox,
    /// ordered by `seq`); the webhook endpoints with their event filters and secrets (the
    /// previous secret signs too until `previous_secret_until`); one delivery per endpoint and
    /// event (the primary key makes it once), claimed by one worker at a time; and every attempt
    /// made. Endpoint ids are not foreign keys: a money write that queues a delivery never waits
    /// on, or fails with, an endpoint being deleted (the delete removes its rows itself).
    private static func eventTables(autoIncrement: String) -> [String] {
        [
            """
            CREATE TABLE events (
                seq \(autoIncrement),
                id TEXT NOT NULL UNIQUE,
                type TEXT NOT NULL,
                version BIGINT NOT NULL,
                user_id TEXT,
                data TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX events_type_seq ON events (type, seq)",
            "CREATE INDEX events_user_seq ON events (user_id, seq)",
            """
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
            )
            """,
            """
            CREATE TABLE webhook_endpoint_types (
                endpoint_id TEXT NOT NULL,
                type TEXT NOT NULL,
                PRIMARY KEY (endpoint_id, type)
            )
            """,
            """
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
            )
            """,
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
            "CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status, event_seq)",
            // Only the deliveries in flight carry a claim: a small index however long the history.
            "CREATE INDEX webhook_deliveries_claim ON webhook_deliveries (claim) WHERE claim IS NOT NULL",
            """
            CREATE TABLE webhook_attempts (
                id \(autoIncrement),
                endpoint_id TEXT NOT NULL,
                event_seq BIGINT NOT NULL,
                attempted_at BIGINT NOT NULL,
                status_code BIGINT,
                latency_ms BIGINT NOT NULL,
                response_excerpt TEXT,
                error TEXT
            )
            """,
            "CREATE INDEX webhook_attempts_delivery ON webhook_attempts (endpoint_id, event_seq, id)",
        ]
    }

    /// Triggers by which the database itself refuses to change or delete a line of the console's audit log.
    private static let appendOnlyAudit = (
        sqlite: [
            """
            CREATE TRIGGER console_audit_no_update BEFORE UPDATE ON console_audit
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END
            """,
            """
            CREATE TRIGGER console_audit_no_delete BEFORE DELETE ON console_audit
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END
            """,
        ],
        postgres: [
            """
            CREATE FUNCTION console_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = '23514'; END $$
            """,
            "CREATE TRIGGER console_audit_no_change BEFORE UPDATE OR DELETE ON console_audit FOR EACH ROW EXECUTE FUNCTION console_audit_append_only()",
        ]
    )

    /// The columns a spend and a reservation begin with: one user's request, under its
    /// idempotency key, for a positive amount of one currency.
    private static let amountRequestColumns = [
        "id TEXT PRIMARY KEY",
        "user_id TEXT NOT NULL REFERENCES users(id)",
        "idempotency_key TEXT NOT NULL",
        "request_hash TEXT NOT NULL",
        "currency TEXT NOT NULL",
        "amount BIGINT NOT NULL CHECK (amount > 0)",
    ].joined(separator: ",\n    ")  // the indentation of the columns in the statements

    /// `GET /v1/me` reads a user's kept products and subscriptions: indexes that skip the
    /// user's consumables, however many were bought.
    private static let accountIndexes = [
        "CREATE INDEX store_transactions_user_kind ON store_transactions (user_id, product_kind)",
        "CREATE INDEX store_transactions_user_product ON store_transactions (user_id, product_id)",
    ]
}
