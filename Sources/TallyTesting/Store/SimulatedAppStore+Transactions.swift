import Foundation
import TallyCore

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    /// Marks a transaction finished, as `Transaction.finish()`.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown transaction.
    public func finish(transactionID: String) throws(SimulatedAppStoreError) {
        guard let index = state.transactionIndex(transactionID) else {
            throw SimulatedAppStoreError(.notFound, "no transaction \(transactionID)")
        }
        guard !state.transactions[index].finished else { return }
        state.transactions[index].finished = true
        try save()
    }

    /// Transactions not finished yet, signed now, oldest first, as `Transaction.unfinished`.
    public func unfinishedTransactions() throws(SimulatedAppStoreError) -> [SimulatedAppStore.SignedTransaction] {
        var result: [SimulatedAppStore.SignedTransaction] = []
        for record in state.transactions where !record.finished && record.payload.inAppOwnershipType == .purchased {
            result.append(try signed(record))
        }
        return result
    }

    /// The latest transaction of each product the customer is entitled to now, as
    /// `Transaction.currentEntitlements`: non-consumables and non-renewing subscriptions not
    /// revoked, and auto-renewable subscriptions that are active or in a grace period.
    public func currentEntitlements() throws(SimulatedAppStoreError) -> [SimulatedAppStore.SignedTransaction] {
        var result: [SimulatedAppStore.SignedTransaction] = []
        var seen = Set<String>()
        for record in state.transactions.reversed() {
            let payload = record.payload
            guard payload.revocationDate == nil, let productID = payload.productID, !seen.contains(productID) else { continue }
            switch payload.type {
            case .nonConsumable?, .nonRenewingSubscription?:
                seen.insert(productID)
                result.append(try signed(record))
            case .autoRenewableSubscription?:
                guard let original = payload.originalTransactionID,
                    let subscription = state.subscriptions.first(where: { $0.originalTransactionID == original }),
                    subscription.latestTransactionID == payload.transactionID,
                    [.active, .billingGracePeriod].contains(subscription.status)
                else { continue }
                seen.insert(productID)
                result.append(try signed(record))
            default:
                continue
            }
        }
        return result.reversed()
    }

    /// Every transaction, signed now, oldest first, as `Transaction.all`; finished consumables
    /// are left out unless asked for or refunded (revoked), as StoreKit does.
    public func history(includingFinishedConsumables: Bool = false) throws(SimulatedAppStoreError) -> [SimulatedAppStore.SignedTransaction] {
        var result: [SimulatedAppStore.SignedTransaction] = []
        for record in state.transactions {
            if record.payload.type == .consumable, record.finished, record.payload.revocationDate == nil, !includingFinishedConsumables {
                continue
            }
            result.append(try signed(record))
        }
        return result
    }

    /// One transaction, signed now.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown transaction.
    public func transaction(_ id: String) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        try signedTransaction(id)
    }

    /// Whether the transaction was finished.
    public func isFinished(transactionID: String) -> Bool {
        state.transactionIndex(transactionID).map { state.transactions[$0].finished } ?? false
    }
}
