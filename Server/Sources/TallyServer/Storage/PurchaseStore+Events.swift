import Foundation
import TallyCore
import TallySQL

extension PurchaseStore {
    /// What an event says of a recorded transaction: its user, product, environment and price.
    func transactionEvent(_ executor: any SQLExecutor, transactionID: String) async throws -> TallyEventData {
        guard let transaction = try await Self.stored(executor, transactionID) else {
            var data = TallyEventData(userID: nil)
            data.transactionID = transactionID
            return data
        }
        return transaction.event
    }

    /// The events of a transaction's first grant: the purchase, a subscription's start or
    /// renewal, and the entitlements it brings.
    func emitGranted(_ executor: WriteContext, _ transaction: StoreTransaction, product: TallyCatalog.Product, grants: [Amount]) async throws {
        let outbox = executor.outbox
        var data = transaction.event
        data.amounts = grants
        if !product.entitlements.isEmpty { data.entitlements = product.entitlements }
        try await outbox.emit(.purchaseGranted, data)
        if product.kind == .autoRenewable {
            let first = data.originalTransactionID == nil || data.originalTransactionID == transaction.transactionID
            try await outbox.emit(first ? .subscriptionStarted : .subscriptionRenewed, data)
        }
    }

    /// The events of a refund or revocation that took back what a transaction granted.
    func emitRevoked(
        _ executor: WriteContext, _ transaction: StoreTransaction, reason: RevocationReason?, clawedBack: [TallyEventData.ClawedBack]
    ) async throws {
        let outbox = executor.outbox
        var data = transaction.event
        data.clawedBack = clawedBack
        data.reason = reason.map { String($0.rawValue) }
        if let product = catalog.product(transaction.productID), !product.entitlements.isEmpty { data.entitlements = product.entitlements }
        try await outbox.emit(.purchaseRefunded, data)
        if transaction.kind == .autoRenewable { try await outbox.emit(.subscriptionRevoked, data) }
    }

    /// The subscription event an App Store notification brings beyond its transaction: a
    /// renewal that failed (in grace, or in billing retry, also once grace ends) and an expiry.
    func emitSubscriptionStatus(
        _ executor: WriteContext, time: Int64, notification: NotificationPayload, transactionID: String
    ) async throws {
        let type: TallyEventType
        switch notification.notificationType {
        case .didFailToRenew?: type = notification.subtype == .gracePeriod ? .subscriptionGracePeriod : .subscriptionBillingRetry
        // Grace ended without a payment: access ends while Apple goes on retrying the charge.
        case .gracePeriodExpired?: type = .subscriptionBillingRetry
        case .expired?: type = .subscriptionExpired
        default: return
        }
        var data = try await transactionEvent(executor, transactionID: transactionID)
        guard data.userID != nil else { return }
        data.notificationType = notification.notificationType?.rawValue
        data.subtype = notification.subtype?.rawValue
        if let product = data.productID.flatMap({ catalog.product($0) }), !product.entitlements.isEmpty {
            data.entitlements = product.entitlements
        }
        try await executor.outbox.emit(type, data)
    }

    // MARK: - Entitlements

    /// Notes, before a change that may alter `user`'s access, which entitlements are active;
    /// the write then says what changed (``Transactions``). Only the first
    /// note of a transaction counts.
    func touchEntitlements(
        _ executor: WriteContext, user: String, time: Int64, transactionID: String? = nil, actor: String? = nil
    ) async throws {
        guard !executor.hasTouched(user) else {
            executor.touch(user, .init(before: [], transactionID: transactionID, actor: actor))
            return
        }
        if executor.dialect == .postgres {
            // One write at a time reads and changes a user's access: without it two writes
            // would each compare against a state the other is changing (READ COMMITTED), and
            // the events would contradict GET /v1/me. The next statement sees the other's commit.
            _ = try await executor.query("SELECT id FROM users WHERE id = \(user) FOR UPDATE")
        }
        let before = try await accounts.activeEntitlements(executor, user: user, time: time)
        executor.touch(user, .init(before: before, transactionID: transactionID, actor: actor))
    }

    /// Notes the access of a recorded transaction's owner, when the transaction can change it.
    func touchEntitlements(_ executor: WriteContext, _ transaction: StoreTransaction) async throws {
        guard let user = transaction.userID, affectsAccess(transaction) else { return }
        try await touchEntitlements(executor, user: user, time: executor.now, transactionID: transaction.transactionID)
    }

    /// Whether a transaction can change access: its product brings entitlements, or it is a
    /// subscription's (the latest transaction of a subscription decides its state, whatever its
    /// product).
    func affectsAccess(_ transaction: StoreTransaction) -> Bool {
        transaction.kind == .autoRenewable || !(catalog.product(transaction.productID)?.entitlements.isEmpty ?? true)
    }
}
