public import Foundation

/// The answer to `GET /v1/me`.
public struct AccountResponse: Codable, Hashable, Sendable {
    public var userID: String
    public var appAccountToken: UUID
    public var balances: [Balance]
    public var entitlements: [Entitlement]
    public var subscriptions: [SubscriptionInfo]

    /// Creates a value with every field.
    public init(userID: String, appAccountToken: UUID, balances: [Balance], entitlements: [Entitlement], subscriptions: [SubscriptionInfo]) {
        self.userID = userID
        self.appAccountToken = appAccountToken
        self.balances = balances
        self.entitlements = entitlements
        self.subscriptions = subscriptions
    }
}

/// A balance of one currency.
public struct Balance: Codable, Hashable, Sendable {
    /// The currency.
    public var currency: String
    /// What can be spent now, allowance excluded.
    public var available: Int64
    /// What reservations hold.
    public var held: Int64
    /// What refunds took back after it was spent; the next grants repay it.
    public var debt: Int64
    /// The subscription allowance of the current period, if any.
    public var allowance: AllowanceState?
    /// What can be spent now: allowance left plus available.
    public var spendable: Int64

    /// The allowance of the current period.
    public struct AllowanceState: Codable, Hashable, Sendable {
        public var granted: Int64
        public var used: Int64
        public var held: Int64
        public var periodEnd: Date

        /// Creates a value with every field.
        public init(granted: Int64, used: Int64, held: Int64, periodEnd: Date) {
            self.granted = granted
            self.used = used
            self.held = held
            self.periodEnd = periodEnd
        }
    }

    /// Creates a value with every field.
    public init(currency: String, available: Int64, held: Int64, debt: Int64, allowance: AllowanceState? = nil, spendable: Int64) {
        self.currency = currency
        self.available = available
        self.held = held
        self.debt = debt
        self.allowance = allowance
        self.spendable = spendable
    }
}

/// An entitlement and its state.
public struct Entitlement: Codable, Hashable, Sendable {
    /// The entitlement, as named in the catalog (`pro`).
    public var id: String
    /// Whether it is in force now.
    public var active: Bool
    /// The product that gives it.
    public var productID: String
    /// When it ends; nil for ever (non-consumables).
    public var expiresAt: Date?
    /// In a billing grace period: active, but the last renewal failed.
    public var inGracePeriod: Bool
    /// Whether the subscription will renew.
    public var willRenew: Bool?

    /// Creates a value with every field.
    public init(id: String, active: Bool, productID: String, expiresAt: Date? = nil, inGracePeriod: Bool, willRenew: Bool? = nil) {
        self.id = id
        self.active = active
        self.productID = productID
        self.expiresAt = expiresAt
        self.inGracePeriod = inGracePeriod
        self.willRenew = willRenew
    }
}

/// A subscription as the server knows it.
public struct SubscriptionInfo: Codable, Hashable, Sendable {
    public var originalTransactionID: String
    public var productID: String
    /// Where it stands.
    public var status: SubscriptionState
    public var expiresAt: Date?
    public var willRenew: Bool?
    public var gracePeriodExpiresAt: Date?

    /// Creates a value with every field.
    public init(
        originalTransactionID: String, productID: String, status: SubscriptionState, expiresAt: Date? = nil, willRenew: Bool? = nil,
        gracePeriodExpiresAt: Date? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.status = status
        self.expiresAt = expiresAt
        self.willRenew = willRenew
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
    }
}
