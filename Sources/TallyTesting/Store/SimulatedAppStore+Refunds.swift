import Foundation
public import TallyCore

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    /// Refunds or revokes a transaction: it carries a revocation date and reason from now on,
    /// is published to ``updates()``, and a `REFUND` notification (or `REVOKE` for a family
    /// revocation) is sent. A refunded subscription ends.
    /// - Parameters:
    ///   - transactionID: the transaction.
    ///   - revocation: reason, type and share; a full refund for another reason by default.
    /// - Throws: ``SimulatedAppStoreError`` `notFound`, or `invalidState` when it is already revoked.
    @discardableResult
    public func refund(
        transactionID: String, revocation: SimulatedAppStore.Revocation = SimulatedAppStore.Revocation()
    ) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        guard let index = state.transactionIndex(transactionID) else {
            throw SimulatedAppStoreError(.notFound, "no transaction \(transactionID)")
        }
        guard state.transactions[index].payload.revocationDate == nil else {
            throw SimulatedAppStoreError(.invalidState, "transaction \(transactionID) is already revoked")
        }
        state.transactions[index].payload.revocationDate = now
        state.transactions[index].payload.revocationReason = revocation.reason
        state.transactions[index].payload.revocationType = revocation.type
        state.transactions[index].payload.revocationPercentage = revocation.percentage
        if let original = state.transactions[index].payload.originalTransactionID,
            let subscription = state.subscriptionIndex(originalTransactionID: original),
            state.subscriptions[subscription].latestTransactionID == transactionID
        {
            state.subscriptions[subscription].status = .revoked
            state.subscriptions[subscription].autoRenew = false
        }
        let transaction = try signed(state.transactions[index])
        let type: NotificationType = revocation.type == .familyRevoke ? .revoke : .refund
        try notify(
            type, subtype: nil, transaction: transaction.payload,
            subscription: transaction.payload.type == .autoRenewableSubscription ? transaction.payload.originalTransactionID : nil)
        // Family members lose what the purchaser was refunded, with the purchaser's reason.
        var revokedCopies: [SimulatedAppStore.SignedTransaction] = []
        if revocation.type != .familyRevoke {
            for copy in state.transactions.indices
            where state.transactions[copy].sharedFrom == transactionID
                && state.transactions[copy].payload.revocationDate == nil
            {
                state.transactions[copy].payload.revocationDate = now
                state.transactions[copy].payload.revocationReason = revocation.reason
                state.transactions[copy].payload.revocationType = .familyRevoke
                let signedCopy = try signed(state.transactions[copy])
                try notify(.revoke, subtype: nil, transaction: signedCopy.payload, subscription: nil)
                revokedCopies.append(signedCopy)
            }
        }
        try save()
        publish(transaction)
        for copy in revokedCopies { publish(copy) }
        return transaction
    }

    /// Reverses a refund: the revocation is removed and `REFUND_REVERSED` is sent.
    /// - Throws: ``SimulatedAppStoreError`` `notFound`, or `invalidState` when it is not refunded.
    @discardableResult
    public func reverseRefund(transactionID: String) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        guard let index = state.transactionIndex(transactionID) else {
            throw SimulatedAppStoreError(.notFound, "no transaction \(transactionID)")
        }
        guard state.transactions[index].payload.revocationDate != nil else {
            throw SimulatedAppStoreError(.invalidState, "transaction \(transactionID) is not refunded")
        }
        state.transactions[index].payload.revocationDate = nil
        state.transactions[index].payload.revocationReason = nil
        state.transactions[index].payload.revocationType = nil
        state.transactions[index].payload.revocationPercentage = nil
        if let original = state.transactions[index].payload.originalTransactionID,
            let subscription = state.subscriptionIndex(originalTransactionID: original),
            state.subscriptions[subscription].status == .revoked
        {
            let stillPaid = state.subscriptions[subscription].expiresDate > now
            state.subscriptions[subscription].status = stillPaid ? .active : .expired
            state.subscriptions[subscription].autoRenew = stillPaid
        }
        let transaction = try signed(state.transactions[index])
        try notify(
            .refundReversed, subtype: nil, transaction: transaction.payload,
            subscription: transaction.payload.type == .autoRenewableSubscription ? transaction.payload.originalTransactionID : nil)
        try save()
        publish(transaction)
        return transaction
    }

    /// Declines a refund request: nothing changes but a `REFUND_DECLINED` notification.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown transaction.
    public func declineRefund(transactionID: String) throws(SimulatedAppStoreError) {
        let transaction = try signedTransaction(transactionID)
        try notify(.refundDeclined, subtype: nil, transaction: transaction.payload, subscription: nil)
        try save()
    }

    /// The customer asked for a refund of a consumable: Apple asks the app for consumption
    /// information with `CONSUMPTION_REQUEST`.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown transaction.
    public func requestConsumptionInformation(transactionID: String, reason: ConsumptionRequestReason = .unintendedPurchase) throws(SimulatedAppStoreError) {
        let transaction = try signedTransaction(transactionID)
        try notify(.consumptionRequest, subtype: nil, transaction: transaction.payload, subscription: nil, consumptionReason: reason)
        try save()
    }

    /// Shares a purchase with a family member: a new transaction owned `FAMILY_SHARED`,
    /// published to ``updates()``.
    /// - Throws: ``SimulatedAppStoreError`` `notFound`, or `invalidState` when the product is not family-shareable.
    @discardableResult
    public func shareWithFamily(transactionID: String) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        guard let index = state.transactionIndex(transactionID) else {
            throw SimulatedAppStoreError(.notFound, "no transaction \(transactionID)")
        }
        let original = state.transactions[index].payload
        guard let product = product(original.productID ?? ""), product.familyShareable else {
            throw SimulatedAppStoreError(.invalidState, "\(original.productID ?? "?") is not family-shareable")
        }
        guard original.inAppOwnershipType == .purchased else {
            throw SimulatedAppStoreError(.invalidState, "only the purchaser's own transaction can be shared")
        }
        // The family member gets a transaction of their own, with its own identifiers.
        var payload = original
        payload.transactionID = nextTransactionID()
        payload.originalTransactionID = payload.transactionID
        payload.inAppOwnershipType = .familyShared
        payload.appAccountToken = nil
        payload.purchaseDate = now
        payload.originalPurchaseDate = now
        state.transactions.append(TransactionRecord(payload: payload, sharedFrom: transactionID))
        let transaction = try signed(state.transactions[state.transactions.count - 1])
        try save()
        publish(transaction)
        return transaction
    }

    /// The purchaser stops sharing: the family member's transaction is revoked with type
    /// `FAMILY_REVOKE` and a `REVOKE` notification.
    /// - Throws: ``SimulatedAppStoreError`` as ``refund(transactionID:revocation:)``.
    @discardableResult
    public func revokeFamilySharing(transactionID: String) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        guard let index = state.transactionIndex(transactionID), state.transactions[index].payload.inAppOwnershipType == .familyShared else {
            throw SimulatedAppStoreError(.invalidState, "transaction \(transactionID) is not a family member's copy")
        }
        return try refund(transactionID: transactionID, revocation: SimulatedAppStore.Revocation(reason: .otherReason, type: .familyRevoke))
    }
}
