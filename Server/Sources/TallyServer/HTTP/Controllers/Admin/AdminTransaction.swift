public import Foundation
public import TallyCore

/// A store transaction, as the admin sees it (`GET /v1/admin/transactions`).
public struct AdminTransaction: Codable, Hashable, Sendable {
    /// The App Store's transaction identifier.
    public var transactionID: String
    /// The identifier of the purchase it renews or restores; its own for a first purchase.
    public var originalTransactionID: String
    /// The user it was granted to; nil while no user has presented it.
    public var userID: String?
    /// The product bought.
    public var productID: String
    /// consumable, non_consumable, non_renewing or auto_renewable.
    public var type: String
    /// The App Store environment that signed it, such as `Production` or `Sandbox`.
    public var environment: String
    /// How many were bought at once.
    public var quantity: Int64
    /// granted, revoked or unbound.
    public var status: String
    /// What it granted.
    public var granted: [Amount]
    /// When it was bought, as the App Store signed it.
    public var purchaseDate: Date?
    /// When a subscription period it bought ends.
    public var expiresDate: Date?
    /// When the server received it.
    public var receivedAt: Date
    /// The app account token it carries.
    public var appAccountToken: String? = nil
    /// The price Apple signed, in milliunits of ``currency`` (4.99 is 4990).
    public var price: Int64? = nil
    /// The ISO 4217 code of ``price``.
    public var currency: String? = nil
    /// The storefront's three-letter country or region code.
    public var storefront: String? = nil
    /// When it was refunded or revoked, as the App Store signed the event.
    public var revokedAt: Date? = nil
    /// Apple's reason for a refund (0 other, 1 an issue in the app); nil for other revocations.
    public var revocationReason: Int64? = nil
}
