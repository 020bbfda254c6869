import Foundation
import TallyCore
import TallyLedger
import TallySQL
import TallyVerify

/// Refunds, revocations and their reversals: what a transaction granted, taken back and given again.
extension PurchaseStore {
    /// Applies a refund or revocation unless a later revocation event was applied already.
    /// Returns whether anything changed.
    func revoke(_ executor: WriteContext, transactionID: String, eventAt: Int64, reason: RevocationReason?, time: Int64) async throws -> Bool {
        try await noteForMetrics(executor, transactionID: transactionID)
        // The event is recorded by a conditional UPDATE, which also locks the row: a refund and
        // its reversal racing (PostgreSQL) apply one after the other, and the later event wins.
        let current = try await executor.execute(
            """
            UPDATE store_transactions SET revocation_event_at = \(eventAt), revocation_reason = \(reason.map { Int64($0.rawValue) })
            WHERE transaction_id = \(transactionID) AND (revocation_event_at IS NULL OR revocation_event_at <= \(eventAt))
            """)
        guard current == 1, let transaction = try await Self.stored(executor, transactionID) else { return false }
        try await touchEntitlements(executor, transaction)
        let claimed = try await executor.execute("UPDATE store_transactions SET revoked = 1 WHERE transaction_id = \(transactionID) AND revoked = 0")
        guard claimed == 1 else { return false }
        guard transaction.granted, let user = transaction.userID else { return true }
        let ledger = executor.ledger
        var clawedBack: [TallyEventData.ClawedBack] = []
        for lot in try await ledger.unrevokedLots(transaction: transactionID) {
            let currency = lot.currency
            let taken = try await ledger.clawBack(lotID: lot.id, holder: user, currency: currency, transaction: transactionID)
            clawedBack.append(.init(currency: currency, removed: taken.removed, debt: taken.debt))
        }
        try await emitRevoked(executor, transaction, reason: reason, clawedBack: clawedBack)
        return true
    }

    /// Notes for the rollups the subscription (or purchase) of a transaction whose revocation may change.
    private func noteForMetrics(_ executor: WriteContext, transactionID: String) async throws {
        try await MetricsRollup.note(executor, originalOf: transactionID)
    }

    /// Restores what a refund took, unless a later revocation event was applied already.
    func reverseRevocation(_ executor: WriteContext, transactionID: String, eventAt: Int64, time: Int64) async throws -> Bool {
        try await noteForMetrics(executor, transactionID: transactionID)
        let current = try await executor.execute(
            """
            UPDATE store_transactions SET revocation_event_at = \(eventAt)
            WHERE transaction_id = \(transactionID) AND (revocation_event_at IS NULL OR revocation_event_at <= \(eventAt))
            """)
        guard current == 1, let transaction = try await Self.stored(executor, transactionID) else { return false }
        try await touchEntitlements(executor, transaction)
        let claimed = try await executor.execute("UPDATE store_transactions SET revoked = 0 WHERE transaction_id = \(transactionID) AND revoked = 1")
        guard claimed == 1 else { return false }
        guard let user = transaction.userID else { return true }
        guard transaction.granted else {
            _ = try await grant(executor, transaction)
            return true
        }
        let ledger = executor.ledger
        let restored = transaction.grants ?? []
        for grant in restored {
            try await ledger.grant(
                user, grant.currency, amount: grant.amount, kind: .refundReversal,
                transaction: transactionID)
        }
        var data = transaction.event
        data.amounts = restored
        try await executor.outbox.emit(.purchaseRefundReversed, data)
        return true
    }
}
