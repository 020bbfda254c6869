public import Foundation

/// Filters of the admin's transaction list: each given filter narrows it.
public struct AdminTransactionQuery: Sendable, Hashable {
    /// consumable, non_consumable, non_renewing or auto_renewable.
    public var type: String?
    /// granted, revoked (refunds included), refunded or unbound.
    public var status: String?
    /// The App Store environment, such as `Production` or `Sandbox`.
    public var environment: String?
    /// The user it was granted to.
    public var userID: String?
    /// Received at or after this time.
    public var from: Date?
    /// Received before this time.
    public var to: Date?
    /// The product bought.
    public var productID: String?
    /// Bought (its `purchaseDate`) at or after this time.
    public var purchasedFrom: Date?
    /// Bought before this time.
    public var purchasedTo: Date?
    /// Refunded or revoked at or after this time.
    public var revokedFrom: Date?
    /// Refunded or revoked before this time.
    public var revokedTo: Date?
    /// The currency of its signed price.
    public var currency: String?
    /// The subscription group of its product, as Apple signed it.
    public var subscriptionGroup: String?
    /// Matches a transaction id, original transaction id, user id, app account token or
    /// Tally order id exactly.
    public var text: String?
    /// The largest page, 1 to 200.
    public var limit: Int
    /// Return transactions after this position, newest first (from the previous page).
    public var cursor: AdminCursor?

    /// Creates a query; with no filter, every transaction, 50 a page.
    public init(
        type: String? = nil, status: String? = nil, environment: String? = nil, userID: String? = nil, from: Date? = nil, to: Date? = nil,
        productID: String? = nil, text: String? = nil, limit: Int = 50, cursor: AdminCursor? = nil, purchasedFrom: Date? = nil,
        purchasedTo: Date? = nil, revokedFrom: Date? = nil, revokedTo: Date? = nil, currency: String? = nil,
        subscriptionGroup: String? = nil
    ) {
        self.type = type
        self.status = status
        self.environment = environment
        self.userID = userID
        self.from = from
        self.to = to
        self.productID = productID
        self.text = text
        self.limit = limit
        self.cursor = cursor
        self.purchasedFrom = purchasedFrom
        self.purchasedTo = purchasedTo
        self.revokedFrom = revokedFrom
        self.revokedTo = revokedTo
        self.currency = currency
        self.subscriptionGroup = subscriptionGroup
    }
}
