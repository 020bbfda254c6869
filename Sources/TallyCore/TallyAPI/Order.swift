public import Foundation

/// `POST /v1/me/orders`.
public struct CreateOrderRequest: Codable, Hashable, Sendable {
    /// The product to buy.
    public var productId: String
    /// Creates the request.
    public init(productId: String) { self.productId = productId }
}

/// An order: created before payment, fulfilled by the transaction that pays it.
public struct Order: Codable, Hashable, Sendable {
    /// The order's identifier.
    public var orderId: String
    /// The product.
    public var productId: String
    /// The token to pass to StoreKit as `appAccountToken`.
    public var appAccountToken: UUID
    /// Where it stands.
    public var status: OrderStatus
    /// The transaction that fulfilled it.
    public var transactionId: String?
    /// Why it failed.
    public var failureReason: String?
    /// When it was created.
    public var createdAt: Date
    /// When an unpaid order expires.
    public var expiresAt: Date

    /// Creates a value with every field.
    public init(
        orderId: String, productId: String, appAccountToken: UUID, status: OrderStatus, transactionId: String? = nil, failureReason: String? = nil,
        createdAt: Date, expiresAt: Date
    ) {
        self.orderId = orderId
        self.productId = productId
        self.appAccountToken = appAccountToken
        self.status = status
        self.transactionId = transactionId
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
