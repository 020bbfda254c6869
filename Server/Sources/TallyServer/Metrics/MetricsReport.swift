public import Foundation

/// What a subscription business reads each morning, over a window of whole UTC days, for one
/// environment and optionally some products: subscriptions and trials, MRR and its movement,
/// trial conversion and retention cohorts, revenue and refunds, and credits.
///
/// Every figure is read from the rollups (``MetricsRollup``), kept in the transaction of each
/// write; docs/metrics.md defines each one.
public struct MetricsReport: Sendable, Hashable, Codable {
    /// The first day of the window (its UTC midnight).
    public var from: Date
    /// The day after the last one (its UTC midnight).
    public var to: Date
    /// `Production`, `Sandbox` or `Xcode`.
    public var environment: String
    /// The products the subscription and revenue figures cover; nil for all.
    public var productIDs: [String]?
    /// One line per UTC day of the window.
    public var days: [Day]
    /// Revenue and refunds per day and currency (only days and currencies with any).
    public var revenue: [Revenue]
    /// MRR per currency at the end of the window, and how it moved in the window.
    public var mrr: [MRR]
    /// Trials started per month of the window's months, and how many of them became paid.
    public var trialCohorts: [TrialCohort]
    /// Paid subscribers by the month their paid subscription started, and how many were still
    /// paying after each whole month.
    public var retention: [RetentionCohort]
    /// Credits sold, spent and outstanding per currency (every environment: the ledger's).
    public var credits: [Credits]

    // `productIds`, which the API's snake case writes `product_ids`.
    private enum CodingKeys: String, CodingKey {
        case from, to, environment, productIDs = "productIds", days, revenue, mrr, trialCohorts, retention, credits
    }

    /// Subscriptions on one day.
    public struct Day: Sendable, Hashable, Codable {
        /// The day's UTC midnight.
        public var start: Date
        /// Paid subscriptions active at the end of the day (or now, for today).
        public var activeSubscriptions: Int64
        /// Free trials active at the end of the day.
        public var activeTrials: Int64
        /// Paid subscriptions that started (a first payment, a trial converted, a return after a lapse).
        public var new: Int64
        /// Paid periods that continued a subscription (renewals, billing retry recovered).
        public var renewed: Int64
        /// Paid subscriptions that ended without a renewal (expired, refunded, revoked).
        public var churned: Int64
        /// Free trials that started.
        public var trialsStarted: Int64
    }

    /// Payments and refunds of one currency on one day.
    public struct Revenue: Sendable, Hashable, Codable {
        public var day: Date
        /// The currency Apple signed; `""` for transactions without a price (app receipts).
        public var currency: String
        /// Payments (purchases and renewals) on the day.
        public var purchases: Int64
        /// Their signed prices, in milliunits.
        public var milliunits: Int64
        /// Refunds and revocations on the day, of payments of any day.
        public var refunds: Int64
        /// Their signed prices, in milliunits.
        public var refundedMilliunits: Int64
    }

    /// Monthly recurring revenue of one currency.
    public struct MRR: Sendable, Hashable, Codable {
        public var currency: String
        /// At the end of the window: every active paid subscription's price normalised to a
        /// month, in milliunits (rounded down from the exact annual sum ÷ 12).
        public var milliunits: Int64
        /// At the start of the window.
        public var startMilliunits: Int64
        /// Added by new paid subscriptions in the window.
        public var new: Int64
        /// Added by renewals to a dearer plan (upgrades, crossgrades).
        public var expansion: Int64
        /// Taken by renewals to a cheaper plan (downgrades); a positive number.
        public var contraction: Int64
        /// Taken by paid subscriptions that ended; a positive number.
        public var churned: Int64
    }

    /// Trials that started in one month.
    public struct TrialCohort: Sendable, Hashable, Codable {
        /// The month's first UTC midnight.
        public var month: Date
        public var started: Int64
        /// Of those, the ones followed by a paid period.
        public var converted: Int64
    }

    /// Paid subscribers whose paid subscription started in one month.
    public struct RetentionCohort: Sendable, Hashable, Codable {
        public var month: Date
        public var subscribers: Int64
        /// `retained[k]`: of `subscribers`, those still paying k whole months after they
        /// started, for every k the calendar has reached.
        public var retained: [Int64]
    }

    /// Credits of one currency.
    public struct Credits: Sendable, Hashable, Codable {
        public var currency: String
        /// Granted by purchases in the window.
        public var sold: Int64
        /// Spent in the window (spends and reservations' commits), a positive number.
        public var spent: Int64
        /// Owed to users at the end of the window: granted, not spent or taken back (available + held − debt).
        public var outstanding: Int64
    }
}

/// Which figures a ``MetricsReport`` covers.
public struct MetricsQuery: Sendable, Hashable {
    /// The first day: the UTC day this instant falls in.
    public var from: Date
    /// The last day: the UTC day this instant falls in (included).
    public var through: Date
    /// `Production` by default; the sandbox is read apart.
    public var environment: String
    /// Only this product's subscriptions and payments.
    public var productID: String?
    /// Only the products of this subscription group (as Apple signed it).
    public var subscriptionGroup: String?

    public init(from: Date, through: Date, environment: String = "Production", productID: String? = nil, subscriptionGroup: String? = nil) {
        self.from = from
        self.through = through
        self.environment = environment
        self.productID = productID
        self.subscriptionGroup = subscriptionGroup
    }

    /// The most days one report covers.
    public static let maximumDays = 400
}
