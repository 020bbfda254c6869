extension TransactionPayload {
    /// The transaction an app receipt's in-app purchase describes, with the receipt's bundle
    /// identifier and environment, signed when the receipt was created. A cancellation date
    /// (a refund) is its revocation date. No app account token: receipts do not carry one.
    ///
    /// The server grants a receipt's purchase and the same transaction's JWS under one
    /// transaction identifier, so whichever form arrives second is a replay.
    /// - Parameters:
    ///   - purchase: one in-app purchase of the receipt.
    ///   - receipt: the receipt that lists it.
    public init(_ purchase: InAppPurchaseReceipt, of receipt: AppReceipt) {
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
