import Crypto
import Foundation
import TallyCore
import TallyTesting
import TallyVerify
import X509

/// Shared pieces for verifier tests: fixed times, verifiers, and ways to bend a JWS.
enum Fixtures {
    /// 2025-11-01T02:09:35Z, the effective date of Apple's chain tests.
    static let effectiveDate = Date(timeIntervalSince1970: 1_761_962_975)
    /// 2024-06-01T00:00:00Z, when minted chains in these tests are issued.
    static let mintDate = Date(timeIntervalSince1970: 1_717_200_000)

    static func verifier(
        roots: [Certificate],
        bundleID: SignedDataVerifier.Expectation<String> = .equals("com.example"),
        appAppleID: SignedDataVerifier.Expectation<Int64> = .equals(1234),
        environments: Set<AppStoreEnvironment> = [.sandbox],
        now: Date = effectiveDate,
        configure: (inout SignedDataVerifier.Configuration) -> Void = { _ in }
    ) -> SignedDataVerifier {
        var configuration = SignedDataVerifier.Configuration(
            bundleID: bundleID, appAppleID: appAppleID, environments: environments, rootCertificates: roots)
        configure(&configuration)
        return SignedDataVerifier(configuration, now: { now })
    }

    /// A chain minted at ``mintDate`` with Apple's shape, unless the profile is changed.
    static func authority(_ change: (inout TestCertificateAuthority.Profile) -> Void = { _ in }) throws -> TestCertificateAuthority {
        var profile = TestCertificateAuthority.Profile(issuedAt: mintDate)
        change(&profile)
        return try TestCertificateAuthority(profile: profile)
    }

    /// A sandbox transaction for com.example, signed a day after ``mintDate``.
    static func transaction(id: String = "1000000000000001") -> TransactionPayload {
        var payload = TransactionPayload()
        payload.transactionID = id
        payload.originalTransactionID = id
        payload.bundleID = "com.example"
        payload.productID = "com.example.credits.10"
        payload.type = .consumable
        payload.quantity = 1
        payload.environment = .sandbox
        payload.signedDate = mintDate.addingTimeInterval(86_400)
        payload.purchaseDate = mintDate.addingTimeInterval(86_400)
        return payload
    }

    static func segments(_ jws: String) -> [String] {
        jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    static func decodedJSON(_ segment: String) -> [String: Any] {
        let bytes = Base64.decode(segment.utf8, alphabet: .url) ?? []
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    static func encodedJSON(_ object: [String: Any]) -> String {
        Base64.encodeURL((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// Replaces the header with `change(header)` and re-signs with `key`, so that only the
    /// header change is wrong.
    static func resignedWithHeader(_ jws: String, key: P256.Signing.PrivateKey, _ change: (inout [String: Any]) -> Void) throws -> String {
        let parts = segments(jws)
        var header = decodedJSON(parts[0])
        change(&header)
        let payload = Data(Base64.decode(parts[1].utf8, alphabet: .url) ?? [])
        return try TestCertificateAuthority.sign(json: payload, headerSegment: encodedJSON(header), key: key)
    }
}
