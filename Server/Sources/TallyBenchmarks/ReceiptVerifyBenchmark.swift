import Crypto
public import Foundation
import TallyCore
public import TallyTesting
import TallyVerify
import _CryptoExtras

/// Measures app receipt verification on one core: `ReceiptVerifier` with its chain cache and
/// without it, against swift-crypto's raw RSA verification of the same signatures, in the same
/// process, so the figures can be compared as ratios on a noisy machine.
public enum ReceiptVerifyBenchmark: Sendable {
    /// What one run measured.
    public struct Result: Sendable {
        /// The rates, the raw one swift-crypto's RSA PKCS#1 v1.5 verification (with the SHA-256
        /// of the content).
        public var rates: VerificationRates
        /// The receipts' mean size in bytes.
        public var meanSize: Int
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
            receipt.bundleID = "com.example"
            receipt.applicationVersion = "42"
            receipt.receiptCreationDate = now
            receipt.originalPurchaseDate = now.addingTimeInterval(-86_400)
            receipt.originalApplicationVersion = "1.0"
            receipt.inAppPurchases = (0..<purchases).map { item in
                var purchase = InAppPurchaseReceipt()
                purchase.quantity = 1
                purchase.productID = "com.example.credits.10"
                purchase.transactionID = String(2_000_000_000_000_000 + index * purchases + item)
                purchase.originalTransactionID = purchase.transactionID
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

    /// Runs the measurements over `workload`, raw and cached alternating in `rounds` slices (see
    /// ``VerificationRates``).
    /// - Parameters:
    ///   - workload: the receipts to verify.
    ///   - uncachedCount: how many of them the slower uncached run verifies.
    ///   - rounds: how many alternating slices.
    ///   - now: the verifier's clock.
    /// - Returns: the rates measured and the receipts' mean size.
    /// - Throws: ``VerifyBenchmark/Failure`` when any receipt does not verify.
    public static func run(
        _ workload: Workload, uncachedCount: Int, rounds: Int = 5, now: @escaping @Sendable () -> Date
    ) async throws -> Result {
        let key = workload.authority.signerKey.publicKey
        // The signature is the receipt's last element (DER): the very bytes the verifier checks.
        let signatureSize = key.keySizeInBits / 8
        let items = zip(workload.receipts, workload.contents).map { receipt, content in
            (input: receipt, prepared: (content, _RSA.Signing.RSASignature(rawRepresentation: receipt.suffix(signatureSize))))
        }

        var configuration = ReceiptVerifier.Configuration(
            bundleID: .equals("com.example"), environments: [.sandbox], rootCertificates: [workload.authority.root])
        configuration.appVersion = .equals("42")
        let cached = ReceiptVerifier(configuration, now: now)
        var uncachedConfiguration = configuration
        uncachedConfiguration.chainCacheCapacity = 0
        let uncached = ReceiptVerifier(uncachedConfiguration, now: now)
        let rates = try await VerificationRates.measure(
            items, rounds: rounds, uncachedCount: uncachedCount,
            wording: .init(verifications: "receipt verifications", items: "receipts"),
            raw: { content, signature in
                key.isValidSignature(signature, for: SHA256.hash(data: content), padding: .insecurePKCS1v1_5)
            },
            cached: { await cached.verify($0).value != nil },
            uncached: { await uncached.verify($0).value != nil })
        return Result(rates: rates, meanSize: workload.receipts.reduce(0) { $0 + $1.count } / max(1, workload.receipts.count))
    }
}
