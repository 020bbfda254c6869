public import Foundation
public import TallyCore

/// What changed, as a webhook or an analytics event names it (`purchase.granted`, …).
public enum TallyEventType: String, Codable, CaseIterable, Sendable {
    /// A store transaction's product was credited to its owner, for the first time.
    case purchaseGranted = "purchase.granted"
    /// A refund or revocation took back what a transaction granted (what was unspent, and the rest as debt).
    case purchaseRefunded = "purchase.refunded"
    /// Apple reversed a refund: what it took back is granted again.
    case purchaseRefundReversed = "purchase.refund_reversed"
    /// Units granted without a purchase (sign-up grants).
    case creditsGranted = "credits.granted"
    /// Units spent.
    case creditsSpent = "credits.spent"
    /// An operator's adjustment, up or down.
    case creditsAdjusted = "credits.adjusted"
    /// A reservation held an amount.
    case reservationCreated = "reservation.created"
    /// A reservation spent what it used and returned the rest.
    case reservationCommitted = "reservation.committed"
    /// A reservation returned its amount unused (released, or expired).
    case reservationReleased = "reservation.released"
    /// Debt left by a refund was repaid from new units.
    case debtRepaid = "debt.repaid"
    /// The first transaction of an auto-renewable subscription was granted.
    case subscriptionStarted = "subscription.started"
    /// A later transaction of an auto-renewable subscription was granted.
    case subscriptionRenewed = "subscription.renewed"
    /// Renewal failed and Apple keeps access open for a grace period.
    case subscriptionGracePeriod = "subscription.grace_period"
    /// Renewal failed and Apple is retrying the payment, without access.
    case subscriptionBillingRetry = "subscription.billing_retry"
    /// The subscription expired (Apple said so).
    case subscriptionExpired = "subscription.expired"
    /// A subscription transaction was refunded or revoked.
    case subscriptionRevoked = "subscription.revoked"
    /// An entitlement was granted, by a purchase or an operator.
    case entitlementGranted = "entitlement.granted"
    /// An entitlement was taken away, by a refund or an operator.
    case entitlementRemoved = "entitlement.removed"
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
    /// The payload's version; a change of meaning or a removed field brings a new version.
    public var version: Int
    /// The event's position among all events of this server's database.
    public var sequence: Int64
    /// When the change committed.
    public var timestamp: Date
    /// Always `unordered`: deliveries may arrive in any order; sort by `sequence` when it matters.
    public var ordering: String
    /// What the change was.
    public var data: TallyEventData

    /// The current payload version.
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
