/// The body of a Get All Subscription Statuses answer (`GET /inApps/v1/subscriptions/{transactionID}`):
/// the latest transaction and renewal info of each of the customer's subscriptions, by group.
///
/// ```swift
/// let statuses = try AppStoreJSON.decoder().decode(StatusResponse.self, from: body)
/// let active = statuses.data?.flatMap { $0.lastTransactions ?? [] }.filter { $0.status == .active }
/// ```
public struct StatusResponse: Codable, Hashable, Sendable {
    /// The server environment that answered.
    public var environment: AppStoreEnvironment?
    /// The app's bundle identifier.
    public var bundleID: String?
    /// The app's App Store identifier.
    public var appAppleID: Int64?
    /// The customer's subscriptions, one item per subscription group.
    public var data: [SubscriptionGroupIdentifierItem]?

    /// An empty response; set the fields you need.
    public init() {}
}

/// The subscriptions of one subscription group in a ``StatusResponse``.
public struct SubscriptionGroupIdentifierItem: Codable, Hashable, Sendable {
    /// The subscription group's identifier.
    public var subscriptionGroupIdentifier: String?
    /// The latest transaction of each subscription in the group, one per original transaction.
    public var lastTransactions: [LastTransactionsItem]?

    /// An empty item; set the fields you need.
    public init() {}
}

/// The latest transaction and renewal info of one subscription in a ``StatusResponse``.
public struct LastTransactionsItem: Codable, Hashable, Sendable {
    /// The subscription's status.
    public var status: SubscriptionStatus?
    /// The original transaction identifier of the subscription.
    public var originalTransactionID: String?
    /// The latest transaction, as a JWS the App Store signed (`JWSTransaction`).
    public var signedTransactionInfo: String?
    /// The renewal info, as a JWS the App Store signed (`JWSRenewalInfo`).
    public var signedRenewalInfo: String?

    /// An empty item; set the fields you need.
    public init() {}
}
