import Foundation
import TallyCore
import TallySQL

extension ConsoleBenchmark {
    /// The auto-renewable subscriptions the fill makes: the catalog's auto-renewable products
    /// as one subscription group, sold in a few currencies, each subscription a run of periods
    /// (a free trial first for some, renewals until it churns, a refund for a few).
    struct SubscriptionShape: Sendable {
        /// The group as Apple signs it (`subscriptionGroupIdentifier`).
        static let group = "21000001"

        struct Plan: Sendable {
            var productID: String
            /// Months a period lasts: 1 or 12.
            var months: Int
        }

        /// A currency with its storefront, its prices in milliunits for a month and a year,
        /// and its share of the subscriptions in percent.
        struct Money: Sendable {
            var currency: String
            var storefront: String
            var monthly: Int64
            var yearly: Int64
            var percent: Int
        }

        static let money = [
            Money(currency: "USD", storefront: "USA", monthly: 4_990, yearly: 39_990, percent: 60),
            Money(currency: "EUR", storefront: "DEU", monthly: 5_490, yearly: 44_990, percent: 30),
            Money(currency: "UAH", storefront: "UKR", monthly: 199_000, yearly: 1_499_000, percent: 10),
        ]

        var plans: [Plan]

        /// The catalog's auto-renewable products, the yearly one (by name) last; nil when the
        /// catalog has none.
        init?(_ catalog: TallyCatalog) {
            let products = catalog.products.filter { $0.kind == .autoRenewable }.map(\.productID)
            guard !products.isEmpty else { return nil }
            plans = products.map { Plan(productID: $0, months: $0.contains("year") ? 12 : 1) }
        }
    }

    /// One period of a subscription, as a row of `store_transactions`.
    struct Period {
        var id: Int64
        var original: Int64
        var user: String
        var productID: String
        var environment: String
        var ownership: String
        var start: Int64
        var end: Int64
        var price: Int64
        var money: SubscriptionShape.Money
        /// When it was refunded, if it was.
        var refundedAt: Int64?

        var row: String {
            let revoked = refundedAt != nil
            return """
                ('\(id)', '\(original)', '\(user)', '\(productID)', '\(ProductKind.autoRenewable.rawValue)', '\(environment)', 1, \
                \(start), \(end), \(start), 1, \(revoked ? 1 : 0), \(refundedAt.map(String.init) ?? "NULL"), \(revoked ? "0" : "NULL"), \
                'jws', 'x', \(start), \(price), '\(money.currency)', '\(money.storefront)', '\(ownership)', '\(SubscriptionShape.group)')
                """
        }
    }

    static let subscriptionColumns = """
        INSERT INTO store_transactions (transaction_id, original_transaction_id, user_id, product_id, product_kind, environment,
            quantity, purchase_date, expires_date, signed_date, granted, revoked, revocation_event_at, revocation_reason, evidence_kind,
            evidence, received_at, price, currency, storefront, ownership, subscription_group)
        VALUES
        """

    /// The first transaction id of the subscriptions' periods (the one-off purchases' are below).
    static let firstSubscriptionTransaction: Int64 = 4_000_000_000_000_000

    /// Writes `options.subscriptions` subscriptions that start over the `options.days` days
    /// before `now`, every period that began by `now`, ten thousand rows a transaction.
    ///
    /// Of the subscriptions, 90% are `Production` (monthly and yearly periods by the calendar)
    /// and 10% `Sandbox` (Apple's accelerated periods: 5 minutes a month, an hour a year, at
    /// most 12 renewals); 97% are `PURCHASED`, 3% a family member's `FAMILY_SHARED` copy. 30%
    /// begin with a week's free trial (price 0), half of which become paid; each renewal
    /// churns with 10% (monthly), 25% (yearly) or 20% (sandbox) chance and switches plan with
    /// 3%; 1.5% of the paid periods are refunded within ten days, which ends the subscription.
    /// - Returns: the periods written.
    static func fillSubscriptions(
        _ database: any SQLDatabase, shape: SubscriptionShape, users: [String], options: Options, now: Int64,
        random: inout some RandomNumberGenerator, progress: @Sendable (String) -> Void
    ) async throws -> Int {
        let calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            return calendar
        }()
        let first = now - Int64(options.days) * day
        let minute: Int64 = 60_000
        var nextID = firstSubscriptionTransaction
        var rows: [String] = []
        var periods = 0

        for index in 0..<options.subscriptions {
            let sandbox = index % 10 == 9
            let environment = sandbox ? "Sandbox" : "Production"
            let ownership = Int.random(in: 0..<100, using: &random) < 3 ? "FAMILY_SHARED" : "PURCHASED"
            var pick = Int.random(in: 0..<100, using: &random)
            let money =
                SubscriptionShape.money.first { money in
                    defer { pick -= money.percent }
                    return pick < money.percent
                } ?? SubscriptionShape.money[0]
            let user = users[Int.random(in: 0..<users.count, using: &random)]
            // Yearly for a quarter of them when there is a yearly plan.
            var plan = shape.plans[Int.random(in: 0..<4, using: &random) == 0 ? shape.plans.count - 1 : 0]
            let original = nextID
            var start = first + Int64.random(in: 0..<(now - first), using: &random)

            /// The end of a period of `months` that begins at `start`.
            func end(_ start: Int64, months: Int) -> Int64 {
                if sandbox { return start + (months == 12 ? 60 : 5) * minute }
                let date = Date(timeIntervalSince1970: Double(start) / 1000)
                return EpochMilliseconds.of(calendar.date(byAdding: .month, value: months, to: date) ?? date)
            }
            func append(_ period: Period) {
                rows.append(period.row)
                nextID += 1
                periods += 1
            }

            var paying = true
            if Int.random(in: 0..<10, using: &random) < 3 {
                let trialEnd = start + (sandbox ? 3 * minute : 7 * day)
                append(
                    Period(
                        id: nextID, original: original, user: user, productID: plan.productID, environment: environment, ownership: ownership,
                        start: start, end: trialEnd, price: 0, money: money, refundedAt: nil))
                start = trialEnd
                paying = Bool.random(using: &random)
            }
            var renewals = 0
            while paying, start < now {
                let periodEnd = end(start, months: plan.months)
                var refundedAt: Int64? = nil
                if Int.random(in: 0..<1000, using: &random) < 15 {
                    let at = start + Int64.random(in: (sandbox ? minute : day / 24)...(sandbox ? 5 * minute : 10 * day), using: &random)
                    if at < now { refundedAt = at }
                }
                append(
                    Period(
                        id: nextID, original: original, user: user, productID: plan.productID, environment: environment, ownership: ownership,
                        start: start, end: periodEnd, price: plan.months == 12 ? money.yearly : money.monthly, money: money,
                        refundedAt: refundedAt))
                if refundedAt != nil { break }
                renewals += 1
                let churn = sandbox ? 20 : plan.months == 12 ? 25 : 10
                if (sandbox && renewals > 12) || Int.random(in: 0..<100, using: &random) < churn { break }
                if shape.plans.count > 1, Int.random(in: 0..<100, using: &random) < 3 {
                    plan = shape.plans.filter { $0.productID != plan.productID }.randomElement(using: &random) ?? plan
                }
                start = periodEnd
            }
            if rows.count >= 10_000 {
                try await insert(database, Self.subscriptionColumns, rows)
                rows = []
            }
            if (index + 1) % 20_000 == 0, index + 1 < options.subscriptions { progress("subscriptions: \(index + 1) (\(periods) periods)") }
        }
        try await insert(database, Self.subscriptionColumns, rows)
        progress("subscriptions: \(options.subscriptions) (\(periods) periods)")
        return periods
    }

    /// Inserts `rows` (value tuples) after `head` (an `INSERT … VALUES`) in statements of 500
    /// rows, all in one transaction.
    static func insert(_ database: any SQLDatabase, _ head: String, _ rows: [String]) async throws {
        guard !rows.isEmpty else { return }
        let statements = stride(from: 0, to: rows.count, by: 500).map { rows[$0..<min(rows.count, $0 + 500)].joined(separator: ", ") }
        try await database.write { executor in
            for values in statements { try await executor.execute(head + values, []) }
        }
    }
}
