public import Foundation
public import TallyCore
public import TallyVerify

/// Where a paid transaction is credited and where credits are spent: on the device
/// (``OnDeviceLedger``, for apps without a backend) or on a Tally server (``ServerDelivery``).
///
/// Every write is idempotent: delivering the same transaction twice grants once, spending
/// with the same idempotency key twice spends once. ``PurchaseManager`` relies on that to
/// retry after network errors and crashes.
public protocol Delivery: Sendable {
    /// What each product grants and unlocks, with its paywall texts in `language`.
    func catalog(language: TallyLanguage) async throws(TallyError) -> [ProductGrant]
    /// Gets ready to buy a product: the server creates an order; on the device nothing is needed.
    func prepare(productID: String) async throws(TallyError) -> PurchaseTicket
    /// Credits a paid transaction (or takes back a revoked one) durably and exactly once.
    func deliver(_ transaction: StoreTransaction, ticket: PurchaseTicket?) async throws(TallyError) -> DeliveryReceipt
    /// Closes a ticket whose payment did not happen (cancelled, declined, failed).
    func abandon(_ ticket: PurchaseTicket, reason: String) async throws(TallyError)
    /// Balances and entitlements now. `storeEntitlements` are transactions the store lists for
    /// kept products: its current entitlements, and on a restore the latest transaction of each
    /// lapsed subscription from its history (the device records them; a server knows them already).
    ///
    /// `renewals` are the store's renewal infos (JWS) of the customer's subscriptions: the device
    /// verifies and records them, so a subscription in a billing grace period stays active and
    /// says whether it will renew; a server has its own from App Store notifications.
    func account(storeEntitlements: [StoreTransaction], renewals: [String]) async throws(TallyError) -> AccountSnapshot
    /// Balances and entitlements as the device itself knows them, without the network: the
    /// on-device ledger's, which is the source of truth there; `nil` for a destination elsewhere
    /// (a server), whose last answer the manager caches instead.
    func localAccount() async throws(TallyError) -> AccountSnapshot?
    /// Where credits came from and what they were used for, oldest first.
    /// - Parameter currency: only this currency, or every one.
    func creditHistory(currency: String?) async throws(TallyError) -> CreditHistory
    /// Spends an amount once per idempotency key: subscription allowance first, then the oldest purchase.
    func spend(_ order: SpendOrder) async throws(TallyError) -> SpendResponse
    /// Holds an amount for metered use until it is committed, released or expires.
    func reserve(_ order: ReservationOrder) async throws(TallyError) -> Reservation
    /// Spends the part of a reservation that was used; the rest returns.
    func commit(reservationID: String, used: Int64) async throws(TallyError) -> Reservation
    /// Returns a whole reservation.
    func release(reservationID: String) async throws(TallyError) -> Reservation
    /// Verifies the App Store's evidence of the app's own purchase (``Store/appTransaction()``).
    func appPurchase(_ evidence: TransactionEvidence) async throws(TallyError) -> AppPurchase
}

/// What the app knows about a product before it is bought: what it grants, what it unlocks,
/// and how the paywall describes it.
public struct ProductGrant: Sendable, Hashable, Codable, Identifiable {
    /// The App Store product identifier.
    public var id: String
    /// Its kind.
    public var kind: ProductKind
    /// What one unit grants, e.g. `[report.career: 1]` or `[seconds: 10800]`.
    public var grants: [Amount]
    /// The entitlements it unlocks while owned or subscribed.
    public var entitlements: [String]
    /// For a subscription: what it grants each period, used before purchased balances.
    public var allowance: Amount?
    /// The paywall's texts, in the language asked for.
    public var paywall: PaywallText
    /// For a non-renewing subscription: how many days it lasts, which the paywall shows;
    /// `nil` when the catalog does not say.
    public var durationDays: Int?

    /// - Parameters:
    ///   - id: the product identifier.
    ///   - kind: its kind.
    ///   - grants: what one unit grants.
    ///   - entitlements: what it unlocks.
    ///   - allowance: a subscription's periodic allowance.
    ///   - paywall: the paywall texts.
    ///   - durationDays: a non-renewing subscription's length in days.
    public init(
        id: String, kind: ProductKind, grants: [Amount] = [], entitlements: [String] = [], allowance: Amount? = nil, paywall: PaywallText,
        durationDays: Int? = nil
    ) {
        self.id = id
        self.kind = kind
        self.grants = grants
        self.entitlements = entitlements
        self.allowance = allowance
        self.paywall = paywall
        self.durationDays = durationDays
    }
}

/// What a purchase was prepared with: the order the server made, and the app account token
/// to buy with.
public struct PurchaseTicket: Sendable, Hashable, Codable {
    /// The product to buy.
    public var productID: String
    /// The server's order, in server mode.
    public var orderID: String?
    /// The token to pass to the store as `appAccountToken`.
    public var appAccountToken: UUID?

    /// - Parameters:
    ///   - productID: the product.
    ///   - orderID: the server's order.
    ///   - appAccountToken: the token for the store.
    public init(productID: String, orderID: String? = nil, appAccountToken: UUID? = nil) {
        self.productID = productID
        self.orderID = orderID
        self.appAccountToken = appAccountToken
    }
}

/// What a delivery did: the transaction credited (or revoked), what it granted, and the
/// balances and entitlements after it. It is the server's answer to a purchase, whichever
/// ledger delivered it, so both ledgers answer in one shape.
public typealias DeliveryReceipt = PurchaseResponse

/// Balances and entitlements at one moment.
public struct AccountSnapshot: Sendable, Hashable, Codable {
    /// One balance per currency.
    public var balances: [Balance]
    /// The entitlements, active or not.
    public var entitlements: [Entitlement]
    /// What checking the server's signed answer found, when ``ServerDelivery`` checks them
    /// in its informational mode (in the enforced mode an answer that fails is an error).
    public var trust: ResponseTrust?

    /// - Parameters:
    ///   - balances: one per currency.
    ///   - entitlements: the entitlements.
    public init(balances: [Balance], entitlements: [Entitlement]) {
        self.balances = balances
        self.entitlements = entitlements
    }

    /// The balance of a currency (zero when there is none).
    public func balance(_ currency: String) -> Balance {
        balances.first { $0.currency == currency }
            ?? Balance(currency: currency, available: 0, held: 0, debt: 0, allowance: nil, spendable: 0)
    }

    /// Whether an entitlement is active.
    public func isActive(_ entitlement: String) -> Bool {
        entitlements.contains { $0.id == entitlement && $0.active }
    }
}

/// The verdict on a server's signed answer.
public struct ResponseTrust: Sendable, Hashable, Codable {
    /// Whether the answer verified.
    public var verified: Bool
    /// Why not, when it did not.
    public var failure: ResponseVerifier.Failure?

    public init(verified: Bool, failure: ResponseVerifier.Failure?) {
        self.verified = verified
        self.failure = failure
    }
}

/// A spend, as the app asks for it: the same value the server's API takes, so that nothing is
/// copied or lost between the two.
public typealias SpendOrder = SpendRequest

/// A reservation, as the app asks for it.
public struct ReservationOrder: Sendable, Hashable, Codable {
    /// The currency (`seconds`, say).
    public var currency: String
    /// How much to hold.
    public var amount: Int64
    /// How long until an uncommitted reservation returns by itself.
    public var ttlSeconds: Int64
    /// The key that makes a retry hold nothing more.
    public var idempotencyKey: String
    /// What it is used for (a profile, a recording), kept with what is spent from it.
    public var reference: String?

    /// - Parameters:
    ///   - currency: the currency.
    ///   - amount: how much to hold.
    ///   - ttlSeconds: seconds until it expires.
    ///   - idempotencyKey: a key unique to this reservation, the same on every retry.
    ///   - reference: what it is used for.
    public init(currency: String, amount: Int64, ttlSeconds: Int64, idempotencyKey: String, reference: String? = nil) {
        self.currency = currency
        self.amount = amount
        self.ttlSeconds = ttlSeconds
        self.idempotencyKey = idempotencyKey
        self.reference = reference
    }
}

extension Delivery {
    /// Balances and entitlements now, with no renewal infos.
    /// - Parameter storeEntitlements: the store's transactions of kept products.
    public func account(storeEntitlements: [StoreTransaction]) async throws(TallyError) -> AccountSnapshot {
        try await account(storeEntitlements: storeEntitlements, renewals: [])
    }
}

extension Delivery {
    /// A delivery that does not verify the app's own purchase: `invalid_request`.
    public func appPurchase(_ evidence: TransactionEvidence) async throws(TallyError) -> AppPurchase {
        throw TallyError(.invalidRequest, "this delivery does not verify the app's own purchase")
    }
}
