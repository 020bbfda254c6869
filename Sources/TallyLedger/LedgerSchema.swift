import TallyCore
public import TallySQL

/// The credit ledger's tables, as one fragment both hosts put in their schema: the device's
/// database (one holder, the device) and the server's (one holder per user).
///
/// - `positions`: what a holder has in one currency, `available`, `held` and `debt`, all ≥ 0.
/// - `lots`: one per grant and currency, with what is `remaining` of it; spending takes from the
///   oldest first.
/// - `ledger_entries`: append-only; every change of `available + held − debt`.
/// - `lot_takes` (where ``recordsTakes``): append-only; which lots each spend took from and how
///   much, for the device's credit history.
///
/// ``CreditLedger`` is the only code that writes them. Hosts put ``statements(_:)`` in their
/// migrations, so a change here changes a migration that was run already: it comes with a new
/// migration in each host, and the tests that pin the hosts' migrations say so.
public struct LedgerSchema: Sendable {
    /// The table whose key a holder is, as `users(id)`; nil where the holders are not rows of
    /// another table (the device has one).
    public var holders: String?
    /// Whether each take from a lot is kept in `lot_takes`.
    public var recordsTakes: Bool
    /// Whether the database answers `RETURNING` (PostgreSQL; SQLite from 3.35, so not the
    /// system SQLite of iOS 13 and 14): one statement then makes, locks and reads a position.
    public var returning: Bool

    /// Describes the tables a host keeps.
    /// - Parameters:
    ///   - holders: the table whose key a holder is, as `users(id)`, or nil.
    ///   - recordsTakes: whether each take from a lot is kept in `lot_takes`.
    ///   - returning: whether the database answers `RETURNING`.
    public init(holders: String?, recordsTakes: Bool, returning: Bool) {
        self.holders = holders
        self.recordsTakes = recordsTakes
        self.returning = returning
    }

    /// The tables, indexes and append-only triggers, one statement per element.
    public func statements(_ dialect: SQLDialect) -> [String] {
        let key = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        let holder = "user_id TEXT NOT NULL" + (holders.map { " REFERENCES \($0)" } ?? "")
        var statements = [
            """
            CREATE TABLE positions (
                \(holder),
                currency TEXT NOT NULL,
                available BIGINT NOT NULL DEFAULT 0 CHECK (available >= 0),
                held BIGINT NOT NULL DEFAULT 0 CHECK (held >= 0),
                debt BIGINT NOT NULL DEFAULT 0 CHECK (debt >= 0),
                PRIMARY KEY (user_id, currency)
            )
            """,
            """
            CREATE TABLE lots (
                id \(key),
                \(holder),
                currency TEXT NOT NULL,
                source TEXT NOT NULL,
                transaction_id TEXT,
                granted BIGINT NOT NULL CHECK (granted > 0),
                remaining BIGINT NOT NULL CHECK (remaining >= 0 AND remaining <= granted),
                revoked BIGINT NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX lots_fifo ON lots (user_id, currency, id) WHERE remaining > 0",
            "CREATE INDEX lots_transaction ON lots (transaction_id)",
            """
            CREATE TABLE ledger_entries (
                id \(key),
                \(holder),
                currency TEXT NOT NULL,
                bucket TEXT NOT NULL CHECK (bucket IN (\(LedgerBucket.sqlList))),
                kind TEXT NOT NULL,
                amount BIGINT NOT NULL CHECK (amount <> 0),
                transaction_id TEXT,
                operation_id TEXT,
                reference TEXT,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX ledger_user ON ledger_entries (user_id, id)",
        ]
        if recordsTakes {
            statements += [
                """
                CREATE TABLE lot_takes (
                    id \(key),
                    lot_id BIGINT NOT NULL REFERENCES lots(id),
                    kind TEXT NOT NULL,
                    amount BIGINT NOT NULL CHECK (amount > 0),
                    operation_id TEXT,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX lot_takes_operation ON lot_takes (operation_id)",
            ]
        }
        let appendOnly = recordsTakes ? ["ledger_entries", "lot_takes"] : ["ledger_entries"]
        switch dialect {
        case .sqlite:
            for table in appendOnly {
                let name = table == "ledger_entries" ? "ledger" : table
                let message = table == "ledger_entries" ? "ledger entries are append-only" : "takes from lots are append-only"
                statements += [
                    """
                    CREATE TRIGGER \(name)_no_update BEFORE UPDATE ON \(table)
                    BEGIN SELECT RAISE(ABORT, '\(message)'); END
                    """,
                    """
                    CREATE TRIGGER \(name)_no_delete BEFORE DELETE ON \(table)
                    BEGIN SELECT RAISE(ABORT, '\(message)'); END
                    """,
                ]
            }
        case .postgres:
            statements += [
                """
                CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'ledger entries are append-only' USING ERRCODE = '23514'; END $$
                """
            ]
            for table in appendOnly {
                let name = table == "ledger_entries" ? "ledger" : table
                statements.append(
                    "CREATE TRIGGER \(name)_no_update BEFORE UPDATE OR DELETE ON \(table) FOR EACH ROW EXECUTE FUNCTION ledger_append_only()")
            }
        }
        return statements
    }
}
