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
        var environments = Set(app.environments.map(AppStoreEnvironment.init(rawValue:)))
        if development { environments.formUnion([.sandbox, .xcode]) }
        return SignedDataVerifier(
            SignedDataVerifier.Configuration(
                bundleID: .equals(app.bundleID), appAppleID: app.appAppleID.map { .equals($0) } ?? .any,
                environments: environments, rootCertificates: [AppleRootCertificates.appleRootCAG3] + testRoots),
            now: now)
    }
}
