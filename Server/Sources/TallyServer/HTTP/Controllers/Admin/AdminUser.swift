public import Foundation
public import TallyCore

/// A user, as the admin sees them (`GET /v1/admin/users/{id}`).
public struct AdminUser: Codable, Hashable, Sendable {
    /// Tally's identifier.
    public var userID: String
    /// The app's own identifier, when its server named the user.
    public var appUserID: String?
    /// The UUID the app passes to StoreKit as `appAccountToken`.
    public var appAccountToken: UUID
    /// When the user signed up.
    public var createdAt: Date
    /// The user's balances, one per currency.
    public var balances: [Balance]
    /// What the user's purchases and subscriptions unlock.
    public var entitlements: [Entitlement]
    /// The user's subscriptions.
    public var subscriptions: [SubscriptionInfo]
    /// The 20 newest ledger entries, newest first.
    public var recentLedger: [LedgerEntry]
}
