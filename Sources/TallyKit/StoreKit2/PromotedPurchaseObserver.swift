// StoreKit exists on Apple platforms only (checked on Linux by scripts/check_apple_sources.sh).
// Not on watchOS: StoreKit has no promoted purchases there.
#if canImport(StoreKit) && !os(watchOS)
import Foundation
import StoreKit

/// StoreKit 1's observer of promoted in-app purchases, for ``StoreKit2Store`` where StoreKit 2
/// has no `PurchaseIntent` (iOS and Mac Catalyst before 16.4, macOS before 14.4, tvOS and
/// visionOS): there `paymentQueue(_:shouldAddStorePayment:for:)` is the only way an app learns
/// that the customer tapped a promoted product on the App Store.
///
/// It implements only that: every other transaction is StoreKit 2's (`Transaction.updates`),
/// which delivers the same ones, so handling or finishing them here would race it.
final class PromotedPurchaseObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    private let intents: StoreFeed<StorePurchaseIntent>
    private let queue: SKPaymentQueue

    /// Adds the observer to the payment queue at once (the store is made at launch, before the
    /// App Store hands over the tap that opened the app).
    init(intents: StoreFeed<StorePurchaseIntent>, queue: SKPaymentQueue = SKPaymentQueue.default()) {
        self.intents = intents
        self.queue = queue
        super.init()
        queue.add(self)
    }

    deinit {
        queue.remove(self)
    }

    /// A promoted product: handed to the store's purchase intents, not added to the queue.
    func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        intents.promoted(product.productIdentifier)
    }

    /// Ignored: StoreKit 2 delivers these transactions.
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {}

    /// Ignored (optional in StoreKit; this observer never restores).
    func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {}

    /// Ignored (optional in StoreKit; this observer never restores).
    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {}
}
#endif
