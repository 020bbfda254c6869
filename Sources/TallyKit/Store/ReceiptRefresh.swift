package import Foundation

/// When StoreKit 1's app receipt is refreshed (`SKReceiptRefreshRequest`), and how long one may
/// take. A refresh may ask the customer to sign in with their Apple ID: it is asked for only
/// by something the customer did, and it waits while they type.
package enum ReceiptRefresh {
    /// Why ``StoreKit1Store`` needs a receipt it does not have (one that lists a transaction,
    /// or any receipt at all).
    package enum Occasion: Sendable, CaseIterable {
        /// The customer paid: the payment sheet was just on screen.
        case purchase
        /// The customer asked to restore.
        case restore
        /// StoreKit delivered a transaction by itself: a renewal, an Ask to Buy approval, a
        /// restored or interrupted purchase.
        case transactionUpdate
        /// The manager takes up the queue's unfinished transactions (at every start, and after
        /// a restore has refreshed the receipt).
        case unfinishedTransactions
        /// The app asked for its own purchase (``PurchaseManager/appPurchase()``), typically at launch.
        case appPurchase
    }

    /// Whether the receipt may be refreshed now: only when the customer just bought or asked
    /// to restore. Elsewhere a sign-in sheet would appear without a reason the customer can
    /// see (App Review rejects that); a transaction the receipt does not list yet stays in
    /// the queue and is taken up again at the next start, purchase or restore.
    package static func isAllowed(_ occasion: Occasion) -> Bool {
        switch occasion {
        case .purchase, .restore: true
        case .transactionUpdate, .unfinishedTransactions, .appPurchase: false
        }
    }

    /// How long a refresh may take before it is cancelled: ten minutes, not the 15 seconds of a
    /// products request, since it includes the customer typing a password. The customer can
    /// cancel the sign-in themselves; the limit only ends a refresh StoreKit never answers.
    package static let timeout: TimeInterval = 600
}
