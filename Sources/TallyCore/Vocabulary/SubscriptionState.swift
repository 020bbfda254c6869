/// Where a subscription stands, as a Tally server reports it (Apple's own status values are
/// ``SubscriptionStatus``).
public struct SubscriptionState: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Paid for the current period.
    public static let active = Self(rawValue: "active")
    /// Renewal failed; access continues during Apple's grace period.
    public static let gracePeriod = Self(rawValue: "grace_period")
    /// Renewal failed; Apple keeps trying to charge, and there is no access meanwhile.
    public static let billingRetry = Self(rawValue: "billing_retry")
    /// Ended without renewal.
    public static let expired = Self(rawValue: "expired")
    /// Refunded or revoked.
    public static let revoked = Self(rawValue: "revoked")

    public static let all: [Self] = [.active, .gracePeriod, .billingRetry, .expired, .revoked]

    /// Whether it gives access now.
    public var grantsAccess: Bool { self == .active || self == .gracePeriod }
}
