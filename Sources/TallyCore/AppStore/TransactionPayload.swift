public import Foundation

/// A signed transaction's payload: Apple's `JWSTransactionDecodedPayload`.
///
/// Every field is optional because Apple adds and omits fields by environment, product
/// type and API version. Dates are decoded from epoch milliseconds (see ``AppStoreJSON``);
/// prices are integers in milliunits of ``currency``.
///
/// ```swift
/// let payload = try AppStoreJSON.decoder().decode(TransactionPayload.self, from: json)
/// payload.price    // 4990 for 4.99 USD
/// payload.type == .consumable
/// ```
public struct TransactionPayload: AppStoreSignedPayload {
    public static var kind: SignedDataKind { .transaction }
    public var validationDate: Date? { signedDate }

    /// The transaction identifier of the original purchase.
    public var originalTransactionID: String?
    /// The unique identifier of this transaction.
    public var transactionID: String?
    /// The identifier of subscription purchase events across devices, renewals included.
    public var webOrderLineItemID: String?
    /// The app's bundle identifier.
    public var bundleID: String?
    /// The product identifier of the in-app purchase.
    public var productID: String?
    /// The subscription group the subscription belongs to.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the account, or restored / renewed the purchase.
    public var purchaseDate: Date?
    /// The purchase date of the original transaction.
    public var originalPurchaseDate: Date?
    /// When a subscription expires or renews.
    public var expiresDate: Date?
    /// The number of consumable units bought.
    public var quantity: Int?
    /// The type of the in-app purchase.
    public var type: AppStoreProductType?
    /// The UUID the app attached to the purchase (`appAccountToken`), as sent.
    public var appAccountToken: String?
    /// Whether the user bought the item or has it through Family Sharing.
    public var inAppOwnershipType: InAppOwnershipType?
    /// When the App Store signed this payload.
    public var signedDate: Date?
    /// Why the App Store refunded or revoked the transaction.
    public var revocationReason: RevocationReason?
    /// When the App Store refunded or revoked the transaction.
    public var revocationDate: Date?
    /// Whether the user upgraded to another subscription.
    public var isUpgraded: Bool?
    /// The kind of offer applied.
    public var offerType: OfferType?
    /// The offer code or promotional offer identifier.
    public var offerIdentifier: String?
    /// The server environment.
    public var environment: AppStoreEnvironment?
    /// The three-letter code of the storefront's country or region.
    public var storefront: String?
    /// Apple's identifier of the storefront.
    public var storefrontID: String?
    /// Purchase or renewal.
    public var transactionReason: TransactionReason?
    /// The ISO 4217 currency code of ``price``.
    public var currency: String?
    /// The price in milliunits of ``currency`` (4.99 is 4990).
    public var price: Int64?
    /// The payment mode of the applied offer.
    public var offerDiscountType: OfferDiscountType?
    /// The app download's transaction identifier.
    public var appTransactionID: String?
    /// The duration of the applied offer, ISO 8601 (`P1M`).
    public var offerPeriod: String?
    /// How the transaction was revoked.
    public var revocationType: RevocationType?
    /// The refunded share in thousandths of a percent (50000 is 50%).
    public var revocationPercentage: Int?
    /// Advanced Commerce API details, for apps that use it.
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?
    /// How the subscription is billed.
    public var billingPlanType: BillingPlanType?
    /// The commitment of a monthly-billed subscription.
    public var commitmentInfo: TransactionCommitmentInfo?
    /// Device verification data, in transactions StoreKit returns on the device.
    public var deviceVerification: String?
    /// The nonce of ``deviceVerification``.
    public var deviceVerificationNonce: String?

    /// An empty payload; set the fields you need.
    public init() {}

    /// ``appAccountToken`` as a UUID, or `nil` when it is absent or not a UUID.
    public var appAccountTokenUUID: UUID? { appAccountToken.flatMap(UUID.init(uuidString:)) }
}

/// The commitment of a subscription billed monthly for a committed term.
public struct TransactionCommitmentInfo: Codable, Hashable, Sendable {
    /// Which billing period of the commitment this transaction is.
    public var billingPeriodNumber: Int?
    /// When the commitment ends.
    public var commitmentExpiresDate: Date?
    /// The total price of the commitment, in milliunits.
    public var commitmentPrice: Int64?
    /// The number of billing periods in the commitment.
    public var totalBillingPeriods: Int?

    /// An empty value; set the fields you need.
    public init() {}
}
