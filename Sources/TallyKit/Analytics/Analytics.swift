public import Foundation
public import TallyCore

/// Something that happened to a purchase, for the app's analytics.
public struct PurchaseEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable {
        /// The payment sheet is about to be shown.
        case started
        /// The purchase was paid and credited.
        case completed
        /// The purchase failed (not a cancellation).
        case failed
        /// The customer dismissed the payment sheet.
        case cancelled
        /// Waiting for Ask to Buy or another approval.
        case pending
        /// A purchase came back through a restore.
        case restored
        /// The App Store refunded a purchase and its credit was taken back.
        case refunded
    }

    /// What happened.
    public let kind: Kind
    /// The product.
    public let productID: String
    /// Its price, in thousandths of ``currency``'s unit, when known.
    public let price: Int64?
    /// ISO 4217 code of ``price``.
    public let currency: String?
    /// The transaction, when there is one.
    public let transactionID: String?
    /// The error code of a failure.
    public let errorCode: String?
    /// When.
    public let date: Date
    /// What a completed purchase granted (credits, seconds, reports); empty for other events.
    public var granted: [Amount] = []
}

/// Where purchase events go: the app's analytics, whatever vendor it uses.
public protocol AnalyticsSink: Sendable {
    /// Records one event.
    func record(_ event: PurchaseEvent) async
}

/// A sink that drops every event.
public struct NoAnalytics: AnalyticsSink {
    /// Creates the sink.
    public init() {}
    public func record(_ event: PurchaseEvent) async {}
}

/// A sink that hands every event to a closure.
public struct ClosureAnalytics: AnalyticsSink {
    private let handler: @Sendable (PurchaseEvent) async -> Void

    /// - Parameter handler: called once per event.
    public init(_ handler: @escaping @Sendable (PurchaseEvent) async -> Void) { self.handler = handler }

    public func record(_ event: PurchaseEvent) async { await handler(event) }
}

/// A sink whose events can be read as an `AsyncStream`.
public final class AnalyticsStream: AnalyticsSink, @unchecked Sendable {
    /// The events, in order.
    public let events: AsyncStream<PurchaseEvent>
    private let continuation: AsyncStream<PurchaseEvent>.Continuation

    /// Creates the sink and its stream.
    public init() { (events, continuation) = AsyncStream.makeStream() }

    public func record(_ event: PurchaseEvent) async { continuation.yield(event) }
}
