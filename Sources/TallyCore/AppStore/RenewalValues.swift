/// Why a subscription expired (`expirationIntent`).
public struct ExpirationIntent: AppStoreRawValue {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The App Store's value `1`.
    public static let customerCancelled = Self(rawValue: 1)
    /// The App Store's value `2`.
    public static let billingError = Self(rawValue: 2)
    /// The App Store's value `3`.
    public static let customerDidNotConsentToPriceIncrease = Self(rawValue: 3)
    /// The App Store's value `4`.
    public static let productNotAvailable = Self(rawValue: 4)
    /// The App Store's value `5`.
    public static let other = Self(rawValue: 5)
}

/// Whether a subscription will renew at the end of its period (`autoRenewStatus`).
public struct AutoRenewStatus: AppStoreRawValue {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The App Store's value `0`.
    public static let off = Self(rawValue: 0)
    /// The App Store's value `1`.
    public static let on = Self(rawValue: 1)
}

/// Whether the customer has responded to a price increase (`priceIncreaseStatus`).
public struct PriceIncreaseStatus: AppStoreRawValue {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The App Store's value `0`.
    public static let customerHasNotResponded = Self(rawValue: 0)
    /// The App Store's value `1`.
    public static let customerConsentedOrWasNotifiedWithoutNeedingConsent = Self(rawValue: 1)
}

/// The status of an auto-renewable subscription (`status`).
public struct SubscriptionStatus: AppStoreRawValue {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The App Store's value `1`.
    public static let active = Self(rawValue: 1)
    /// The App Store's value `2`.
    public static let expired = Self(rawValue: 2)
    /// The App Store's value `3`.
    public static let billingRetry = Self(rawValue: 3)
    /// The App Store's value `4`.
    public static let billingGracePeriod = Self(rawValue: 4)
    /// The App Store's value `5`.
    public static let revoked = Self(rawValue: 5)
}
