public import Foundation

/// `POST /v1/me/orders`.
public struct CreateOrderRequest: Codable, Hashable, Sendable {
    /// The product to buy.
    public var productID: String
    /// Creates the request.
    public init(productID: String) { self.productID = productID }
}

/// An order: created before payment, fulfilled by the transaction that pays it.
public struct Order: Codable, Hashable, Sendable {
    /// The order's identifier.
    public var orderID: String
    /// The product.
    public var productID: String
    /// The token to pass to StoreKit as `appAccountToken`.
    public var appAccountToken: UUID
    /// Where it stands.
    public var status: OrderStatus
    /// The transaction that fulfilled it.
    public var transactionID: String?
    /// Why it failed.
    public var failureReason: String?
    /// When it was created.
    public var createdAt: Date
    /// When an unpaid order expires.
    public var expiresAt: Date

    /// Creates a value with every field.
    public init(
        orderID: String, productID: String, appAccountToken: UUID, status: OrderStatus, transactionID: String? = nil, failureReason: String? = nil,
        createdAt: Date, expiresAt: Date
    ) {
        self.orderID = orderID
        self.productID = productID
        self.appAccountToken = appAccountToken
        self.status = status
        self.transactionID = transactionID
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/me/orders/{id}/fail`: the payment failed or was cancelled.
public struct FailOrderRequest: Codable, Hashable, Sendable {
    /// Why: cancelled, payment_declined, …
    public var reason: String
    /// Creates the request.
    public init(reason: String) { self.reason = reason }
}
