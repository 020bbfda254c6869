/// The event an App Store Server Notification V2 reports (`notificationType`).
public struct NotificationType: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `SUBSCRIBED`.
    public static let subscribed = Self(rawValue: "SUBSCRIBED")
    /// The App Store's value `DID_CHANGE_RENEWAL_PREF`.
    public static let didChangeRenewalPref = Self(rawValue: "DID_CHANGE_RENEWAL_PREF")
    /// The App Store's value `DID_CHANGE_RENEWAL_STATUS`.
    public static let didChangeRenewalStatus = Self(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    /// The App Store's value `OFFER_REDEEMED`.
    public static let offerRedeemed = Self(rawValue: "OFFER_REDEEMED")
    /// The App Store's value `DID_RENEW`.
    public static let didRenew = Self(rawValue: "DID_RENEW")
    /// The App Store's value `EXPIRED`.
    public static let expired = Self(rawValue: "EXPIRED")
    /// The App Store's value `DID_FAIL_TO_RENEW`.
    public static let didFailToRenew = Self(rawValue: "DID_FAIL_TO_RENEW")
    /// The App Store's value `GRACE_PERIOD_EXPIRED`.
    public static let gracePeriodExpired = Self(rawValue: "GRACE_PERIOD_EXPIRED")
    /// The App Store's value `PRICE_INCREASE`.
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    /// The App Store's value `REFUND`.
    public static let refund = Self(rawValue: "REFUND")
    /// The App Store's value `REFUND_DECLINED`.
    public static let refundDeclined = Self(rawValue: "REFUND_DECLINED")
    /// The App Store's value `CONSUMPTION_REQUEST`.
    public static let consumptionRequest = Self(rawValue: "CONSUMPTION_REQUEST")
    /// The App Store's value `RENEWAL_EXTENDED`.
    public static let renewalExtended = Self(rawValue: "RENEWAL_EXTENDED")
    /// The App Store's value `REVOKE`.
    public static let revoke = Self(rawValue: "REVOKE")
    /// The App Store's value `TEST`.
    public static let test = Self(rawValue: "TEST")
    /// The App Store's value `RENEWAL_EXTENSION`.
    public static let renewalExtension = Self(rawValue: "RENEWAL_EXTENSION")
    /// The App Store's value `REFUND_REVERSED`.
    public static let refundReversed = Self(rawValue: "REFUND_REVERSED")
    /// The App Store's value `EXTERNAL_PURCHASE_TOKEN`.
    public static let externalPurchaseToken = Self(rawValue: "EXTERNAL_PURCHASE_TOKEN")
    /// The App Store's value `ONE_TIME_CHARGE`.
    public static let oneTimeCharge = Self(rawValue: "ONE_TIME_CHARGE")
    /// The App Store's value `RESCIND_CONSENT`.
    public static let rescindConsent = Self(rawValue: "RESCIND_CONSENT")
    /// The App Store's value `METADATA_UPDATE`.
    public static let metadataUpdate = Self(rawValue: "METADATA_UPDATE")
    /// The App Store's value `MIGRATION`.
    public static let migration = Self(rawValue: "MIGRATION")
    /// The App Store's value `PRICE_CHANGE`.
    public static let priceChange = Self(rawValue: "PRICE_CHANGE")
}

/// Details of a notification's event (`subtype`).
public struct NotificationSubtype: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `INITIAL_BUY`.
    public static let initialBuy = Self(rawValue: "INITIAL_BUY")
    /// The App Store's value `RESUBSCRIBE`.
    public static let resubscribe = Self(rawValue: "RESUBSCRIBE")
    /// The App Store's value `DOWNGRADE`.
    public static let downgrade = Self(rawValue: "DOWNGRADE")
    /// The App Store's value `UPGRADE`.
    public static let upgrade = Self(rawValue: "UPGRADE")
    /// The App Store's value `AUTO_RENEW_ENABLED`.
    public static let autoRenewEnabled = Self(rawValue: "AUTO_RENEW_ENABLED")
    /// The App Store's value `AUTO_RENEW_DISABLED`.
    public static let autoRenewDisabled = Self(rawValue: "AUTO_RENEW_DISABLED")
    /// The App Store's value `VOLUNTARY`.
    public static let voluntary = Self(rawValue: "VOLUNTARY")
    /// The App Store's value `BILLING_RETRY`.
    public static let billingRetry = Self(rawValue: "BILLING_RETRY")
    /// The App Store's value `PRICE_INCREASE`.
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    /// The App Store's value `GRACE_PERIOD`.
    public static let gracePeriod = Self(rawValue: "GRACE_PERIOD")
    /// The App Store's value `PENDING`.
    public static let pending = Self(rawValue: "PENDING")
    /// The App Store's value `ACCEPTED`.
    public static let accepted = Self(rawValue: "ACCEPTED")
    /// The App Store's value `BILLING_RECOVERY`.
    public static let billingRecovery = Self(rawValue: "BILLING_RECOVERY")
    /// The App Store's value `PRODUCT_NOT_FOR_SALE`.
    public static let productNotForSale = Self(rawValue: "PRODUCT_NOT_FOR_SALE")
    /// The App Store's value `SUMMARY`.
    public static let summary = Self(rawValue: "SUMMARY")
    /// The App Store's value `FAILURE`.
    public static let failure = Self(rawValue: "FAILURE")
    /// The App Store's value `UNREPORTED`.
    public static let unreported = Self(rawValue: "UNREPORTED")
}

/// Why the customer asked for a refund of a consumable (`consumptionRequestReason`).
public struct ConsumptionRequestReason: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `UNINTENDED_PURCHASE`.
    public static let unintendedPurchase = Self(rawValue: "UNINTENDED_PURCHASE")
    /// The App Store's value `FULFILLMENT_ISSUE`.
    public static let fulfillmentIssue = Self(rawValue: "FULFILLMENT_ISSUE")
    /// The App Store's value `UNSATISFIED_WITH_PURCHASE`.
    public static let unsatisfiedWithPurchase = Self(rawValue: "UNSATISFIED_WITH_PURCHASE")
    /// The App Store's value `LEGAL`.
    public static let legal = Self(rawValue: "LEGAL")
    /// The App Store's value `OTHER`.
    public static let other = Self(rawValue: "OTHER")
}
