import Foundation
import TallyCore
import TallyTesting
import TallyVerify
import X509

/// Shared pieces for receipt tests: one set of RSA keys per process (generating them is slow),
/// a chain minted at ``Fixtures/mintDate``, a receipt with every field, and verifiers.
enum ReceiptFixtures {
    static let keys: TestReceiptAuthority.Keys = try! TestReceiptAuthority.Keys.generate()
    static let otherKeys: TestReceiptAuthority.Keys = try! TestReceiptAuthority.Keys.generate()
    /// A chain with Apple's shape, minted once.
    static let authority: TestReceiptAuthority = try! authority { _ in }
    /// Xcode's kind of signer, minted once.
    static let xcode: TestReceiptAuthority = try! TestReceiptAuthority.xcode(issuedAt: Fixtures.mintDate, key: otherKeys.root)

    /// The day after ``Fixtures/mintDate``: when minted receipts are created.
    static let created = Fixtures.mintDate.addingTimeInterval(86_400)
    /// 2100-01-01: far after every minted certificate expired.
    static let farFuture = Date(timeIntervalSince1970: 4_102_444_800)

    /// A chain minted at ``Fixtures/mintDate`` with Apple's shape, unless the profile is changed.
    static func authority(keys: TestReceiptAuthority.Keys = keys, _ change: (inout TestReceiptAuthority.Profile) -> Void) throws -> TestReceiptAuthority {
        var profile = TestReceiptAuthority.Profile(issuedAt: Fixtures.mintDate)
        change(&profile)
        return try TestReceiptAuthority(profile: profile, keys: keys)
    }

    /// A sandbox receipt for com.example 42 with two in-app purchases, every field set.
    static func receipt(created: Date = created, environment: AppStoreEnvironment = .sandbox) -> AppReceipt {
        var receipt = AppReceipt()
        receipt.environment = environment
        receipt.appAppleID = 1234
        receipt.bundleID = "com.example"
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

    /// ``receipt(created:environment:)`` as `AppReceipt` reads it back: product type raw values filled in.
    static func decoded(_ receipt: AppReceipt) -> AppReceipt {
        var copy = receipt
        copy.rawEnvironment = copy.rawEnvironment ?? copy.environment.map { $0 == .sandbox ? "ProductionSandbox" : $0.rawValue }
        copy.inAppPurchases = copy.inAppPurchases.map { purchase in
            var purchase = purchase
            switch purchase.productType {
            case .nonConsumable?: purchase.rawProductType = 0
            case .consumable?: purchase.rawProductType = 1
            case .nonRenewingSubscription?: purchase.rawProductType = 2
            case .autoRenewableSubscription?: purchase.rawProductType = 3
            default: break
            }
            return purchase
        }
        return copy
    }

    static func verifier(
        roots: [Certificate] = [authority.root],
        bundleID: ReceiptVerifier.Expectation<String> = .equals("com.example"),
        appVersion: ReceiptVerifier.Expectation<String> = .any,
        environments: Set<AppStoreEnvironment> = [.sandbox],
        now: Date = Fixtures.effectiveDate,
        configure: (inout ReceiptVerifier.Configuration) -> Void = { _ in }
    ) -> ReceiptVerifier {
        var configuration = ReceiptVerifier.Configuration(
            bundleID: bundleID, appVersion: appVersion, environments: environments, rootCertificates: roots)
        configure(&configuration)
        return ReceiptVerifier(configuration, now: { now })
    }
}
