public import Foundation
public import TallyCore
import TallySQL
public import TallyVerify

extension NotificationStore {
    /// Which of these transaction ids Tally has recorded.
    public func knownTransactionIDs(_ ids: [String]) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try await read { executor, _ in
            var known = Set<String>()
            // In slices, under every database's limit on bound parameters.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let slice = Array(ids[start..<min(ids.count, start + 500)])
                for row in try await executor.query("SELECT transaction_id FROM store_transactions WHERE transaction_id IN (\(list: slice))") {
                    known.insert(try row.text(StoreTransaction.Columns.transactionID))
                }
            }
            return known
        }
    }

    /// Auto-renewable subscriptions whose latest known expiry falls between `from` and `to`
    /// (renewing now, or just lapsed) and that were not asked of Apple since `checkedBefore`;
    /// at most `limit`, the earliest expiry first.
    public func subscriptionsNearRenewal(from: Date, to: Date, checkedBefore: Date, limit: Int) async throws -> [String] {
        try await read { executor, _ in
            try await executor.query(
                """
                SELECT t.original_transaction_id, MAX(t.expires_date) AS expires FROM store_transactions t
                LEFT JOIN apple_subscription_checks c ON c.original_transaction_id = t.original_transaction_id
                WHERE t.product_kind = \(ProductKind.autoRenewable) AND (c.checked_at IS NULL OR c.checked_at < \(SQLStorage.millis(checkedBefore)))
                -- Only subscriptions with a transaction expiring in the window (an index range)
                -- are grouped; the latest expiry of such a one may still lie beyond it.
                AND t.original_transaction_id IN (
                    SELECT original_transaction_id FROM store_transactions
                    WHERE product_kind = 'auto_renewable' AND expires_date >= \(SQLStorage.millis(from)) AND expires_date <= \(SQLStorage.millis(to)))
                GROUP BY t.original_transaction_id
                HAVING MAX(t.expires_date) >= \(SQLStorage.millis(from)) AND MAX(t.expires_date) <= \(SQLStorage.millis(to))
                ORDER BY expires, t.original_transaction_id LIMIT \(Int64(limit))
                """
            ).map { try $0.text(StoreTransaction.Columns.originalTransactionID) }
        }
    }

    /// Notes that Apple was asked about the subscription now.
    public func markSubscriptionChecked(_ originalTransactionID: String) async throws {
        _ = try await write { executor, time in
            try await executor.execute(
                """
                INSERT INTO apple_subscription_checks (original_transaction_id, checked_at) VALUES (\(originalTransactionID), \(time))
                ON CONFLICT (original_transaction_id) DO UPDATE SET checked_at = excluded.checked_at
                """)
        }
    }

    /// The original transaction ids of the user's auto-renewable subscriptions.
    public func subscriptionOriginals(user: User) async throws -> [String] {
        try await read { executor, _ in
            try await executor.query(
                """
                SELECT DISTINCT original_transaction_id FROM store_transactions \
                WHERE user_id = \(user.id) AND product_kind = \(ProductKind.autoRenewable) ORDER BY original_transaction_id
                """
            ).map { try $0.text(StoreTransaction.Columns.originalTransactionID) }
        }
    }

    /// Takes in a transaction (and a subscription's renewal info) as Apple reports them (a
    /// renewal, an expiry, a revocation the notifications did not bring; an imported history),
    /// as a notification would: recorded once, granted to the user its token names.
    public func recordFromApple(
        _ transaction: Verified<TransactionPayload>, jws: String, renewal: Verified<RenewalInfoPayload>?, renewalJWS: String?
    ) async throws {
        try PurchaseStore.checkQuantity(transaction.payload)
        _ = try await write { executor, time in
            if let renewal, let renewalJWS { try await saveRenewalInfo(executor, renewal.payload, jws: renewalJWS, time: time) }
            _ = try await purchases.record(executor, time: time, payload: transaction.payload, evidence: .jws(jws), presenter: nil)
            if let id = transaction.payload.transactionID, let revoked = transaction.payload.revocationDate {
                _ = try await purchases.revoke(
                    executor, transactionID: id, eventAt: SQLStorage.millis(revoked), reason: transaction.payload.revocationReason, time: time)
            }
        }
    }
}
