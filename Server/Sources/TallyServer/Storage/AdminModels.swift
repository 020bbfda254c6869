public import Foundation
public import TallyCore

/// An admin adjustment's result.
public struct AdminAdjustment: Codable, Hashable, Sendable {
    public var userId: String
    public var currency: String
    public var amount: Int64
    public var reason: String
    public var balance: Balance
    public var replayed: Bool
}

/// A user, as the admin sees them.
public struct AdminUser: Codable, Hashable, Sendable {
    public var userId: String
    public var appUserId: String?
    public var appAccountToken: UUID
    public var createdAt: Date
    public var balances: [Balance]
    public var entitlements: [Entitlement]
    public var subscriptions: [SubscriptionInfo]
    public var recentLedger: [LedgerEntry]
}

/// Filters of the admin's transaction list.
public struct AdminTransactionQuery: Sendable, Hashable {
    /// consumable, non_consumable, non_renewing, auto_renewable.
    public var type: String?
    /// granted, revoked or unbound.
    public var status: String?
    public var productID: String?
    /// Matches a transaction id, original transaction id or user id exactly.
    public var text: String?
    public var limit: Int
    /// Return transactions after this position, newest first (from the previous page).
    public var cursor: AdminCursor?

    /// Creates a query.
    public init(type: String? = nil, status: String? = nil, productID: String? = nil, text: String? = nil, limit: Int = 50, cursor: AdminCursor? = nil) {
        self.type = type
        self.status = status
        self.productID = productID
        self.text = text
        self.limit = limit
        self.cursor = cursor
    }
}

/// A store transaction, as the admin sees it.
public struct AdminTransaction: Codable, Hashable, Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var userId: String?
    public var productId: String
    public var type: String
    public var environment: String
    public var quantity: Int64
    /// granted, revoked or unbound.
    public var status: String
    public var granted: [Amount]
    public var purchaseDate: Date?
    public var expiresDate: Date?
    public var receivedAt: Date
}

/// A page of transactions.
public struct AdminTransactionPage: Codable, Hashable, Sendable {
    public var transactions: [AdminTransaction]
    public var nextCursor: String?
}

/// A notification, as the admin sees it.
public struct AdminNotification: Codable, Hashable, Sendable {
    public var notificationUuid: String
    public var notificationType: String
    public var subtype: String?
    public var transactionId: String?
    public var outcome: String
    public var detail: String?
    public var receivedAt: Date
}

/// A page of notifications.
public struct AdminNotificationPage: Codable, Hashable, Sendable {
    public var notifications: [AdminNotification]
    public var nextCursor: String?
}

/// A position in an admin list ordered newest first: the time received and, among rows of the
/// same millisecond, the row's identifier, so that no row falls between two pages.
public struct AdminCursor: Sendable, Hashable {
    /// When the last row of the page was received, in milliseconds since 1970.
    public var receivedAt: Int64
    /// Its identifier (transaction id or notification UUID).
    public var id: String

    /// - Parameters:
    ///   - receivedAt: milliseconds since 1970.
    ///   - id: the row's identifier.
    public init(receivedAt: Int64, id: String) {
        self.receivedAt = receivedAt
        self.id = id
    }

    /// Reads a cursor as ``text`` writes it (`<milliseconds>_<id>`); nil for anything else.
    public init?(text: some StringProtocol) {
        guard let separator = text.firstIndex(of: "_"), let millis = Int64(text[..<separator]), millis >= 0 else { return nil }
        let id = String(text[text.index(after: separator)...])
        guard !id.isEmpty, id.count <= 128 else { return nil }
        self.init(receivedAt: millis, id: id)
    }

    /// The cursor as `next_cursor` gives it.
    public var text: String { "\(receivedAt)_\(id)" }
}
