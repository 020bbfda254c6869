public import Foundation

/// The query of a Get Transaction History request (`GET /inApps/v2/history/{transactionID}`):
/// which of the customer's transactions to list, and in what order.
///
/// Every filter is optional. A purchase server renders it with ``queryItems(revision:)``; the
/// simulated App Store reads it back with ``init(queryItems:)``, which refuses what Apple
/// refuses with the code Apple answers.
///
/// ```swift
/// var request = TransactionHistoryRequest()
/// request.productTypes = [.consumable, .nonConsumable]
/// request.sort = .descending
/// var components = URLComponents(string: "https://api.storekit.itunes.apple.com/inApps/v2/history/\(id)")!
/// components.queryItems = request.queryItems(revision: page.revision)
/// ```
public struct TransactionHistoryRequest: Hashable, Sendable {
    /// Only transactions bought at or after this date (`startDate`).
    public var startDate: Date?
    /// Only transactions bought before this date (`endDate`); it may be in the future.
    public var endDate: Date?
    /// Only transactions of these products (`productId`, repeated).
    public var productIds: [String]?
    /// Only transactions of these product types (`productType`, repeated).
    public var productTypes: [ProductType]?
    /// The order of the transactions by their last modification; Apple's default is ascending.
    public var sort: Order?
    /// Only transactions of these subscription groups (`subscriptionGroupIdentifier`, repeated).
    public var subscriptionGroupIdentifiers: [String]?
    /// Only transactions the customer bought, or only Family Shared ones.
    public var inAppOwnershipType: InAppOwnershipType?
    /// Only revoked transactions when `true`, only unrevoked ones when `false`.
    public var revoked: Bool?

    /// A request with no filters: every transaction, oldest first.
    public init() {}

    /// A product type to filter the history by (`productType`).
    public struct ProductType: AppStoreRawValue {
        /// The value as Apple spells it.
        public let rawValue: String
        /// Wraps a value as Apple spells it.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The value `AUTO_RENEWABLE`: auto-renewable subscriptions.
        public static let autoRenewable = Self(rawValue: "AUTO_RENEWABLE")
        /// The value `NON_RENEWABLE`: non-renewing subscriptions.
        public static let nonRenewable = Self(rawValue: "NON_RENEWABLE")
        /// The value `CONSUMABLE`.
        public static let consumable = Self(rawValue: "CONSUMABLE")
        /// The value `NON_CONSUMABLE`.
        public static let nonConsumable = Self(rawValue: "NON_CONSUMABLE")
        /// The values Apple accepts.
        public static let known: [Self] = [.autoRenewable, .nonRenewable, .consumable, .nonConsumable]
    }

    /// The order of a transaction history (`sort`).
    public struct Order: AppStoreRawValue {
        /// The value as Apple spells it.
        public let rawValue: String
        /// Wraps a value as Apple spells it.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The value `ASCENDING`: oldest first.
        public static let ascending = Self(rawValue: "ASCENDING")
        /// The value `DESCENDING`: newest first.
        public static let descending = Self(rawValue: "DESCENDING")
        /// The values Apple accepts.
        public static let known: [Self] = [.ascending, .descending]
    }
}
