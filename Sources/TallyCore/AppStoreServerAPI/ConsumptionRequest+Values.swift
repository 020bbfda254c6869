extension ConsumptionRequest {
    /// How much of a purchase the customer consumed (`consumptionStatus`).
    public struct ConsumptionStatus: AppStoreRawValue {
        /// The value as Apple sends it.
        public let rawValue: Int32
        /// Wraps a value as Apple sends it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The App Store's value `0`: not shared.
        public static let undeclared = Self(rawValue: 0)
        /// The App Store's value `1`.
        public static let notConsumed = Self(rawValue: 1)
        /// The App Store's value `2`.
        public static let partiallyConsumed = Self(rawValue: 2)
        /// The App Store's value `3`.
        public static let fullyConsumed = Self(rawValue: 3)
    }

    /// The platform the customer consumed a purchase on (`platform`).
    public struct Platform: AppStoreRawValue {
        /// The value as Apple sends it.
        public let rawValue: Int32
        /// Wraps a value as Apple sends it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The App Store's value `0`: not shared.
        public static let undeclared = Self(rawValue: 0)
        /// The App Store's value `1`: an Apple platform.
        public static let apple = Self(rawValue: 1)
        /// The App Store's value `2`: another platform.
        public static let nonApple = Self(rawValue: 2)
    }

    /// Whether the app delivered a purchase and it works (`deliveryStatus`, Apple's `DeliveryStatusV1`).
    public struct DeliveryStatus: AppStoreRawValue {
        /// The value as Apple sends it.
        public let rawValue: Int32
        /// Wraps a value as Apple sends it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The App Store's value `0`: delivered and working properly.
        public static let deliveredAndWorkingProperly = Self(rawValue: 0)
        /// The App Store's value `1`: not delivered because of a quality issue.
        public static let didNotDeliverDueToQualityIssue = Self(rawValue: 1)
        /// The App Store's value `2`: the wrong item was delivered.
        public static let deliveredWrongItem = Self(rawValue: 2)
        /// The App Store's value `3`: not delivered because of a server outage.
        public static let didNotDeliverDueToServerOutage = Self(rawValue: 3)
        /// The App Store's value `4`: not delivered because of an in-game currency change.
        public static let didNotDeliverDueToInGameCurrencyChange = Self(rawValue: 4)
        /// The App Store's value `5`: not delivered for another reason.
        public static let didNotDeliverForOtherReason = Self(rawValue: 5)
    }

    /// The age of the customer's account in the app (`accountTenure`).
    public struct AccountTenure: AppStoreRawValue {
        /// The value as Apple sends it.
        public let rawValue: Int32
        /// Wraps a value as Apple sends it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The App Store's value `0`: not shared.
        public static let undeclared = Self(rawValue: 0)
        /// The App Store's value `1`: 0–3 days.
        public static let zeroToThreeDays = Self(rawValue: 1)
        /// The App Store's value `2`: 3–10 days.
        public static let threeDaysToTenDays = Self(rawValue: 2)
        /// The App Store's value `3`: 10–30 days.
        public static let tenDaysToThirtyDays = Self(rawValue: 3)
        /// The App Store's value `4`: 30–90 days.
        public static let thirtyDaysToNinetyDays = Self(rawValue: 4)
        /// The App Store's value `5`: 90–180 days.
        public static let ninetyDaysToOneHundredEightyDays = Self(rawValue: 5)
        /// The App Store's value `6`: 180–365 days.
        public static let oneHundredEightyDaysToThreeHundredSixtyFiveDays = Self(rawValue: 6)
        /// The App Store's value `7`: over 365 days.
        public static let greaterThanThreeHundredSixtyFiveDays = Self(rawValue: 7)
    }

    /// How long the customer used the app (`playTime`).
    public struct PlayTime: AppStoreRawValue {
        /// The value as Apple sends it.
        public let rawValue: Int32
        /// Wraps a value as Apple sends it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The App Store's value `0`: not shared.
        public static let undeclared = Self(rawValue: 0)
        /// The App Store's value `1`: 0–5 minutes.
        public static let zeroToFiveMinutes = Self(rawValue: 1)
        /// The App Store's value `2`: 5–60 minutes.
        public static let fiveToSixtyMinutes = Self(rawValue: 2)
        /// The App Store's value `3`: 1–6 hours.
        public static let oneToSixHours = Self(rawValue: 3)
        /// The App Store's value `4`: 6–24 hours.
        public static let sixHoursToTwentyFourHours = Self(rawValue: 4)
        /// The App Store's value `5`: 1–4 days.
        public static let oneDayToFourDays = Self(rawValue: 5)
        /// The App Store's value `6`: 4–16 days.
        public static let fourDaysToSixteenDays = Self(rawValue: 6)
        /// The App Store's value `7`: over 16 days.
        public static let overSixteenDays = Self(rawValue: 7)
    }

    /// A range of US dollars (`lifetimeDollarsPurchased`, `lifetimeDollarsRefunded`; Apple
    /// documents the same values for both).
    public struct LifetimeDollars: AppStoreRawValue {
        /// The value as Apple sends it.
        public let rawValue: Int32
        /// Wraps a value as Apple sends it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The App Store's value `0`: not shared.
        public static let undeclared = Self(rawValue: 0)
        /// The App Store's value `1`: 0 USD.
        public static let zeroDollars = Self(rawValue: 1)
        /// The App Store's value `2`: 0.01–49.99 USD.
        public static let oneCentToFortyNineDollarsAndNinetyNineCents = Self(rawValue: 2)
        /// The App Store's value `3`: 50–99.99 USD.
        public static let fiftyDollarsToNinetyNineDollarsAndNinetyNineCents = Self(rawValue: 3)
        /// The App Store's value `4`: 100–499.99 USD.
        public static let oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents = Self(rawValue: 4)
        /// The App Store's value `5`: 500–999.99 USD.
        public static let fiveHundredDollarsToNineHundredNinetyNineDollarsAndNinetyNineCents = Self(rawValue: 5)
        /// The App Store's value `6`: 1000–1999.99 USD.
        public static let oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents = Self(rawValue: 6)
        /// The App Store's value `7`: 2000 USD or more.
        public static let twoThousandDollarsOrGreater = Self(rawValue: 7)
    }

    /// The status of the customer's account in the app (`userStatus`).
    public struct UserStatus: AppStoreRawValue {
        /// The value as Apple sends it.
        public let rawValue: Int32
        /// Wraps a value as Apple sends it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The App Store's value `0`: not shared.
        public static let undeclared = Self(rawValue: 0)
        /// The App Store's value `1`.
        public static let active = Self(rawValue: 1)
        /// The App Store's value `2`.
        public static let suspended = Self(rawValue: 2)
        /// The App Store's value `3`.
        public static let terminated = Self(rawValue: 3)
        /// The App Store's value `4`.
        public static let limitedAccess = Self(rawValue: 4)
    }

    /// Whether the app would rather Apple grant or decline a refund (`refundPreference`,
    /// Apple's `RefundPreferenceV1`).
    public struct RefundPreference: AppStoreRawValue {
        /// The value as Apple sends it.
        public let rawValue: Int32
        /// Wraps a value as Apple sends it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The App Store's value `0`: not shared.
        public static let undeclared = Self(rawValue: 0)
        /// The App Store's value `1`: grant the refund.
        public static let preferGrant = Self(rawValue: 1)
        /// The App Store's value `2`: decline the refund.
        public static let preferDecline = Self(rawValue: 2)
        /// The App Store's value `3`: no preference.
        public static let noPreference = Self(rawValue: 3)
    }
}
