public import Foundation
public import TallyCore

/// Where purchases are made: the App Store through StoreKit 2 (``StoreKit2Store``), or the
/// simulated App Store in tests and on Linux (`SimulatedStoreKit` in TallyKitTesting).
///
/// Implementations map the store's API and hold no purchase logic: journaling, delivery,
/// retries and finishing are ``PurchaseManager``'s.
public protocol Store: Sendable {
    /// The products with these identifiers that the store sells, with localized names and prices.
    func products(for ids: [String]) async throws(TallyError) -> [ProductDetails]
    /// Shows the payment sheet and returns what the customer did.
    func purchase(_ productID: String, options: StorePurchaseOptions) async throws(TallyError) -> StorePurchaseResult
    /// Transactions that change outside a purchase call: renewals, Ask to Buy approvals, refunds.
    func transactionUpdates() async -> AsyncStream<StoreTransaction>
    /// Purchases the customer started outside the app, on the App Store: a promoted in-app
    /// purchase or a win-back offer (StoreKit 2's `PurchaseIntent`, StoreKit 1's promoted
    /// payments). Those that arrive before anyone listens are kept for the first listener.
    func purchaseIntents() async -> AsyncStream<StorePurchaseIntent>
    /// Paid transactions not finished yet, oldest first.
    func unfinishedTransactions() async throws(TallyError) -> [StoreTransaction]
    /// The latest transaction of each non-consumable and active subscription the customer owns.
    func currentEntitlements() async throws(TallyError) -> [StoreTransaction]
    /// Every transaction the store keeps for the customer, finished and expired ones included,
    /// oldest first (StoreKit 2's `Transaction.all`, which leaves out finished consumables unless
    /// they were refunded; StoreKit 1's app receipt); what tells a lapsed subscriber on a new
    /// install from someone who never paid, and what shows refunds made while the app was closed.
    func transactionHistory() async throws(TallyError) -> [StoreTransaction]
    /// The renewal info of each of the customer's auto-renewable subscriptions, as JWS (StoreKit
    /// 2's `Product.SubscriptionInfo.Status.renewalInfo`): whether it will renew, and until when a
    /// billing grace period keeps it. StoreKit 1 has none and returns nothing.
    func subscriptionRenewals() async throws(TallyError) -> [String]
    /// Tells the store the transaction's content was delivered, so it stops handing it out.
    func finish(_ transaction: StoreTransaction) async throws(TallyError)
    /// Asks the store to bring the device's transactions up to date (restore); may ask the customer to sign in.
    func sync() async throws(TallyError)
    /// The App Store's evidence of the customer's purchase of the app itself: StoreKit 2's
    /// `AppTransaction` as a JWS (iOS 16 and later), or the app receipt; verified by
    /// ``Delivery/appPurchase(_:)``.
    func appTransaction() async throws(TallyError) -> TransactionEvidence
}

extension Store {
    /// A store that cannot prove the app's purchase: `store_unavailable`.
    public func appTransaction() async throws(TallyError) -> TransactionEvidence {
        throw TallyError(.storeUnavailable, "this store does not provide the app's own purchase")
    }
}

/// How a purchase is asked for.
public struct StorePurchaseOptions: Sendable, Hashable {
    /// The app's UUID for its user; a Tally server binds the transaction to the user who owns it.
    public var appAccountToken: UUID?
    /// Units of a consumable, 1 to 10.
    public var quantity: Int
    /// A signed promotional offer for a subscription.
    public var promotionalOffer: PromotionalOffer?
    /// A win-back offer of a subscription, by its identifier in App Store Connect (StoreKit 2,
    /// iOS 18 and later).
    public var winBackOfferID: String?
    /// The scene to show the payment sheet in; when `nil` StoreKit chooses (see ``PurchaseScene``).
    public var scene: PurchaseScene?

    /// - Parameters:
    ///   - appAccountToken: the app's UUID for its user.
    ///   - quantity: units of a consumable.
    ///   - promotionalOffer: a signed promotional offer.
    ///   - winBackOfferID: a win-back offer.
    ///   - scene: the scene to show the payment sheet in.
    public init(
        appAccountToken: UUID? = nil, quantity: Int = 1, promotionalOffer: PromotionalOffer? = nil, winBackOfferID: String? = nil,
        scene: PurchaseScene? = nil
    ) {
        self.appAccountToken = appAccountToken
        self.quantity = quantity
        self.promotionalOffer = promotionalOffer
        self.winBackOfferID = winBackOfferID
        self.scene = scene
    }
}

/// A purchase the customer started on the App Store rather than in the app.
public struct StorePurchaseIntent: Sendable, Hashable {
    /// The product.
    public var productID: String
    /// The win-back offer the customer chose, if any.
    public var winBackOfferID: String?

    /// - Parameters:
    ///   - productID: the product.
    ///   - winBackOfferID: the win-back offer, if any.
    public init(productID: String, winBackOfferID: String? = nil) {
        self.productID = productID
        self.winBackOfferID = winBackOfferID
    }
}

/// A promotional offer signed by the app's server, as StoreKit takes it.
public struct PromotionalOffer: Sendable, Hashable {
    /// The offer identifier from App Store Connect.
    public var offerID: String
    /// The identifier of the key that signed it.
    public var keyID: String
    /// The nonce that was signed.
    public var nonce: UUID
    /// The signature.
    public var signature: Data
    /// When it was signed, in milliseconds since 1970.
    public var timestamp: Int

    /// - Parameters:
    ///   - offerID: the offer.
    ///   - keyID: the signing key's identifier.
    ///   - nonce: the signed nonce.
    ///   - signature: the signature.
    ///   - timestamp: milliseconds since 1970.
    public init(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) {
        self.offerID = offerID
        self.keyID = keyID
        self.nonce = nonce
        self.signature = signature
        self.timestamp = timestamp
    }
}

/// What the customer did with the payment sheet.
public enum StorePurchaseResult: Sendable, Hashable {
    /// Paid: the transaction to journal, deliver and finish.
    case success(StoreTransaction)
    /// Dismissed; nothing was charged.
    case userCancelled
    /// Waiting for Ask to Buy or for the customer to act outside the app; the transaction
    /// arrives later through ``Store/transactionUpdates()``.
    case pending
}
