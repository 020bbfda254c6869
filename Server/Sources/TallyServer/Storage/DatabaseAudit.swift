public import TallySQL

/// What a check of a Tally database found: which schema it has, how much it holds, and
/// whether every balance equals the sum of its ledger, on one consistent snapshot.
///
/// The same statements run on SQLite and PostgreSQL. A backup is checked with it before it is
/// kept, a restore before it is put in place, and `tally check` runs it on a live database.
///
/// ```swift
/// let audit = try await DatabaseAudit.run(on: database)
/// if !audit.isConsistent { print(audit.mismatches) }  // e.g. "u1/credits: ledger 52 ≠ balance 50"
/// ```
public struct DatabaseAudit: Sendable, Hashable, Codable {
    /// The migrations the database has applied, in order of name.
    public var migrations: [String]
    /// The migrations of this version of Tally it has not applied yet (they run when `tally serve` starts).
    public var pendingMigrations: [String]
    /// How many users.
    public var users: Int64
    /// How many store transactions were recorded.
    public var storeTransactions: Int64
    /// How many ledger entries.
    public var ledgerEntries: Int64
    /// Every currency's totals over all users.
    public var balances: [CurrencyTotal]
    /// The first few positions whose balance differs from their ledger or from their lots.
    public var mismatches: [Mismatch]
    /// How many such positions there are in all.
    public var mismatchCount: Int64
    /// The first few rollups of the metrics (``MetricsRollup``) that differ from the ones
    /// computed from scratch from the transactions and the ledger.
    public var rollupDifferences: [MetricsRollup.Difference]
    /// How many such rollups there are in all.
    public var rollupDifferenceCount: Int

    /// Whether every balance equals the sum of its ledger entries and of its lots, and every
    /// rollup what the stored data sums to.
    public var isConsistent: Bool { mismatchCount == 0 && rollupDifferenceCount == 0 }

    /// One currency's totals: the sums of every user's position and of the ledger.
    public struct CurrencyTotal: Sendable, Hashable, Codable {
        /// The currency.
        public var currency: String
        /// Units spendable now, over all users.
        public var available: Int64
        /// Units reserved, over all users.
        public var held: Int64
        /// Units owed after refunds of spent units, over all users.
        public var debt: Int64
        /// The sum of the currency's balance entries in the ledger; equals `available + held − debt` when consistent.
        public var ledger: Int64

        /// Creates totals.
        public init(currency: String, available: Int64, held: Int64, debt: Int64, ledger: Int64) {
            self.currency = currency
            self.available = available
            self.held = held
            self.debt = debt
            self.ledger = ledger
        }
    }

    /// A user's position in one currency that does not add up.
    public struct Mismatch: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The user.
        public var userID: String
        /// The currency.
        public var currency: String
        /// What disagrees: `ledger` (the ledger's sum against `available + held − debt`) or
        /// `lots` (the lots' remaining units against `available + held`).
        public var kind: String
        /// What the position says.
        public var expected: Int64
        /// What the ledger or the lots sum to.
        public var found: Int64

        /// Creates a mismatch.
        public init(userID: String, currency: String, kind: String, expected: Int64, found: Int64) {
            self.userID = userID
            self.currency = currency
            self.kind = kind
            self.expected = expected
            self.found = found
        }

        /// The user, currency and kind of the mismatch, with what was found and expected.
        public var description: String { "\(userID)/\(currency): \(kind) \(found) ≠ balance \(expected)" }
    }

    /// How many mismatches are listed; ``mismatchCount`` counts them all.
    public static let listedMismatches = 20

    /// Checks `database` on one snapshot (a read transaction).
    /// - Throws: ``DatabaseMaintenanceError`` `not_a_tally_database` when the tables are not
    ///   Tally's, `newer_schema` when it was migrated by a newer Tally.
    public static func run(on database: any SQLDatabase) async throws -> DatabaseAudit {
        do {
            return try await database.read { executor in try await run(on: executor) }
        } catch let error as DatabaseMaintenanceError {
            throw error
        } catch {
            throw DatabaseMaintenanceError(.notATallyDatabase, "cannot read it as a Tally database: \(error)")
        }
    }

    /// Checks the database inside a transaction the caller opened (it should be one snapshot).
    /// - Throws: ``DatabaseMaintenanceError``, as the public `run(on:)`.
    static func run(on executor: any SQLExecutor) async throws -> DatabaseAudit {
        let applied: [String]
        do {
            applied = try await executor.fetchAll(
                MigrationRow.self, "SELECT \(MigrationRow.Columns.name) FROM schema_migrations ORDER BY name"
            ).map(\.name)
        } catch {
            throw DatabaseMaintenanceError(.notATallyDatabase, "it has no schema_migrations table (\(error))")
        }
        // Names folded into a migration are recorded with it (see `Migration.folds`).
        let known = Migrations.all.flatMap { [$0.name] + $0.folds }
        let unknown = applied.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw DatabaseMaintenanceError(
                .newerSchema, "it was migrated by a newer Tally (migrations \(unknown.joined(separator: ", ")) are unknown here): upgrade tally first")
        }
        guard applied.contains(Migrations.core.name) else {
            throw DatabaseMaintenanceError(.notATallyDatabase, "the migration \(Migrations.core.name) was never applied")
        }

        func count(_ table: SQL) async throws -> Int64 {
            try await executor.fetchOne(CountRow.self, "SELECT COUNT(*) AS \(CountRow.Columns.count) FROM \(table)")?.count ?? 0
        }
        typealias TotalColumns = CurrencyTotalRow.Columns
        let balances = try await executor.fetchAll(
            CurrencyTotalRow.self,
            """
            SELECT c.currency AS \(TotalColumns.currency),
                   COALESCE(p.available, 0) AS \(TotalColumns.available), COALESCE(p.held, 0) AS \(TotalColumns.held), COALESCE(p.debt, 0) AS \(TotalColumns.debt),
                   COALESCE(l.total, 0) AS \(TotalColumns.ledger)
            FROM (SELECT currency FROM positions UNION SELECT currency FROM ledger_entries WHERE bucket = 'balance') c
            LEFT JOIN (SELECT currency, CAST(SUM(available) AS BIGINT) AS available, CAST(SUM(held) AS BIGINT) AS held,
                              CAST(SUM(debt) AS BIGINT) AS debt
                       FROM positions GROUP BY currency) p ON p.currency = c.currency
            LEFT JOIN (SELECT currency, CAST(SUM(amount) AS BIGINT) AS total
                       FROM ledger_entries WHERE bucket = 'balance' GROUP BY currency) l ON l.currency = c.currency
            ORDER BY c.currency
            """
        ).map(\.total)

        let mismatchCount =
            try await executor.fetchOne(CountRow.self, "SELECT COUNT(*) AS \(CountRow.Columns.count) FROM (\(mismatchSQL)) m")?.count ?? 0
        typealias MismatchColumns = MismatchRow.Columns
        let mismatches = try await executor.fetchAll(
            MismatchRow.self,
            """
            SELECT \(MismatchColumns.userID), \(MismatchColumns.currency), \(MismatchColumns.kind), \(MismatchColumns.expected), \(MismatchColumns.found) FROM (\(mismatchSQL)) m \
            ORDER BY user_id, currency, kind LIMIT \(raw: String(listedMismatches))
            """
        ).map(\.mismatch)
        // Rollups exist once `0005_metrics` ran; before that, there is nothing to compare.
        let differences = applied.contains(Migrations.metrics.name) ? try await MetricsRollup.differences(executor) : []
        return DatabaseAudit(
            migrations: applied, pendingMigrations: known.filter { !applied.contains($0) },
            users: try await count("users"), storeTransactions: try await count("store_transactions"),
            ledgerEntries: try await count("ledger_entries"), balances: balances,
            mismatches: mismatches, mismatchCount: mismatchCount,
            rollupDifferences: Array(differences.prefix(listedMismatches)), rollupDifferenceCount: differences.count)
    }

    /// Every (user, currency) whose ledger does not sum to `available + held − debt`, or whose
    /// lots do not sum to `available + held`; a ledger or lots without a position count as a
    /// position of zero.
    private static let mismatchSQL: SQL = """
        SELECT k.user_id AS user_id, k.currency AS currency, 'ledger' AS kind,
               COALESCE(p.available + p.held - p.debt, 0) AS expected, COALESCE(l.total, 0) AS found
        FROM (SELECT user_id, currency FROM positions
              UNION SELECT user_id, currency FROM ledger_entries WHERE bucket = 'balance') k
        LEFT JOIN positions p ON p.user_id = k.user_id AND p.currency = k.currency
        LEFT JOIN (SELECT user_id, currency, CAST(SUM(amount) AS BIGINT) AS total
                   FROM ledger_entries WHERE bucket = 'balance' GROUP BY user_id, currency) l
               ON l.user_id = k.user_id AND l.currency = k.currency
        WHERE COALESCE(p.available + p.held - p.debt, 0) <> COALESCE(l.total, 0)
        UNION ALL
        SELECT k.user_id, k.currency, 'lots',
               COALESCE(p.available + p.held, 0), COALESCE(s.total, 0)
        FROM (SELECT user_id, currency FROM positions UNION SELECT user_id, currency FROM lots) k
        LEFT JOIN positions p ON p.user_id = k.user_id AND p.currency = k.currency
        LEFT JOIN (SELECT user_id, currency, CAST(SUM(remaining) AS BIGINT) AS total
                   FROM lots GROUP BY user_id, currency) s
               ON s.user_id = k.user_id AND s.currency = k.currency
        WHERE COALESCE(p.available + p.held, 0) <> COALESCE(s.total, 0)
        """

    // MARK: - Rows

    /// An applied migration's name.
    private struct MigrationRow: SQLRowDecodable {
        enum Columns {
            static let name = SQLColumn("name")
        }

        let name: String

        init(row: SQLRow) throws(SQLDatabaseError) {
            name = try row.text(Columns.name)
        }
    }

    /// A count of rows.
    private struct CountRow: SQLRowDecodable {
        enum Columns {
            static let count = SQLColumn("n")
        }

        let count: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            count = try row.int(Columns.count)
        }
    }

    /// One currency's totals (``CurrencyTotal``).
    private struct CurrencyTotalRow: SQLRowDecodable {
        enum Columns {
            static let currency = SQLColumn("currency")
            static let available = SQLColumn("available")
            static let held = SQLColumn("held")
            static let debt = SQLColumn("debt")
            static let ledger = SQLColumn("ledger")
        }

        let total: CurrencyTotal

        init(row: SQLRow) throws(SQLDatabaseError) {
            total = CurrencyTotal(
                currency: try row.text(Columns.currency), available: try row.int(Columns.available), held: try row.int(Columns.held),
                debt: try row.int(Columns.debt), ledger: try row.int(Columns.ledger))
        }
    }

    /// A position that does not add up (``Mismatch``), as `mismatchSQL` names its columns.
    private struct MismatchRow: SQLRowDecodable {
        enum Columns {
            static let userID = SQLColumn("user_id")
            static let currency = SQLColumn("currency")
            static let kind = SQLColumn("kind")
            static let expected = SQLColumn("expected")
            static let found = SQLColumn("found")
        }

        let mismatch: Mismatch

        init(row: SQLRow) throws(SQLDatabaseError) {
            mismatch = Mismatch(
                userID: try row.text(Columns.userID), currency: try row.text(Columns.currency), kind: try row.text(Columns.kind),
                expected: try row.int(Columns.expected), found: try row.int(Columns.found))
        }
    }
}
