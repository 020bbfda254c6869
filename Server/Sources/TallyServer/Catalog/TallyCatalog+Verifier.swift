public import Foundation
public import TallyCore
public import TallyVerify
public import X509

extension TallyCatalog {
    /// The verifier `tally serve` checks signed data with: the app's bundle identifier and App
    /// Apple ID, the catalog's environments, Apple's root.
    /// - Parameters:
    ///   - development: also accept Sandbox and Xcode data (`--dev`).
    ///   - testRoots: roots trusted beside Apple's; only ever given explicitly, in development.
    ///   - now: the current time, for online checks.
    public func verifier(
        development: Bool, testRoots: [Certificate] = [], now: @escaping @Sendable () -> Date = { Date() }
    ) -> SignedDataVerifier {
        SignedDataVerifier(
            SignedDataVerifier.Configuration(
                bundleID: .equals(app.bundleID), appAppleID: app.appAppleID.map { .equals($0) } ?? .any,
                environments: environments(development: development), rootCertificates: [AppleRootCertificates.appleRootCAG3] + testRoots),
            now: now)
    }

    /// The verifier `tally serve` checks app receipts (StoreKit 1) with: the app's bundle
    /// identifier, the catalog's environments, Apple Root CA (the RSA root receipts chain to),
    /// each receipt's chain valid at its creation date.
    /// - Parameters:
    ///   - development: also accept Sandbox and Xcode receipts (`--dev`).
    ///   - testRoots: roots trusted beside Apple's, such as a simulated App Store's receipt
    ///     root; only ever given explicitly, in development.
    ///   - now: the current time, for receipts without a creation date.
    public func receiptVerifier(
        development: Bool, testRoots: [Certificate] = [], now: @escaping @Sendable () -> Date = { Date() }
    ) -> ReceiptVerifier {
        ReceiptVerifier(
            ReceiptVerifier.Configuration(
                bundleID: .equals(app.bundleID), environments: environments(development: development),
                rootCertificates: [AppleRootCertificates.appleRootCA] + testRoots),
            now: now)
    }

    /// The catalog's environments, with Sandbox and Xcode in development.
    private func environments(development: Bool) -> Set<AppStoreEnvironment> {
        var environments = Set(app.environments.map(AppStoreEnvironment.init(rawValue:)))
        if development { environments.formUnion([.sandbox, .xcode]) }
        return environments
    }
}
