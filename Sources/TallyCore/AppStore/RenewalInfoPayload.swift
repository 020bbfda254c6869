public import Foundation

/// A signed subscription renewal information payload: Apple's `JWSRenewalInfoDecodedPayload`.
public struct RenewalInfoPayload: AppStoreSignedPayload {
    public static var kind: SignedDataKind { .renewalInfo }
    public var validationDate: Date? { signedDate }

    /// Why the subscription expired.
    public var expirationIntent: ExpirationIntent?
    /// The transaction identifier of the original purchase.
    public var originalTransactionID: String?
    /// The product the subscription will renew to.
    public var autoRenewProductID: String?
    /// The product of the current period.
    public var productID: String?
    /// Whether the subscription will renew.
    public var autoRenewStatus: AutoRenewStatus?
    /// Whether the App Store is trying to renew an expired subscription.
    public var isInBillingRetryPeriod: Bool?
    /// Whether the customer responded to a price increase.
    public var priceIncreaseStatus: PriceIncreaseStatus?
    /// When the billing grace period ends.
    public var gracePeriodExpiresDate: Date?
    /// The kind of offer that applies to the next period.
    public var offerType: OfferType?
    /// The offer code or promotional offer identifier.
    public var offerIdentifier: String?
    /// When the App Store signed this payload.
    public var signedDate: Date?
    /// The server environment.
    public var environment: AppStoreEnvironment?
    /// The start of the latest run of uninterrupted paid periods.
    public var recentSubscriptionStartDate: Date?
    /// When the subscription renews next.
    public var renewalDate: Date?
    /// The ISO 4217 currency code of ``renewalPrice``.
    public var currency: String?
    /// The renewal price in milliunits of ``currency``.
    public var renewalPrice: Int64?
    /// The payment mode of the offer for the next period.
    public var offerDiscountType: OfferDiscountType?
    /// Win-back offers the customer may redeem.
    public var eligibleWinBackOfferIds: [String]?
    /// The UUID the app attached to the purchase, as sent.
    public var appAccountToken: String?
    /// The app download's transaction identifier.
    public var appTransactionID: String?
    /// The duration of the offer, ISO 8601.
    public var offerPeriod: String?
    /// Advanced Commerce API details, for apps that use it.
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?
    /// The commitment that applies to the next renewal.
    public var commitmentInfo: RenewalCommitmentInfo?
    /// How the next period is billed.
    public var renewalBillingPlanType: BillingPlanType?
    /// Device verification data, in renewal info StoreKit returns on the device.
    public var deviceVerification: String?
    /// The nonce of ``deviceVerification``.
    public var deviceVerificationNonce: String?

    /// An empty payload; set the fields you need.
    public init() {}
}

/// The commitment that applies to a subscription's next renewal.
public struct RenewalCommitmentInfo: Codable, Hashable, Sendable {
    /// The product the commitment will renew to.
    public var commitmentAutoRenewProductID: String?
    /// Whether the commitment will renew.
    public var commitmentAutoRenewStatus: AutoRenewStatus?
    /// How the renewed commitment is billed.
    public var commitmentRenewalBillingPlanType: BillingPlanType?
    /// When the commitment renews.
    public var commitmentRenewalDate: Date?
    /// The renewal price of the commitment, in milliunits.
    public var commitmentRenewalPrice: Int64?

    /// An empty value; set the fields you need.
    public init() {}
}
