/// An App Store Server API error code (`errorCode` of ``APIErrorResponse``).
///
/// The first three digits are the HTTP status that comes with the code: 4000006 is a 400,
/// 4040010 a 404. It is a struct over the raw value, so a code Apple adds tomorrow decodes
/// today. The constants are the codes Apple documents for the transaction, history, status,
/// refund, notification, consumption and app-account-token endpoints.
///
/// ```swift
/// let error = try AppStoreJSON.decoder().decode(APIErrorResponse.self, from: body)
/// if error.code == .transactionIDNotFound { /* unknown transaction */ }
/// error.code?.isRetryable // true for 4040002, 4040004, 4040006, 5000001
/// ```
public struct APIErrorCode: AppStoreRawValue {
    /// The code as the App Store sent it.
    public let rawValue: Int64
    /// Wraps a code as the App Store sent it.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// The HTTP status the code comes with (its first three digits), or `nil` when those
    /// digits are not an HTTP error status.
    public var httpStatus: Int? {
        let status = rawValue / 10_000
        return (400...599).contains(status) ? Int(status) : nil
    }

    /// Whether Apple names the code retryable: the same request may succeed later.
    public var isRetryable: Bool {
        [
            Self.accountNotFoundRetryable, .appNotFoundRetryable, .originalTransactionIDNotFoundRetryable,
            .generalInternalRetryable,
        ].contains(self)
    }

    // MARK: 400 Bad Request

    /// `4000000`: the request is invalid.
    public static let generalBadRequest = Self(rawValue: 4_000_000)
    /// `4000002`: the app identifier is invalid.
    public static let invalidAppIdentifier = Self(rawValue: 4_000_002)
    /// `4000005`: the `revision` token is invalid.
    public static let invalidRequestRevision = Self(rawValue: 4_000_005)
    /// `4000006`: the transaction identifier is invalid.
    public static let invalidTransactionID = Self(rawValue: 4_000_006)
    /// `4000008`: the original transaction identifier is invalid.
    public static let invalidOriginalTransactionID = Self(rawValue: 4_000_008)
    /// `4000012`: the start date is earlier than the earliest allowed date.
    public static let startDateTooFarInPast = Self(rawValue: 4_000_012)
    /// `4000013`: the end date precedes the start date, or the two are equal.
    public static let startDateAfterEndDate = Self(rawValue: 4_000_013)
    /// `4000014`: the pagination token is invalid.
    public static let invalidPaginationToken = Self(rawValue: 4_000_014)
    /// `4000015`: the start date is invalid.
    public static let invalidStartDate = Self(rawValue: 4_000_015)
    /// `4000016`: the end date is invalid.
    public static let invalidEndDate = Self(rawValue: 4_000_016)
    /// `4000017`: the pagination token expired.
    public static let paginationTokenExpired = Self(rawValue: 4_000_017)
    /// `4000018`: the notification type or subtype is invalid.
    public static let invalidNotificationType = Self(rawValue: 4_000_018)
    /// `4000019`: the request has both a notification type and a transaction identifier.
    public static let multipleFiltersSupplied = Self(rawValue: 4_000_019)
    /// `4000020`: the test notification token is invalid.
    public static let invalidTestNotificationToken = Self(rawValue: 4_000_020)
    /// `4000021`: the `sort` parameter is invalid.
    public static let invalidSort = Self(rawValue: 4_000_021)
    /// `4000022`: a `productType` parameter is invalid.
    public static let invalidProductType = Self(rawValue: 4_000_022)
    /// `4000023`: a `productId` parameter is invalid.
    public static let invalidProductID = Self(rawValue: 4_000_023)
    /// `4000024`: a `subscriptionGroupIdentifier` parameter is invalid.
    public static let invalidSubscriptionGroupIdentifier = Self(rawValue: 4_000_024)
    /// `4000025`: the `excludeRevoked` parameter is invalid (deprecated by Apple).
    public static let invalidExcludeRevoked = Self(rawValue: 4_000_025)
    /// `4000026`: the `inAppOwnershipType` parameter is invalid.
    public static let invalidInAppOwnershipType = Self(rawValue: 4_000_026)
    /// `4000030`: the `revoked` parameter is invalid.
    public static let invalidRevoked = Self(rawValue: 4_000_030)
    /// `4000031`: a `status` parameter is invalid.
    public static let invalidStatus = Self(rawValue: 4_000_031)
    /// `4000032`: the consumption request's `accountTenure` is missing or invalid.
    public static let invalidAccountTenure = Self(rawValue: 4_000_032)
    /// `4000033`: the consumption request's `appAccountToken` is missing or invalid.
    public static let invalidAppAccountToken = Self(rawValue: 4_000_033)
    /// `4000034`: the consumption request's `consumptionStatus` is missing or invalid.
    public static let invalidConsumptionStatus = Self(rawValue: 4_000_034)
    /// `4000035`: the consumption request's `customerConsented` is not `true`.
    public static let invalidCustomerConsented = Self(rawValue: 4_000_035)
    /// `4000036`: the consumption request's `deliveryStatus` is missing or invalid.
    public static let invalidDeliveryStatus = Self(rawValue: 4_000_036)
    /// `4000037`: the consumption request's `lifetimeDollarsPurchased` is missing or invalid.
    public static let invalidLifetimeDollarsPurchased = Self(rawValue: 4_000_037)
    /// `4000038`: the consumption request's `lifetimeDollarsRefunded` is missing or invalid.
    public static let invalidLifetimeDollarsRefunded = Self(rawValue: 4_000_038)
    /// `4000039`: the consumption request's `platform` is missing or invalid.
    public static let invalidPlatform = Self(rawValue: 4_000_039)
    /// `4000040`: the consumption request's `playTime` is missing or invalid.
    public static let invalidPlayTime = Self(rawValue: 4_000_040)
    /// `4000041`: the consumption request's `sampleContentProvided` is missing or invalid.
    public static let invalidSampleContentProvided = Self(rawValue: 4_000_041)
    /// `4000042`: the consumption request's `userStatus` is missing or invalid.
    public static let invalidUserStatus = Self(rawValue: 4_000_042)
    /// `4000043`: the transaction is not a consumable (deprecated by Apple for 4000047).
    public static let invalidTransactionNotConsumable = Self(rawValue: 4_000_043)
    /// `4000047`: the transaction's product type is not supported by the endpoint.
    public static let invalidTransactionTypeNotSupported = Self(rawValue: 4_000_047)
    /// `4000048`: the endpoint does not take an app transaction identifier.
    public static let appTransactionIDNotSupported = Self(rawValue: 4_000_048)
    /// `4000183`: the app account token is not a UUID.
    public static let invalidAppAccountTokenUUID = Self(rawValue: 4_000_183)
    /// `4000185`: the transaction is Family Shared, which the endpoint does not support.
    public static let familyTransactionNotSupported = Self(rawValue: 4_000_185)
    /// `4000187`: the endpoint wants an original transaction identifier.
    public static let transactionIDNotOriginalTransactionID = Self(rawValue: 4_000_187)

    // MARK: 404 Not Found

    /// `4040001`: the App Store account was not found.
    public static let accountNotFound = Self(rawValue: 4_040_001)
    /// `4040002`: the App Store account was not found; try again.
    public static let accountNotFoundRetryable = Self(rawValue: 4_040_002)
    /// `4040003`: the app was not found.
    public static let appNotFound = Self(rawValue: 4_040_003)
    /// `4040004`: the app was not found; try again.
    public static let appNotFoundRetryable = Self(rawValue: 4_040_004)
    /// `4040005`: the original transaction identifier was not found.
    public static let originalTransactionIDNotFound = Self(rawValue: 4_040_005)
    /// `4040006`: the original transaction identifier was not found; try again.
    public static let originalTransactionIDNotFoundRetryable = Self(rawValue: 4_040_006)
    /// `4040007`: the app has no notifications URL in this environment.
    public static let serverNotificationURLNotFound = Self(rawValue: 4_040_007)
    /// `4040008`: the test notification token expired or its status is not available.
    public static let testNotificationNotFound = Self(rawValue: 4_040_008)
    /// `4040010`: the transaction identifier was not found.
    public static let transactionIDNotFound = Self(rawValue: 4_040_010)
    /// `4040019`: the customer has no app transaction.
    public static let appTransactionDoesNotExist = Self(rawValue: 4_040_019)

    // MARK: 429 and 500

    /// `4290000`: the request exceeded the rate limit.
    public static let rateLimitExceeded = Self(rawValue: 4_290_000)
    /// `5000000`: an internal error.
    public static let generalInternal = Self(rawValue: 5_000_000)
    /// `5000001`: an internal error; try again.
    public static let generalInternalRetryable = Self(rawValue: 5_000_001)
}
