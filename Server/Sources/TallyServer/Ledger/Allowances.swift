import Foundation
import TallyCore
import TallyLedger
import TallySQL

/// Subscription allowances: a fixed amount per period (3600 seconds a month), spent before
/// purchased balance, reset each period, never accumulated.
///
/// A window is the part of a paid subscription period that falls in one allowance period,
/// counted from the period's purchase date; its row is made the first time it is needed.
struct Allowances {
    let context: WriteContext
    let catalog: TallyCatalog
    var now: Int64 { context.now }
    private var executor: any SQLExecutor { context }

    struct Window: Equatable {
        var originalTransactionID: String
        var start: Int64
        var end: Int64
        var granted: Int64
        var used: Int64
        var held: Int64
        var free: Int64 { granted - used - held }
    }

    /// The paid period an allowance comes from: the user's latest unrevoked transaction, paid
    /// through `time`, of a product whose allowance is in the currency.
    struct SourceRow: SQLRowDecodable {
        enum Columns {
            static let originalTransactionID = SQLColumn("original_transaction_id")
            static let productID = SQLColumn("product_id")
            static let purchaseDate = SQLColumn("purchase_date")
            static let expiresDate = SQLColumn("expires_date")
        }

        let originalTransactionID: String
        let productID: String
        let purchaseDate: Int64
        let expiresDate: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            originalTransactionID = try row.text(Columns.originalTransactionID)
            productID = try row.text(Columns.productID)
            purchaseDate = try row.int(Columns.purchaseDate)
            expiresDate = try row.int(Columns.expiresDate)
        }

        /// The statement that reads it, for `user` at `time` among `productIDs`.
        static func query(user: String, productIDs: [String], time: Int64) -> SQL {
            """
            SELECT \(Columns.originalTransactionID), \(Columns.productID), \(Columns.purchaseDate), \(Columns.expiresDate) \
            \(rows(user: user, productIDs: productIDs, time: time))
            ORDER BY purchase_date DESC LIMIT 1
            """
        }

        /// Where the sources are: `user`'s subscriptions among `productIDs` that run at `time`.
        static func rows(user: String, productIDs: [String], time: Int64) -> SQL {
            """
            FROM store_transactions
            WHERE user_id = \(user) AND granted = 1 AND revoked = 0 AND purchase_date <= \(time) AND expires_date > \(time)
              AND product_id IN (\(list: productIDs))
            """
        }
    }

    /// A row of `allowance_windows` as a window is read back: its end and what it holds.
    struct WindowRow: SQLRowDecodable {
        enum Columns {
            static let windowEnd = SQLColumn("window_end")
            static let granted = SQLColumn("granted")
            static let used = SQLColumn("used")
            static let held = SQLColumn("held")
        }

        let windowEnd: Int64
        let granted: Int64
        let used: Int64
        let held: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            windowEnd = try row.int(Columns.windowEnd)
            granted = try row.int(Columns.granted)
            used = try row.int(Columns.used)
            held = try row.int(Columns.held)
        }
    }

    /// The current window of `currency` for the user, made if needed; nil without an active allowance.
    func current(_ user: String, _ currency: String) async throws -> Window? {
        let products = catalog.products.filter { $0.allowance?.currency == currency }
        guard !products.isEmpty else { return nil }
        let source = try await executor.fetchOne(SourceRow.self, SourceRow.query(user: user, productIDs: products.map(\.productID), time: now))
        guard let source, let product = catalog.product(source.productID), let allowance = product.allowance else {
            return nil
        }
        let original = source.originalTransactionID
        let (start, end) = Self.window(containing: now, anchor: source.purchaseDate, limit: source.expiresDate, per: allowance.per)
        let inserted = try await executor.execute(
            """
            INSERT INTO allowance_windows (user_id, currency, original_transaction_id, window_start, window_end, granted)
            VALUES (\(user), \(currency), \(original), \(start), \(end), \(allowance.amount)) ON CONFLICT DO NOTHING
            """)
        if inserted == 1 {
            try await context.ledger.entry(
                user, currency, kind: .allowanceGrant, amount: allowance.amount, bucket: .allowance, transaction: original)
        }
        return try await window(original: original, currency: currency, start: start)
    }

    func window(original: String, currency: String, start: Int64) async throws -> Window? {
        let row = try await executor.fetchOne(
            WindowRow.self,
            """
            SELECT \(WindowRow.Columns.windowEnd), \(WindowRow.Columns.granted), \(WindowRow.Columns.used), \(WindowRow.Columns.held) \
            FROM allowance_windows
            WHERE original_transaction_id = \(original) AND currency = \(currency) AND window_start = \(start)
            """)
        guard let row else { return nil }
        return Window(originalTransactionID: original, start: start, end: row.windowEnd, granted: row.granted, used: row.used, held: row.held)
    }

    /// Uses `amount` of the window now; false when it has less free.
    func use(_ window: Window, user: String, currency: String, amount: Int64, operation: String?, reference: String?) async throws -> Bool {
        guard amount > 0 else { return true }
        let changed = try await executor.execute(
            """
            UPDATE allowance_windows SET used = used + \(amount)
            WHERE original_transaction_id = \(window.originalTransactionID) AND currency = \(currency) AND window_start = \(window.start) \
            AND granted - used - held >= \(amount)
            """)
        guard changed == 1 else { return false }
        try await context.ledger.entry(
            user, currency, kind: .allowanceSpend, amount: -amount, bucket: .allowance, operation: operation, reference: reference)
        return true
    }

    func hold(_ window: Window, currency: String, amount: Int64) async throws -> Bool {
        guard amount > 0 else { return true }
        let changed = try await executor.execute(
            """
            UPDATE allowance_windows SET held = held + \(amount)
            WHERE original_transaction_id = \(window.originalTransactionID) AND currency = \(currency) AND window_start = \(window.start) \
            AND granted - used - held >= \(amount)
            """)
        return changed == 1
    }

    /// Ends a hold on a window: `used` of `held` is spent, the rest is free again (if the window is still open).
    func settle(
        original: String, currency: String, start: Int64, held: Int64, used: Int64, user: String,
        operation: String?, reference: String?
    ) async throws {
        guard held > 0 else { return }
        try await executor.execute(
            """
            UPDATE allowance_windows SET held = held - \(held), used = used + \(used)
            WHERE original_transaction_id = \(original) AND currency = \(currency) AND window_start = \(start)
            """)
        try await context.ledger.entry(
            user, currency, kind: .allowanceSpend, amount: -used, bucket: .allowance, operation: operation, reference: reference)
    }

    /// The allowance period that contains `time`, counted from `anchor` in steps of `per`
    /// (calendar steps in UTC), ending no later than `limit`.
    static func window(containing time: Int64, anchor: Int64, limit: Int64, per: AllowancePeriod) -> (start: Int64, end: Int64) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let component: Calendar.Component =
            switch per {
            case .day: .day
            case .week: .weekOfYear
            case .year: .year
            default: .month  // the catalog admits known periods only
            }
        let anchorDate = EpochMilliseconds.date(anchor)
        let target = EpochMilliseconds.date(time)
        var steps = max(0, calendar.dateComponents([component], from: anchorDate, to: target).value(for: component) ?? 0)
        var start = calendar.date(byAdding: component, value: steps, to: anchorDate) ?? anchorDate
        if start > target, steps > 0 {
            steps -= 1
            start = calendar.date(byAdding: component, value: steps, to: anchorDate) ?? anchorDate
        }
        let end = calendar.date(byAdding: component, value: steps + 1, to: anchorDate) ?? target
        return (EpochMilliseconds.of(start), min(limit, EpochMilliseconds.of(end)))
    }
}
