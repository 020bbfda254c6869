import Foundation
import TallyCore
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

    /// The current window of `currency` for the user, made if needed; nil without an active allowance.
    func current(_ user: String, _ currency: String) async throws -> Window? {
        let products = catalog.products.filter { $0.allowance?.currency == currency }
        guard !products.isEmpty else { return nil }
        let rows = try await executor.query(
            """
            SELECT original_transaction_id, product_id, purchase_date, expires_date FROM store_transactions
            WHERE user_id = \(user) AND granted = 1 AND revoked = 0 AND purchase_date <= \(now) AND expires_date > \(now)
              AND product_id IN (\(list: products.map(\.productID)))
            ORDER BY purchase_date DESC LIMIT 1
            """)
        guard let row = rows.first, let product = catalog.product(try row.text("product_id")), let allowance = product.allowance else {
            return nil
        }
        let original = try row.text("original_transaction_id")
        let (start, end) = Self.window(
            containing: now, anchor: try row.int("purchase_date"), limit: try row.int("expires_date"), per: allowance.per)
        let inserted = try await executor.execute(
            """
            INSERT INTO allowance_windows (user_id, currency, original_transaction_id, window_start, window_end, granted)
            VALUES (\(user), \(currency), \(original), \(start), \(end), \(allowance.amount)) ON CONFLICT DO NOTHING
            """)
        if inserted == 1 {
            try await Ledger(context).entry(
                user, currency, kind: .allowanceGrant, amount: allowance.amount, bucket: .allowance, transaction: original)
        }
        return try await window(original: original, currency: currency, start: start)
    }

    func window(original: String, currency: String, start: Int64) async throws -> Window? {
        let rows = try await executor.query(
            """
            SELECT window_end, granted, used, held FROM allowance_windows
            WHERE original_transaction_id = \(original) AND currency = \(currency) AND window_start = \(start)
            """)
        guard let row = rows.first else { return nil }
        return Window(
            originalTransactionID: original, start: start, end: try row.int("window_end"),
            granted: try row.int("granted"), used: try row.int("used"), held: try row.int("held"))
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
        try await Ledger(context).entry(
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
        try await Ledger(context).entry(
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
