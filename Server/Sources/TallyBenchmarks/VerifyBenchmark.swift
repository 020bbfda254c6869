import Crypto
public import Foundation
import TallyCore
public import TallyTesting
import TallyVerify

/// Measures verification throughput on one core: Tally with its chain cache, Tally without
/// it, and the raw P-256 verification rate of swift-crypto on the same signatures, in the
/// same process, so the figures can be compared as ratios on a noisy machine.
public enum VerifyBenchmark {
    /// What one run measured.
    public struct Result: Sendable {
        /// How many distinct JWS were verified by the cached run.
        public var count: Int
        /// swift-crypto `P256.Signing.PublicKey.isValidSignature`, per second.
        public var rawVerifyRate: Double
        /// Tally with the chain cached, per second.
        public var cachedRate: Double
        /// The median over rounds of cached rate ÷ raw rate.
        public var cachedToRawMedian: Double
        /// How many JWS the uncached run verified.
        public var uncachedCount: Int
        /// Tally validating the chain every time, per second.
        public var uncachedRate: Double
    }

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
            payload.transactionId = String(2_000_000_000_000_000 + index)
            payload.originalTransactionId = payload.transactionId
            payload.bundleId = "com.example"
            payload.productId = "com.example.credits.10"
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

    /// Runs the measurements over `workload`.
    ///
    /// The raw and cached runs alternate in `rounds` slices of the workload, so that a burst of
    /// load from another tenant of the machine hits both alike; the ratio reported is the
    /// median of the rounds' ratios.
    /// - Parameters:
    ///   - workload: the JWS to verify.
    ///   - uncachedCount: how many of them the slower uncached run verifies.
    ///   - rounds: how many alternating slices.
    ///   - now: the verifier's clock.
    /// - Throws: ``Failure`` when any JWS does not verify: a figure for failures is no figure.
    public static func run(
        _ workload: Workload, uncachedCount: Int, rounds: Int = 5, now: @escaping @Sendable () -> Date
    ) async throws -> Result {
        let clock = ContinuousClock()
        let key = workload.authority.leafKey.publicKey
        // The raw baseline's inputs are prepared outside the timing: it measures ECDSA (with its SHA-256) alone.
        let prepared: [(Data, P256.Signing.ECDSASignature)] = try workload.jws.map { jws in
            let lastDot = jws.lastIndex(of: ".")!
            let signature = Base64.decode(jws[jws.index(after: lastDot)...].utf8, alphabet: .url)!
            return (Data(jws[..<lastDot].utf8), try P256.Signing.ECDSASignature(rawRepresentation: signature))
        }

        let configuration = SignedDataVerifier.Configuration(
            bundleID: .equals("com.example"), appAppleID: .any, environments: [.sandbox],
            rootCertificates: [workload.authority.root])
        let cached = SignedDataVerifier(configuration, now: now)
        _ = await cached.verifyTransaction(workload.jws[0])  // warm the cache

        var rawTime = Duration.zero
        var cachedTime = Duration.zero
        var ratios: [Double] = []
        let sliceSize = max(1, workload.jws.count / max(1, rounds))
        for start in stride(from: 0, to: workload.jws.count, by: sliceSize) {
            let range = start..<min(start + sliceSize, workload.jws.count)
            var rawValid = 0
            let raw = clock.measure {
                for (input, signature) in prepared[range] where key.isValidSignature(signature, for: input) { rawValid += 1 }
            }
            var cachedValid = 0
            let begin = clock.now
            for jws in workload.jws[range] where await cached.verifyTransaction(jws).value != nil { cachedValid += 1 }
            let tally = clock.now - begin
            guard rawValid == range.count, cachedValid == range.count else {
                throw Failure(description: "\(range.count - rawValid) raw and \(range.count - cachedValid) cached verifications failed")
            }
            rawTime += raw
            cachedTime += tally
            ratios.append(seconds(raw) / seconds(tally))
        }

        var uncachedConfiguration = configuration
        uncachedConfiguration.chainCacheCapacity = 0
        let uncached = SignedDataVerifier(uncachedConfiguration, now: now)
        let subset = workload.jws.prefix(max(1, min(uncachedCount, workload.jws.count)))
        var uncachedValid = 0
        let uncachedStart = clock.now
        for jws in subset where await uncached.verifyTransaction(jws).value != nil { uncachedValid += 1 }
        let uncachedTime = clock.now - uncachedStart
        guard uncachedValid == subset.count else { throw Failure(description: "uncached run rejected \(subset.count - uncachedValid) JWS") }

        return Result(
            count: workload.jws.count,
            rawVerifyRate: Double(workload.jws.count) / seconds(rawTime),
            cachedRate: Double(workload.jws.count) / seconds(cachedTime),
            cachedToRawMedian: ratios.sorted()[ratios.count / 2],
            uncachedCount: subset.count,
            uncachedRate: Double(subset.count) / seconds(uncachedTime))
    }

    /// A benchmark that could not produce honest figures.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
