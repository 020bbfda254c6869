import Foundation
import TallyCore
public import TallySQL

/// The rollups of the subscription and revenue figures (`metric_days`), kept in the
/// transaction of every write that changes what they count.
///
/// A write notes, before it changes them, the transactions of each original transaction it
/// touches (``note(_:original:)``) and the new rows it records (``noteNew(_:_:)``); the ledger
/// notes its entries. At the end of the write ``pending(_:)`` reads what the touched transactions
/// are now, and its ``WriteTail`` adds to the rollups the difference between their contributions
/// after and before (``MetricContributions/of(_:)``), with the ledger's, in one statement (on
/// SQLite one for all the writes of a group commit). So a rollup is
/// always the sum of the contributions of what is stored, whatever order things arrive in,
/// and ``rebuild(_:)`` and ``differences(_:)`` compute the same sums from scratch.
public enum MetricsRollup: Sendable {
    /// Notes the transactions of `original` as they are before this write changes any of them.
    static func note(_ context: WriteContext, original: String) async throws {
        guard !context.metrics.withLockedValue({ $0.before[original] != nil }) else { return }
        let transactions = try await context.fetchAll(
            MetricsTransaction.self, "SELECT \(MetricsTransaction.columns) FROM store_transactions WHERE original_transaction_id = \(original)")
        context.metrics.withLockedValue { state in
            guard state.before[original] == nil else { return }
            state.before[original] = transactions.filter { !state.inserted.contains($0.transactionID) }
        }
    }

    /// Notes the transactions of the original transaction of `transactionID`, in one read.
    static func note(_ context: WriteContext, originalOf transactionID: String) async throws {
        let transactions = try await context.fetchAll(
            MetricsTransaction.self,
            """
            SELECT \(MetricsTransaction.columns) FROM store_transactions WHERE original_transaction_id =
                (SELECT original_transaction_id FROM store_transactions WHERE transaction_id = \(transactionID))
            """)
        remember(context, transactions)
    }

    /// Keeps the transactions read as the ones before the write, unless noted already.
    private static func remember(_ context: WriteContext, _ rows: [MetricsTransaction]) {
        guard let original = rows.first?.originalTransactionID else { return }
        context.metrics.withLockedValue { state in
            guard state.before[original] == nil else { return }
            state.before[original] = rows.filter { !state.inserted.contains($0.transactionID) }
        }
    }

    /// Notes a transaction this write records for the first time.
    static func noteNew(_ context: WriteContext, _ transaction: MetricsTransaction) {
        context.metrics.withLockedValue { state in
            state.inserted.insert(transaction.transactionID)
            state.new.append(transaction)
        }
    }

    /// Notes a ledger entry.
    static func noteLedger(_ context: WriteContext, kind: LedgerEntryKind, bucket: LedgerBucket, currency: String, amount: Int64) {
        let day = MetricContributions.day(context.now)
        let span: Int64 = bucket == .balance ? 0 : 1
        context.metrics.withLockedValue { state in
            state.ledger.add(
                MetricKey(environment: "", figure: .ledgerAmount, day: day, subject: kind.rawValue, currency: currency, span: span), amount)
            state.ledger.add(MetricKey(environment: "", figure: .ledgerEntries, day: day, subject: kind.rawValue, currency: currency, span: span), 1)
        }
    }

    /// The shard a write's rollup rows go to: on PostgreSQL concurrent writes add to one of
    /// ``shards`` rows per key, not all to one (whose lock would make every purchase of a day
    /// wait for the one before to commit); SQLite has one writer anyway. The shard is the
    /// connection's (its server process id's remainder): two connections meet on a row only
    /// when their remainders are equal (with a pool of 20, at least four pairs are), where a
    /// shard drawn at random for each write made concurrent writes meet at nearly every turn.
    static func shard(_ dialect: SQLDialect) -> SQL { dialect == .postgres ? "pg_backend_pid() % \(shards)" : "0" }

    /// What this write changed in the rollups; read once, at its end (the after state of the
    /// subscriptions it touched), and added by its ``WriteTail``.
    static func pending(_ context: WriteContext) async throws -> MetricContributions {
        let state = context.metrics.withLockedValue { $0 }
        var change = state.ledger
        if !state.before.isEmpty {
            var after: [String: [MetricsTransaction]] = [:]
            let originals = Array(state.before.keys)
            for transaction in try await context.fetchAll(
                MetricsTransaction.self, "SELECT \(MetricsTransaction.columns) FROM store_transactions WHERE original_transaction_id IN (\(list: originals))")
            {
                after[transaction.originalTransactionID, default: []].append(transaction)
            }
            for (original, before) in state.before {
                change.add(MetricContributions.of(after[original] ?? []))
                change.add(MetricContributions.of(before), times: -1)
            }
        }
        for transaction in state.new where state.before[transaction.originalTransactionID] == nil {
            change.add(MetricContributions.of([transaction]))
        }
        return change
    }

    /// How many rows a key's changes are spread over on PostgreSQL.
    static let shards: Int64 = 16

    /// Adds changes to the rollup rows of one shard.
    static func add(_ contributions: MetricContributions, _ executor: any SQLExecutor, shard: Int64 = 0) async throws {
        let statements = upserts(contributions, shard: "\(shard)") { SQL.rowRuns($0, largest: 400) }
        for statement in statements { try await executor.execute(statement) }
    }

    /// The upserts that add changes to the rollup rows of one shard, in key order (so that two
    /// writes lock the rows they share in the same order).
    /// - Parameters:
    ///   - contributions: the changes.
    ///   - shard: the shard's expression.
    ///   - runs: how the rows are split among statements, given their count.
    static func upserts(_ contributions: MetricContributions, shard: SQL, runs: (Int) -> [Range<Int>]) -> [SQL] {
        let changes = contributions.changes.sorted { ($0.0.figure.rawValue, $0.0.day, $0.0.subject) < ($1.0.figure.rawValue, $1.0.day, $1.0.subject) }
        return runs(changes.count).map { run in
            var values = SQL()
            for (key, value) in changes[run] {
                let group = contributions.groups[key.subject] ?? ""
                if !values.isEmpty { values += ", " }
                values += "(\(key.environment), \(key.figure.rawValue), \(key.day), \(key.subject), \(key.currency), \(key.span), \(shard), \(group), \(value))"
            }
            return """
                INSERT INTO metric_days (environment, figure, day, subject, currency, span, shard, subscription_group, value)
                VALUES \(values)
                ON CONFLICT (environment, figure, day, subject, currency, span, shard)
                DO UPDATE SET value = metric_days.value + excluded.value, subscription_group = excluded.subscription_group
                """
        }
    }

    // MARK: - From scratch

    /// Every rollup computed from the stored transactions and ledger.
    static func computed(_ executor: any SQLExecutor) async throws -> MetricContributions {
        var result = MetricContributions()
        var group: [MetricsTransaction] = []
        var after: (original: String, transaction: String)?
        // Page by (original, transaction), so each original's transactions are taken whole.
        while true {
            let keyset: SQL =
                after.map {
                    "WHERE original_transaction_id > \($0.original) OR (original_transaction_id = \($0.original) AND transaction_id > \($0.transaction))"
                }
                ?? ""
            let transactions = try await executor.fetchAll(
                MetricsTransaction.self,
                "SELECT \(MetricsTransaction.columns) FROM store_transactions \(keyset) ORDER BY original_transaction_id, transaction_id LIMIT 10000")
            for transaction in transactions {
                if let first = group.first, first.originalTransactionID != transaction.originalTransactionID {
                    result.add(MetricContributions.of(group))
                    group = []
                }
                group.append(transaction)
                after = (transaction.originalTransactionID, transaction.transactionID)
            }
            if transactions.count < 10000 { break }
        }
        result.add(MetricContributions.of(group))
        typealias Columns = LedgerDayRow.Columns
        for row in try await executor.fetchAll(
            LedgerDayRow.self,
            """
            SELECT \(Columns.kind), \(Columns.bucket), \(Columns.currency), created_at / 86400000 AS \(Columns.day), \
            CAST(SUM(amount) AS BIGINT) AS \(Columns.total), COUNT(*) AS \(Columns.count)
            FROM ledger_entries GROUP BY kind, bucket, currency, created_at / 86400000
            """)
        {
            let span: Int64 = row.bucket == LedgerBucket.balance.rawValue ? 0 : 1
            result.add(MetricKey(environment: "", figure: .ledgerAmount, day: row.day, subject: row.kind, currency: row.currency, span: span), row.total)
            result.add(MetricKey(environment: "", figure: .ledgerEntries, day: row.day, subject: row.kind, currency: row.currency, span: span), row.count)
        }
        return result
    }

    /// Recomputes every rollup from the stored transactions and ledger, in place of what is there.
    public static func rebuild(_ database: any SQLDatabase) async throws {
        try await database.write { executor in try await rebuild(executor) }
    }

    static func rebuild(_ executor: any SQLExecutor) async throws {
        let computed = try await computed(executor)
        try await executor.execute("DELETE FROM metric_days")
        try await add(computed, executor)
        try await executor.execute(
            "INSERT INTO metric_state (name, value) VALUES ('rollups', 1) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
    }

    /// Builds the rollups once on a database that had transactions or a ledger before they existed.
    public static func ensureBuilt(_ database: any SQLDatabase) async throws {
        try await database.write { executor in
            // Claimed by inserting the mark first: an instance starting beside this one waits on
            // the row, then finds it, instead of rebuilding too and adding the sums twice.
            let claimed = try await executor.execute("INSERT INTO metric_state (name, value) VALUES ('rollups', 1) ON CONFLICT (name) DO NOTHING")
            guard claimed == 1 else { return }
            try await rebuild(executor)
        }
    }

    /// A rollup that differs from the one computed from scratch.
    public struct Difference: Sendable, Hashable, Codable, CustomStringConvertible {
        public var environment: String
        public var figure: String
        /// Days since 1970-01-01 UTC.
        public var day: Int64
        public var subject: String
        public var currency: String
        public var span: Int64
        public var stored: Int64
        public var computed: Int64

        public var description: String {
            "\(figure) \(environment.isEmpty ? "-" : environment) day \(day) \(subject) \(currency)\(span == 0 ? "" : " span \(span)"): stored \(stored), computed \(computed)"
        }
    }

    /// Where the stored rollups differ from the ones computed from scratch.
    static func differences(_ executor: any SQLExecutor) async throws -> [Difference] {
        let computed = try await computed(executor).values.filter { $0.value != 0 }
        var stored: [MetricKey: Int64] = [:]
        for row in try await executor.fetchAll(
            StoredRow.self,
            """
            SELECT environment, figure, day, subject, currency, span, CAST(SUM(value) AS BIGINT) AS \(StoredRow.Columns.total) FROM metric_days
            GROUP BY environment, figure, day, subject, currency, span
            """)
        {
            guard let figure = MetricFigure(rawValue: row.figure), row.total != 0 else { continue }
            stored[MetricKey(environment: row.environment, figure: figure, day: row.day, subject: row.subject, currency: row.currency, span: row.span)] =
                row.total
        }
        var differences: [Difference] = []
        for key in Set(stored.keys).union(computed.keys) where stored[key] != computed[key] {
            differences.append(
                Difference(
                    environment: key.environment, figure: key.figure.rawValue, day: key.day, subject: key.subject, currency: key.currency,
                    span: key.span, stored: stored[key] ?? 0, computed: computed[key] ?? 0))
        }
        return differences.sorted { ($0.figure, $0.day, $0.subject, $0.currency) < ($1.figure, $1.day, $1.subject, $1.currency) }
    }
}

extension MetricsRollup {
    /// The ledger's entries of one kind, bucket and currency on one day: their sum and count.
    private struct LedgerDayRow: SQLRowDecodable {
        enum Columns {
            static let kind = SQLColumn("kind")
            static let bucket = SQLColumn("bucket")
            static let currency = SQLColumn("currency")
            static let day = SQLColumn("day")
            static let total = SQLColumn("total")
            static let count = SQLColumn("n")
        }

        let kind: String
        let bucket: String
        let currency: String
        let day: Int64
        let total: Int64
        let count: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            kind = try row.text(Columns.kind)
            bucket = try row.text(Columns.bucket)
            currency = try row.text(Columns.currency)
            day = try row.int(Columns.day)
            total = try row.int(Columns.total)
            count = try row.int(Columns.count)
        }
    }

    /// A stored rollup, summed over its shards.
    private struct StoredRow: SQLRowDecodable {
        enum Columns {
            static let environment = SQLColumn("environment")
            static let figure = SQLColumn("figure")
            static let day = SQLColumn("day")
            static let subject = SQLColumn("subject")
            static let currency = SQLColumn("currency")
            static let span = SQLColumn("span")
            static let total = SQLColumn("total")
        }

        let environment: String
        /// The figure's raw name: one this version does not know is left out of the comparison.
        let figure: String
        let day: Int64
        let subject: String
        let currency: String
        let span: Int64
        let total: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            environment = try row.text(Columns.environment)
            figure = try row.text(Columns.figure)
            day = try row.int(Columns.day)
            subject = try row.text(Columns.subject)
            currency = try row.text(Columns.currency)
            span = try row.int(Columns.span)
            total = try row.int(Columns.total)
        }
    }
}

/// What a write noted for the rollups.
struct MetricsNotes: Sendable {
    /// The transactions of each original transaction touched, before the write.
    var before: [String: [MetricsTransaction]] = [:]
    /// Transactions recorded by the write.
    var new: [MetricsTransaction] = []
    var inserted: Set<String> = []
    /// The ledger's entries.
    var ledger = MetricContributions()
}
