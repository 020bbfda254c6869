import Crypto
public import Foundation
import TallyCore
public import TallyTesting
import TallyVerify
import _CryptoExtras

/// Measures app receipt verification on one core: `ReceiptVerifier` with its chain cache and
/// without it, against swift-crypto's raw RSA verification of the same signatures, in the same
/// process, so the figures can be compared as ratios on a noisy machine.
public enum ReceiptVerifyBenchmark {
    /// What one run measured.
    public struct Result: Sendable {
        /// How many distinct receipts the cached run verified.
        public var count: Int
        /// Their mean size in bytes.
        public var meanSize: Int
        /// swift-crypto RSA PKCS#1 v1.5 verification (with the SHA-256 of the content), per second.
        public var rawVerifyRate: Double
        /// Tally with the chain cached, per second.
        public var cachedRate: Double
        /// The median over rounds of cached rate ÷ raw rate.
        public var cachedToRawMedian: Double
        /// How many receipts the uncached run verified.
        public var uncachedCount: Int
        /// Tally validating the chain every time, per second.
        public var uncachedRate: Double
    }

    /// Distinct signed receipts and the authority that signed them.
    public struct Workload: Sendable {
        /// The receipts' PKCS#7 bytes (DER), each for another device and other transactions.
        public var receipts: [[UInt8]]
        /// Each receipt's signed content, the attribute set.
        public var contents: [[UInt8]]
        /// The authority that signed them: RSA-2048 keys, SHA-256, Apple's chain shape.
        public var authority: TestReceiptAuthority
    }

    /// Mints `count` sandbox receipts for `com.example`, created at `now`, each with
    /// `purchases` in-app purchases and bound to its own device.
    /// - Throws: when minting or signing fails.
    public static func workload(count: Int, purchases: Int = 3, now: Date) throws -> Workload {
        let authority = try TestReceiptAuthority(profile: .init(issuedAt: now))
        var receipts: [[UInt8]] = []
        var contents: [[UInt8]] = []
        receipts.reserveCapacity(count)
        contents.reserveCapacity(count)
        for index in 0..<count {
            var receipt = AppReceipt()
            receipt.environment = .sandbox
            receipt.bundleId = "com.example"
            receipt.applicationVersion = "42"
            receipt.receiptCreationDate = now
            receipt.originalPurchaseDate = now.addingTimeInterval(-86_400)
            receipt.originalApplicationVersion = "1.0"
            receipt.inAppPurchases = (0..<purchases).map { item in
                var purchase = InAppPurchaseReceipt()
                purchase.quantity = 1
                purchase.productId = "com.example.credits.10"
                purchase.transactionId = String(2_000_000_000_000_000 + index * purchases + item)
                purchase.originalTransactionId = purchase.transactionId
                purchase.purchaseDate = now.addingTimeInterval(Double(-60 * item))
                purchase.originalPurchaseDate = purchase.purchaseDate
                purchase.productType = .consumable
                return purchase
            }
            var builder = ReceiptBuilder(receipt)
            builder.bind(to: DeviceIdentifier(uuid: UUID()), opaqueValue: (0..<16).map { _ in UInt8.random(in: 0...255) })
            receipts.append(try authority.sign(builder))
            contents.append(builder.payload())
        }
        return Workload(receipts: receipts, contents: contents, authority: authority)
    }

    /// Runs the measurements over `workload`, raw and cached alternating in `rounds` slices so
    /// that a burst of load from another tenant hits both alike.
    /// - Parameters:
    ///   - workload: the receipts to verify.
    ///   - uncachedCount: how many of them the slower uncached run verifies.
    ///   - rounds: how many alternating slices.
    ///   - now: the verifier's clock.
    /// - Throws: ``VerifyBenchmark/Failure`` when any receipt does not verify.
    public static func run(
        _ workload: Workload, uncachedCount: Int, rounds: Int = 5, now: @escaping @Sendable () -> Date
    ) async throws -> Result {
        let clock = ContinuousClock()
        let key = workload.authority.signerKey.publicKey
        // The signature is the receipt's last element (DER): the very bytes the verifier checks.
        let signatureSize = key.keySizeInBits / 8
        let prepared = zip(workload.receipts, workload.contents).map { receipt, content in
            (content, _RSA.Signing.RSASignature(rawRepresentation: receipt.suffix(signatureSize)))
        }

        var configuration = ReceiptVerifier.Configuration(
            bundleID: .equals("com.example"), environments: [.sandbox], rootCertificates: [workload.authority.root])
        configuration.appVersion = .equals("42")
        let cached = ReceiptVerifier(configuration, now: now)
        _ = await cached.verify(workload.receipts[0])  // warm the cache

        var rawTime = Duration.zero
        var cachedTime = Duration.zero
        var ratios: [Double] = []
        let sliceSize = max(1, workload.receipts.count / max(1, rounds))
        for start in stride(from: 0, to: workload.receipts.count, by: sliceSize) {
            let range = start..<min(start + sliceSize, workload.receipts.count)
            var rawValid = 0
            let raw = clock.measure {
                for (content, signature) in prepared[range]
                where key.isValidSignature(signature, for: SHA256.hash(data: content), padding: .insecurePKCS1v1_5) {
                    rawValid += 1
                }
            }
            var cachedValid = 0
            let begin = clock.now
            for receipt in workload.receipts[range] where await cached.verify(receipt).value != nil { cachedValid += 1 }
            let tally = clock.now - begin
            guard rawValid == range.count, cachedValid == range.count else {
                throw VerifyBenchmark.Failure(
                    description: "\(range.count - rawValid) raw and \(range.count - cachedValid) cached receipt verifications failed")
            }
            rawTime += raw
            cachedTime += tally
            ratios.append(VerifyBenchmark.seconds(raw) / VerifyBenchmark.seconds(tally))
        }

        var uncachedConfiguration = configuration
        uncachedConfiguration.chainCacheCapacity = 0
        let uncached = ReceiptVerifier(uncachedConfiguration, now: now)
        let subset = workload.receipts.prefix(max(1, min(uncachedCount, workload.receipts.count)))
        var uncachedValid = 0
        let uncachedStart = clock.now
        for receipt in subset where await uncached.verify(receipt).value != nil { uncachedValid += 1 }
        let uncachedTime = clock.now - uncachedStart
        guard uncachedValid == subset.count else {
            throw VerifyBenchmark.Failure(description: "uncached run rejected \(subset.count - uncachedValid) receipts")
        }

        return Result(
            count: workload.receipts.count,
            meanSize: workload.receipts.reduce(0) { $0 + $1.count } / max(1, workload.receipts.count),
            rawVerifyRate: Double(workload.receipts.count) / VerifyBenchmark.seconds(rawTime),
            cachedRate: Double(workload.receipts.count) / VerifyBenchmark.seconds(cachedTime),
            cachedToRawMedian: ratios.sorted()[ratios.count / 2],
            uncachedCount: subset.count,
            uncachedRate: Double(subset.count) / VerifyBenchmark.seconds(uncachedTime))
    }
}
