import Foundation
import TallyCore
import TallyTestSupport
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

    /// The shared sample receipt (``SampleReceipt``), created `created`.
    static func receipt(created: Date = created, environment: AppStoreEnvironment = .sandbox) -> AppReceipt {
        SampleReceipt.make(created: created, environment: environment)
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
