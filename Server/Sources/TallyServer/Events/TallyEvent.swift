public import Foundation
public import TallyCore

/// What changed, as a webhook or an analytics event names it (`purchase.granted`, …). A code
/// this version does not know (from a newer server sharing the database) is kept as it is.
public struct TallyEventType: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A store transaction's product was credited to its owner, for the first time.
    public static let purchaseGranted = Self(rawValue: "purchase.granted")
    /// A refund or revocation took back what a transaction granted (what was unspent, and the rest as debt).
    public static let purchaseRefunded = Self(rawValue: "purchase.refunded")
    /// Apple reversed a refund: what it took back is granted again.
    public static let purchaseRefundReversed = Self(rawValue: "purchase.refund_reversed")
    /// Units granted without a purchase (sign-up grants).
    public static let creditsGranted = Self(rawValue: "credits.granted")
    /// Units spent.
    public static let creditsSpent = Self(rawValue: "credits.spent")
    /// An operator's adjustment, up or down.
    public static let creditsAdjusted = Self(rawValue: "credits.adjusted")
    /// A reservation held an amount.
    public static let reservationCreated = Self(rawValue: "reservation.created")
    /// A reservation spent what it used and returned the rest.
    public static let reservationCommitted = Self(rawValue: "reservation.committed")
    /// A reservation returned its amount unused (released, or expired).
    public static let reservationReleased = Self(rawValue: "reservation.released")
    /// Debt left by a refund was repaid from new units.
    public static let debtRepaid = Self(rawValue: "debt.repaid")
    /// The first transaction of an auto-renewable subscription was granted.
    public static let subscriptionStarted = Self(rawValue: "subscription.started")
    /// A later transaction of an auto-renewable subscription was granted.
    public static let subscriptionRenewed = Self(rawValue: "subscription.renewed")
    /// Renewal failed and Apple keeps access open for a grace period.
    public static let subscriptionGracePeriod = Self(rawValue: "subscription.grace_period")
    /// Renewal failed and Apple is retrying the payment, without access.
    public static let subscriptionBillingRetry = Self(rawValue: "subscription.billing_retry")
    /// The subscription expired (Apple said so).
    public static let subscriptionExpired = Self(rawValue: "subscription.expired")
    /// A subscription transaction was refunded or revoked.
    public static let subscriptionRevoked = Self(rawValue: "subscription.revoked")
    /// An entitlement was granted, by a purchase or an operator.
    public static let entitlementGranted = Self(rawValue: "entitlement.granted")
    /// An entitlement was taken away, by a refund or an operator.
    public static let entitlementRemoved = Self(rawValue: "entitlement.removed")

    public static let all: [Self] = [
        .purchaseGranted, .purchaseRefunded, .purchaseRefundReversed, .creditsGranted, .creditsSpent, .creditsAdjusted, .reservationCreated,
        .reservationCommitted, .reservationReleased, .debtRepaid, .subscriptionStarted, .subscriptionRenewed, .subscriptionGracePeriod,
        .subscriptionBillingRetry, .subscriptionExpired, .subscriptionRevoked, .entitlementGranted, .entitlementRemoved,
    ]
}

/// One event as it is delivered and listed: an envelope in the shape of the Standard Webhooks
/// payload (`type`, `timestamp`, `data`) with Tally's identifier, version and sequence.
///
/// Deliveries are not ordered: an endpoint may receive a later event first (a retry, several
/// workers). `sequence` gives the order in which the changes committed on one database;
/// `ordering` says so in every payload.
public struct TallyEvent: Codable, Hashable, Sendable {
    /// Stable across retries and replays: the `webhook-id` of every delivery of this event.
    public var id: String
    /// What changed.
    public var type: TallyEventType
    /// The payload's version, as the event was written; a change of meaning or a removed
    /// field brings a new version.
    public var version: Int
    /// The event's number among all events of this server's database, in the order they were
    /// written (on PostgreSQL one may become visible after a higher number: docs/webhooks.md).
    public var sequence: Int64
    /// When the change was made (the start of its transaction).
    public var timestamp: Date
    /// Always `unordered`: deliveries may arrive in any order; sort by `sequence` when it matters.
    public var ordering: String
    /// What the change was.
    public var data: TallyEventData

    /// The payload version this server writes.
    public static let version = 1
}

/// The body of an event. Each type fills the fields that describe it and omits the rest;
/// docs/webhooks.md lists which, per type.
public struct TallyEventData: Codable, Hashable, Sendable {
    /// The user whose money or access changed.
    public var userID: String?
    /// The app's own user id, when the app gave one.
    public var appUserID: String?
    /// The store transaction.
    public var transactionID: String?
    /// The subscription's or purchase's original transaction.
    public var originalTransactionID: String?
    /// The product.
    public var productID: String?
    /// `consumable`, `non_consumable`, `non_renewing` or `auto_renewable`.
    public var productKind: String?
    /// Units bought at once.
    public var quantity: Int64?
    /// `Production`, `Sandbox`, …: revenue dashboards keep the sandbox out.
    public var environment: String?
    /// What the customer paid, in thousandths of `price_currency` (Apple's signed price).
    public var price: Int64?
    /// The ISO 4217 currency of `price`.
    public var priceCurrency: String?
    /// The App Store storefront (ISO 3166-1 alpha-3).
    public var storefront: String?
    /// Units granted or restored.
    public var amounts: [Amount]?
    /// What a refund took: per currency, units removed and units turned into debt.
    public var clawedBack: [ClawedBack]?
    /// The currency of a spend, adjustment, reservation or repayment.
    public var currency: String?
    /// Its amount: spent, held, repaid, or the signed adjustment.
    public var amount: Int64?
    /// What a committed reservation used.
    public var used: Int64?
    /// The spend.
    public var spendID: String?
    /// The reservation.
    public var reservationID: String?
    /// Why: an adjustment's reason, a refund's reason code, `released` or `expired`.
    public var reason: String?
    /// The app's reference of a spend.
    public var reference: String?
    /// Where units came from (`signup`).
    public var source: String?
    /// Entitlements granted or removed.
    public var entitlements: [String]?
    /// When access ends (a subscription transaction's expiry, an operator's grant).
    public var expiresAt: Date?
    /// The App Store notification behind the change, with its subtype.
    public var notificationType: String?
    /// The notification's subtype.
    public var subtype: String?
    /// Who made the change, for an operator's action.
    public var actor: String?

    /// An empty body for `user`.
    public init(userID: String?) { self.userID = userID }

    /// What a refund took back of one currency.
    public struct ClawedBack: Codable, Hashable, Sendable {
        /// The currency.
        public var currency: String
        /// Units removed from the balance.
        public var removed: Int64
        /// Units already spent, now owed.
        public var debt: Int64
    }
}
