public import TallyCore
public import TallyVerify

extension SQLStorage {
    /// Records an in-app purchase of a verified app receipt and grants it, once, under its
    /// transaction id, as the same transaction's JWS would be: whichever form arrives second
    /// is a replay.
    public func deliver(
        _ purchase: InAppPurchaseReceipt, from receipt: VerifiedReceipt, receiptText: String, presenter: User, orderID: String?
    ) async throws -> PurchaseResponse {
        try await deliver(TransactionPayload(purchase, of: receipt.payload), evidence: receiptText, presenter: presenter, orderID: orderID)
    }
}

extension TransactionPayload {
    /// The transaction an app receipt's in-app purchase describes, with the receipt's bundle
    /// identifier and environment, signed when the receipt was created. A cancellation date
    /// (a refund) is its revocation date. No app account token: receipts do not carry one.
    init(_ purchase: InAppPurchaseReceipt, of receipt: AppReceipt) {
        self.init()
        transactionID = purchase.transactionID
        originalTransactionID = purchase.originalTransactionID ?? purchase.transactionID
        bundleID = receipt.bundleID
        productID = purchase.productID
        purchaseDate = purchase.purchaseDate
        originalPurchaseDate = purchase.originalPurchaseDate
        quantity = purchase.quantity
        type = purchase.productType
        expiresDate = purchase.expiresDate
        webOrderLineItemID = purchase.webOrderLineItemID.map(String.init)
        revocationDate = purchase.cancellationDate
        environment = receipt.environment
        signedDate = receipt.receiptCreationDate
    }
}
