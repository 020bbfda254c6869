public import TallyCore
public import TallyVerify

extension PurchaseStore {
    /// Records an in-app purchase of a verified app receipt and grants it, once, under its
    /// transaction id, as the same transaction's JWS would be: whichever form arrives second
    /// is a replay.
    public func deliver(
        _ purchase: InAppPurchaseReceipt, from receipt: VerifiedReceipt, receiptText: String, presenter: User, orderID: String?
    ) async throws -> PurchaseResponse {
        try await deliver(TransactionPayload(purchase, of: receipt.payload), evidence: .receipt(receiptText), presenter: presenter, orderID: orderID)
    }
}
