/// The kind of in-app purchase a transaction is for (`type`).
public struct AppStoreProductType: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `Auto-Renewable Subscription`.
    public static let autoRenewableSubscription = Self(rawValue: "Auto-Renewable Subscription")
    /// The App Store's value `Non-Consumable`.
    public static let nonConsumable = Self(rawValue: "Non-Consumable")
    /// The App Store's value `Consumable`.
    public static let consumable = Self(rawValue: "Consumable")
    /// The App Store's value `Non-Renewing Subscription`.
    public static let nonRenewingSubscription = Self(rawValue: "Non-Renewing Subscription")
}

/// Whether the user bought the item or has it through Family Sharing (`inAppOwnershipType`).
public struct InAppOwnershipType: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `PURCHASED`.
    public static let purchased = Self(rawValue: "PURCHASED")
    /// The App Store's value `FAMILY_SHARED`.
    public static let familyShared = Self(rawValue: "FAMILY_SHARED")
}

/// Why the App Store refunded or revoked a transaction (`revocationReason`).
public struct RevocationReason: AppStoreRawValue {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Refunded for another reason, such as an accidental purchase.
    public static let otherReason = Self(rawValue: 0)
    /// Refunded because of an actual or perceived issue within the app.
    public static let appIssue = Self(rawValue: 1)
}

/// How a transaction was revoked (`revocationType`).
public struct RevocationType: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `REFUND_FULL`.
    public static let refundFull = Self(rawValue: "REFUND_FULL")
    /// The App Store's value `REFUND_PRORATED`.
    public static let refundProrated = Self(rawValue: "REFUND_PRORATED")
    /// The App Store's value `FAMILY_REVOKE`.
    public static let familyRevoke = Self(rawValue: "FAMILY_REVOKE")
}

/// The kind of offer applied to a transaction or renewal (`offerType`).
public struct OfferType: AppStoreRawValue {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The App Store's value `1`.
    public static let introductory = Self(rawValue: 1)
    /// The App Store's value `2`.
    public static let promotional = Self(rawValue: 2)
    /// The App Store's value `3`.
    public static let offerCode = Self(rawValue: 3)
    /// The App Store's value `4`.
    public static let winBack = Self(rawValue: 4)
}

/// The payment mode of an offer (`offerDiscountType`).
public struct OfferDiscountType: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `FREE_TRIAL`.
    public static let freeTrial = Self(rawValue: "FREE_TRIAL")
    /// The App Store's value `PAY_AS_YOU_GO`.
    public static let payAsYouGo = Self(rawValue: "PAY_AS_YOU_GO")
    /// The App Store's value `PAY_UP_FRONT`.
    public static let payUpFront = Self(rawValue: "PAY_UP_FRONT")
    /// The App Store's value `ONE_TIME`.
    public static let oneTime = Self(rawValue: "ONE_TIME")
}

/// Whether a transaction is a purchase or a subscription renewal (`transactionReason`).
public struct TransactionReason: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `PURCHASE`.
    public static let purchase = Self(rawValue: "PURCHASE")
    /// The App Store's value `RENEWAL`.
    public static let renewal = Self(rawValue: "RENEWAL")
}

/// How a subscription is billed (`billingPlanType`, `renewalBillingPlanType`).
public struct BillingPlanType: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `BILLED_UPFRONT`.
    public static let billedUpfront = Self(rawValue: "BILLED_UPFRONT")
    /// The App Store's value `MONTHLY`.
    public static let monthly = Self(rawValue: "MONTHLY")
}

/// The platform where the app was first bought (`originalPlatform`).
public struct PurchasePlatform: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `iOS`.
    public static let iOS = Self(rawValue: "iOS")
    /// The App Store's value `macOS`.
    public static let macOS = Self(rawValue: "macOS")
    /// The App Store's value `tvOS`.
    public static let tvOS = Self(rawValue: "tvOS")
    /// The App Store's value `visionOS`.
    public static let visionOS = Self(rawValue: "visionOS")
}
