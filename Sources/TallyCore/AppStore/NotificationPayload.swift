public import Foundation

/// An App Store Server Notification V2 payload: Apple's `ResponseBodyV2DecodedPayload`.
///
/// Exactly one of ``data``, ``summary``, ``externalPurchaseToken`` or ``appData`` is
/// present, depending on ``notificationType``.
public struct NotificationPayload: AppStoreSignedPayload {
    public static var kind: SignedDataKind { .notification }
    public var validationDate: Date? { signedDate }

    /// The event.
    public var notificationType: NotificationType?
    /// Details of the event.
    public var subtype: NotificationSubtype?
    /// The notification's unique identifier; a retried delivery keeps it.
    public var notificationUUID: String?
    /// The app, environment and signed transaction data of the event.
    public var data: NotificationData?
    /// The notification version, `2.0`.
    public var version: String?
    /// When the App Store signed this payload.
    public var signedDate: Date?
    /// The result of a subscription-renewal-date extension for all subscribers.
    public var summary: NotificationSummary?
    /// An external purchase token, for apps that use external purchases.
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// The app data of an app-level event such as `RESCIND_CONSENT`.
    public var appData: AppData?

    /// An empty payload; set the fields you need.
    public init() {}

    /// The app identity the notification is about, from whichever block it carries:
    /// ``data``, else ``summary``, else ``externalPurchaseToken``, else ``appData``.
    ///
    /// An external purchase token carries no environment: it is Sandbox when its
    /// `externalPurchaseId` starts with `SANDBOX`, Production otherwise.
    public var appIdentity: (bundleID: String?, appAppleID: Int64?, environment: AppStoreEnvironment?) {
        if let data {
            return (data.bundleID, data.appAppleID, data.environment)
        }
        if let summary {
            return (summary.bundleID, summary.appAppleID, summary.environment)
        }
        if let token = externalPurchaseToken {
            let sandbox = token.externalPurchaseID?.hasPrefix("SANDBOX") ?? false
            return (token.bundleID, token.appAppleID, sandbox ? .sandbox : .production)
        }
        if let appData {
            return (appData.bundleID, appData.appAppleID, appData.environment)
        }
        return (nil, nil, nil)
    }
}

/// The app, environment and signed transaction data of a notification.
public struct NotificationData: Codable, Hashable, Sendable {
    /// The server environment.
    public var environment: AppStoreEnvironment?
    /// The app's Apple identifier (absent in the sandbox).
    public var appAppleID: Int64?
    /// The app's bundle identifier.
    public var bundleID: String?
    /// The app's build version.
    public var bundleVersion: String?
    /// The transaction, signed by the App Store (a JWS).
    public var signedTransactionInfo: String?
    /// The subscription renewal information, signed by the App Store (a JWS).
    public var signedRenewalInfo: String?
    /// The status of the auto-renewable subscription.
    public var status: SubscriptionStatus?
    /// Why the customer asked for a refund (`CONSUMPTION_REQUEST`).
    public var consumptionRequestReason: ConsumptionRequestReason?

    /// An empty value; set the fields you need.
    public init() {}
}

/// The result of a renewal-date extension for all subscribers (`RENEWAL_EXTENSION` / `SUMMARY`).
public struct NotificationSummary: Codable, Hashable, Sendable {
    /// The server environment.
    public var environment: AppStoreEnvironment?
    /// The app's Apple identifier.
    public var appAppleID: Int64?
    /// The app's bundle identifier.
    public var bundleID: String?
    /// The subscription product the extension was for.
    public var productID: String?
    /// The identifier of the extension request.
    public var requestIdentifier: String?
    /// The storefronts the extension was for.
    public var storefrontCountryCodes: [String]?
    /// How many subscriptions were extended.
    public var succeededCount: Int64?
    /// How many subscriptions could not be extended.
    public var failedCount: Int64?

    /// An empty value; set the fields you need.
    public init() {}
}

/// An external purchase token (`EXTERNAL_PURCHASE_TOKEN`).
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    /// The token's identifier; it starts with `SANDBOX` in the sandbox.
    public var externalPurchaseID: String?
    /// When the token was created.
    public var tokenCreationDate: Date?
    /// The app's Apple identifier.
    public var appAppleID: Int64?
    /// The app's bundle identifier.
    public var bundleID: String?

    /// An empty value; set the fields you need.
    public init() {}
}

/// The app data of an app-level notification such as `RESCIND_CONSENT`.
public struct AppData: Codable, Hashable, Sendable {
    /// The app's Apple identifier.
    public var appAppleID: Int64?
    /// The app's bundle identifier.
    public var bundleID: String?
    /// The server environment.
    public var environment: AppStoreEnvironment?
    /// The app transaction, signed by the App Store (a JWS).
    public var signedAppTransactionInfo: String?

    /// An empty value; set the fields you need.
    public init() {}
}
