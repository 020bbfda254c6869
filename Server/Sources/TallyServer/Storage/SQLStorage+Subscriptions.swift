public import Foundation
public import TallyCore
import TallySQL
public import TallyVerify

extension SQLStorage {
    public func knownTransactionIDs(_ ids: [String]) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try await read { executor, _ in
            var known = Set<String>()
            // In slices, under every database's limit on bound parameters.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let slice = Array(ids[start..<min(ids.count, start + 500)])
                for row in try await executor.query("SELECT transaction_id FROM store_transactions WHERE transaction_id IN (\(list: slice))") {
                    known.insert(try row.text("transaction_id"))
                }
            }
            return known
        }
    }

    public func subscriptionsNearRenewal(from: Date, to: Date, checkedBefore: Date, limit: Int) async throws -> [String] {
        try await read { executor, _ in
            try await executor.query(
                """
                SELECT t.original_transaction_id, MAX(t.expires_date) AS expires FROM store_transactions t
                LEFT JOIN apple_subscription_checks c ON c.original_transaction_id = t.original_transaction_id
                WHERE t.product_kind = \(ProductKind.autoRenewable) AND (c.checked_at IS NULL OR c.checked_at < \(Self.millis(checkedBefore)))
                -- Only subscriptions with a transaction expiring in the window (an index range)
                -- are grouped; the latest expiry of such a one may still lie beyond it.
                AND t.original_transaction_id IN (
                    SELECT original_transaction_id FROM store_transactions
                    WHERE product_kind = 'auto_renewable' AND expires_date >= \(Self.millis(from)) AND expires_date <= \(Self.millis(to)))
                GROUP BY t.original_transaction_id
                HAVING MAX(t.expires_date) >= \(Self.millis(from)) AND MAX(t.expires_date) <= \(Self.millis(to))
                ORDER BY expires, t.original_transaction_id LIMIT \(Int64(limit))
                """
            ).map { try $0.text("original_transaction_id") }
        }
    }

    public func markSubscriptionChecked(_ originalTransactionID: String) async throws {
        _ = try await write { executor, time in
            try await executor.execute(
                """
                INSERT INTO apple_subscription_checks (original_transaction_id, checked_at) VALUES (\(originalTransactionID), \(time))
                ON CONFLICT (original_transaction_id) DO UPDATE SET checked_at = excluded.checked_at
                """)
        }
    }

    public func subscriptionOriginals(user: User) async throws -> [String] {
        try await read { executor, _ in
            try await executor.query(
                """
                SELECT DISTINCT original_transaction_id FROM store_transactions \
                WHERE user_id = \(user.id) AND product_kind = \(ProductKind.autoRenewable) ORDER BY original_transaction_id
                """
            ).map { try $0.text("original_transaction_id") }
        }
    }

    public func recordFromApple(
        _ transaction: Verified<TransactionPayload>, jws: String, renewal: Verified<RenewalInfoPayload>?, renewalJWS: String?
    ) async throws {
        try Self.checkQuantity(transaction.payload)
        _ = try await write { executor, time in
            if let renewal, let renewalJWS { try await saveRenewalInfo(executor, renewal.payload, jws: renewalJWS, time: time) }
            _ = try await record(executor, time: time, payload: transaction.payload, evidence: .jws(jws), presenter: nil)
            if let id = transaction.payload.transactionID, let revoked = transaction.payload.revocationDate {
                _ = try await revoke(
                    executor, transactionID: id, eventAt: Self.millis(revoked), reason: transaction.payload.revocationReason, time: time)
            }
        }
    }
}
