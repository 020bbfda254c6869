import Crypto
public import Foundation
import TallyCore
public import TallyTesting
import TallyVerify

/// Measures verification throughput on one core: Tally with its chain cache, Tally without
/// it, and the raw P-256 verification rate of swift-crypto on the same signatures, in the
/// same process, so the figures can be compared as ratios on a noisy machine.
public enum VerifyBenchmark: Sendable {
    /// A set of distinct signed transactions and the root that verifies them.
    public struct Workload: Sendable {
        /// The JWS, each a distinct transaction.
        public var jws: [String]
        /// The authority that signed them.
        public var authority: TestCertificateAuthority
    }

    /// Mints `count` distinct sandbox transactions for `com.example`, signed at `now`.
    /// - Throws: when minting or signing fails.
    public static func workload(count: Int, now: Date) throws -> Workload {
        let authority = try TestCertificateAuthority(profile: .init(issuedAt: now))
        var jws: [String] = []
        jws.reserveCapacity(count)
        for index in 0..<count {
            var payload = TransactionPayload()
            payload.transactionID = String(2_000_000_000_000_000 + index)
            payload.originalTransactionID = payload.transactionID
            payload.bundleID = "com.example"
            payload.productID = "com.example.credits.10"
            payload.type = .consumable
            payload.quantity = 1
            payload.price = 4990
            payload.currency = "USD"
            payload.environment = .sandbox
            payload.storefront = "USA"
            payload.inAppOwnershipType = .purchased
            payload.transactionReason = .purchase
            payload.purchaseDate = now
            payload.originalPurchaseDate = now
            payload.signedDate = now
            payload.appAccountToken = UUID().uuidString.lowercased()
            jws.append(try authority.sign(payload))
        }
        return Workload(jws: jws, authority: authority)
    }

    /// Runs the measurements over `workload`, raw and cached alternating in `rounds` slices (see
    /// ``VerificationRates``).
    /// - Parameters:
    ///   - workload: the JWS to verify.
    ///   - uncachedCount: how many of them the slower uncached run verifies.
    ///   - rounds: how many alternating slices.
    ///   - now: the verifier's clock.
    /// - Returns: the rates measured, the raw one swift-crypto's
    ///   `P256.Signing.PublicKey.isValidSignature`.
    /// - Throws: ``Failure`` when any JWS does not verify: a figure for failures is no figure.
    public static func run(
        _ workload: Workload, uncachedCount: Int, rounds: Int = 5, now: @escaping @Sendable () -> Date
    ) async throws -> VerificationRates {
        let key = workload.authority.leafKey.publicKey
        // The raw baseline's inputs are prepared outside the timing: it measures ECDSA (with its SHA-256) alone.
        let items = try workload.jws.map { jws in
            guard let lastDot = jws.lastIndex(of: "."),
                let signature = Base64.decode(jws[jws.index(after: lastDot)...].utf8, alphabet: .url)
            else { throw Failure(description: "a minted JWS has no signature") }
            return (input: jws, prepared: (Data(jws[..<lastDot].utf8), try P256.Signing.ECDSASignature(rawRepresentation: signature)))
        }

        let configuration = SignedDataVerifier.Configuration(
            bundleID: .equals("com.example"), appAppleID: .any, environments: [.sandbox],
            rootCertificates: [workload.authority.root])
        let cached = SignedDataVerifier(configuration, now: now)
        var uncachedConfiguration = configuration
        uncachedConfiguration.chainCacheCapacity = 0
        let uncached = SignedDataVerifier(uncachedConfiguration, now: now)
        return try await VerificationRates.measure(
            items, rounds: rounds, uncachedCount: uncachedCount,
            wording: .init(verifications: "verifications", items: "JWS"),
            raw: { input, signature in key.isValidSignature(signature, for: input) },
            cached: { await cached.verifyTransaction($0).value != nil },
            uncached: { await uncached.verifyTransaction($0).value != nil })
    }

    /// A benchmark that could not produce honest figures.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
}
