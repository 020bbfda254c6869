public import Foundation
import TallyCore
import TallyVerify

/// What StoreKit 1 knows only from the app receipt: the customer's history and what they own
/// now. The StoreKit 1 store and its simulated counterpart read the receipt the same way.
extension StoreTransaction {
    /// Every transaction an app receipt lists, in the receipt's order; entries without a
    /// transaction or product identifier are left out.
    /// - Parameter receipt: the app receipt, standard base64.
    /// - Throws: ``TallyError`` `verification_failed` when the receipt cannot be read.
    public static func all(inReceipt receipt: String) throws(TallyError) -> [StoreTransaction] {
        guard let appReceipt = ReceiptVerifier.unverifiedReceipt(base64: receipt) else {
            throw TallyError(.verificationFailed, "the app receipt is not a readable PKCS#7 receipt")
        }
        return appReceipt.inAppPurchases.compactMap { purchase in
            try? StoreTransaction(evidence: .receipt(receipt), payload: TransactionPayload(purchase, of: appReceipt))
        }
    }

    /// The latest transaction of each product an app receipt shows the customer owns at
    /// `date`, as StoreKit 2's current entitlements: non-consumables and non-renewing
    /// subscriptions not refunded, and auto-renewable subscriptions not refunded whose
    /// expiry is after `date`.
    ///
    /// A purchase whose receipt entry has neither a product type nor an expiry is left out:
    /// it may be a consumable, and a consumable is credited through its own transaction, not
    /// as something owned.
    /// - Parameters:
    ///   - receipt: the app receipt, standard base64.
    ///   - date: the time to judge expiries at (the device's trusted time).
    /// - Throws: ``TallyError`` `verification_failed` when the receipt cannot be read.
    public static func entitlements(inReceipt receipt: String, at date: Date) throws(TallyError) -> [StoreTransaction] {
        var latest: [String: StoreTransaction] = [:]
        for transaction in try all(inReceipt: receipt) {
            let payload = transaction.payload
            guard payload.revocationDate == nil else { continue }
            let owned: Bool =
                switch payload.type {
                case .nonConsumable?, .nonRenewingSubscription?: true
                case .autoRenewableSubscription?, nil: payload.expiresDate.map { $0 > date } ?? false
                default: false
                }
            guard owned else { continue }
            if let kept = latest[transaction.productID],
                (kept.payload.purchaseDate ?? .distantPast) >= (payload.purchaseDate ?? .distantPast)
            {
                continue
            }
            latest[transaction.productID] = transaction
        }
        return latest.values.sorted { ($0.payload.purchaseDate ?? .distantPast, $0.id) < ($1.payload.purchaseDate ?? .distantPast, $1.id) }
    }
}
