public import Foundation
public import TallyCore

/// The app receipt the receipt tests of both packages mint: a sandbox receipt for
/// `com.example` 42 with a consumable and a subscription in its first (trial) period, every
/// field set.
public enum SampleReceipt: Sendable {
    /// 2024-06-01: when the test receipt chains are minted.
    public static let mintDate = Date(timeIntervalSince1970: 1_717_200_000)
    /// The day after ``mintDate``: when the receipt is created unless a test says otherwise.
    public static let created = mintDate.addingTimeInterval(86_400)

    /// The receipt.
    /// - Parameters:
    ///   - created: its creation date; the purchases were made one and two hours before.
    ///   - environment: its environment.
    ///   - bundleID: the app it is for.
    /// - Returns: the receipt, not signed.
    public static func make(created: Date = created, environment: AppStoreEnvironment = .sandbox, bundleID: String = "com.example") -> AppReceipt {
        var receipt = AppReceipt()
        receipt.environment = environment
        receipt.appAppleID = 1234
        receipt.bundleID = bundleID
        receipt.applicationVersion = "42"
        receipt.receiptCreationDate = created
        receipt.originalPurchaseDate = Date(timeIntervalSince1970: 1_500_000_000)
        receipt.originalApplicationVersion = "1.0"

        var credits = InAppPurchaseReceipt()
        credits.quantity = 2
        credits.productID = "com.example.credits.10"
        credits.transactionID = "1000000000000001"
        credits.originalTransactionID = "1000000000000001"
        credits.purchaseDate = created.addingTimeInterval(-3600)
        credits.originalPurchaseDate = created.addingTimeInterval(-3600)
        credits.productType = .consumable
        credits.isTrialPeriod = false
        credits.isInIntroOfferPeriod = false

        var monthly = InAppPurchaseReceipt()
        monthly.quantity = 1
        monthly.productID = "com.example.pro.monthly"
        monthly.transactionID = "1000000000000002"
        monthly.originalTransactionID = "1000000000000002"
        monthly.purchaseDate = created.addingTimeInterval(-7200)
        monthly.originalPurchaseDate = created.addingTimeInterval(-7200)
        monthly.expiresDate = created.addingTimeInterval(30 * 86_400 - 7200)
        monthly.productType = .autoRenewableSubscription
        monthly.webOrderLineItemID = 2_000_000_012_345_678
        monthly.isTrialPeriod = true
        monthly.isInIntroOfferPeriod = false
        monthly.promotionalOfferID = "winback"
        receipt.inAppPurchases = [credits, monthly]
        return receipt
    }
}
