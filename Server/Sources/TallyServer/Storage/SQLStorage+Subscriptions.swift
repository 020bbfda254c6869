import Foundation
public import TallyCore
import TallySQL
public import TallyVerify

extension SQLStorage {
    public func subscriptionOriginals(user: User) async throws -> [String] {
        try await read { executor, _ in
            try await executor.query(
                "SELECT DISTINCT original_transaction_id FROM store_transactions WHERE user_id = ? AND product_kind = ? ORDER BY original_transaction_id",
                [.text(user.id), .text(ProductKind.autoRenewable.rawValue)]
            ).map { try $0.text("original_transaction_id") }
        }
    }

    public func refreshSubscription(
        _ transaction: Verified<TransactionPayload>, jws: String, renewal: Verified<RenewalInfoPayload>?, renewalJWS: String?
    ) async throws {
        try Self.checkQuantity(transaction.payload)
        _ = try await write { executor, time in
            if let renewal, let renewalJWS { try await saveRenewalInfo(executor, renewal.payload, jws: renewalJWS) }
            _ = try await record(executor, time: time, payload: transaction.payload, evidence: .jws(jws), presenter: nil)
            if let id = transaction.payload.transactionID, let revoked = transaction.payload.revocationDate {
                _ = try await revoke(
                    executor, transactionID: id, eventAt: Self.millis(revoked), reason: transaction.payload.revocationReason, time: time)
            }
        }
    }
}
