import Foundation

/// What a store hands out outside a call (transactions, purchase intents), for any number of
/// listeners; what arrives before anyone listens is kept for the first one, as StoreKit keeps
/// launch-time transactions for the listener an app starts late.
package final class StoreFeed<Element: Sendable>: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var subscribers: [UUID: AsyncStream<Element>.Continuation] = [:]
    private var early: [Element] = []

    package init() {}

    /// A stream of what is sent from now on, after what was kept.
    package func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let id = UUID()
        let kept = lock.withLock { () -> [Element] in
            subscribers[id] = continuation
            defer { early = [] }
            return early
        }
        for element in kept { continuation.yield(element) }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    /// Sends to every listener, or keeps it when there is none.
    package func send(_ element: Element) {
        let listeners = lock.withLock { () -> [AsyncStream<Element>.Continuation] in
            if subscribers.isEmpty { early.append(element) }
            return Array(subscribers.values)
        }
        for listener in listeners { listener.yield(element) }
    }

    private func unsubscribe(_ id: UUID) {
        lock.withLock { _ = subscribers.removeValue(forKey: id) }
    }
}

extension StoreFeed where Element == StorePurchaseIntent {
    /// A product the customer tapped on the App Store (a promoted in-app purchase, as StoreKit
    /// 1's `paymentQueue(_:shouldAddStorePayment:for:)` reports it): handed over as a purchase
    /// intent, so the manager buys it through its own pipeline (an order first, on a server),
    /// rather than added to the payment queue now.
    /// - Parameter productID: the product.
    /// - Returns: `false`, StoreKit's "do not add the payment now".
    package func promoted(_ productID: String) -> Bool {
        send(StorePurchaseIntent(productID: productID))
        return false
    }
}
