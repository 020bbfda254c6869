import Crypto
import Foundation
import TallyCore
import TallyTestSupport
import Testing
import X509

@testable import TallyVerify

/// Real receipts (`../shared/vectors/receipts`): Production, Sandbox and Xcode receipts from
/// 2015 to 2025 on every Apple chain since the first WWDR intermediate, and receipts that must
/// be refused. Each gets the verdict `MANIFEST.tsv` gives it, with the file it names as the
/// only root, at the receipt's creation date.
@Suite(.enabled(if: Vectors.available, Vectors.skipNote))
struct ReceiptVectorTests {
    static let rows: [[String: String]] = ((try? Vectors.manifest("receipts/MANIFEST.tsv")) ?? [])
        .filter { !($0["expected"] ?? "").hasPrefix("n/a") }

    /// What the manifest's reasons mean, as codes.
    static let codes: [String: VerificationFailure.Code] = [
        "not a PKCS#7 receipt (format)": .malformedReceipt,
        "intermediate lacks WWDR marker OID 1.2.840.113635.100.6.2.1": .missingAppleOID,
        "leaf lacks receipt-signing marker OID 1.2.840.113635.100.6.11.1": .missingAppleOID,
        "chain expired at creation date": .certificateExpired,
        "chain does not lead to the trust anchor": .untrustedChain,
    ]

    @Test func manifestListsEveryReceipt() {
        #expect(Self.rows.count == 23)
        #expect(Self.rows.filter { $0["expected"] == "valid_at_creation" }.count == 10)
    }

    @Test(arguments: rows.map { $0["file"] ?? "" })
    func receiptGetsItsExpectedVerdict(file: String) async throws {
        let row = try #require(Self.rows.first { $0["file"] == file })
        let anchor = try Self.anchor(row)
        let verifier = Self.verifier(roots: try CertificateLoading.certificates(from: Array(Vectors.data("receipts/\(anchor)"))))
        let result = try await Self.verify(row, with: verifier)
        let expected = row["expected"] ?? ""

        if expected == "valid_at_creation" {
            let verified = try #require(result.value, "\(file): \(String(describing: result.failure))")
            let receipt = verified.payload
            #expect(receipt.bundleID == row["bundle_id"])
            #expect(receipt.rawEnvironment == row["environment"])
            #expect(receipt.inAppPurchases.count == Int(row["in_app_count"] ?? ""))
            let created = try #require(ISO8601DateFormatter().date(from: row["receipt_creation_date"] ?? ""))
            #expect(receipt.receiptCreationDate == created)
            #expect(verified.validationTime == created)
            #expect(verified.origin == (receipt.environment == .xcode ? .xcodeSelfSigned : .certificateChain))
            #expect(receipt.inAppPurchases.allSatisfy { $0.transactionID != nil && $0.productID != nil && $0.purchaseDate != nil })
        } else {
            let reasons = expected.dropFirst("invalid: ".count).components(separatedBy: " | ")
            let acceptable = Set(try reasons.map { reason in try #require(Self.codes[reason], "no code for manifest reason '\(reason)'") })
            let failure = try #require(result.failure, "\(file) verified, expected \(expected)")
            #expect(acceptable.contains(failure.code), "\(file): \(failure)")
        }
    }

    /// Every Apple-signed receipt here is expired today: checked at now, each one fails.
    @Test(
        arguments: rows.filter { ($0["notes"] ?? "").contains("fails if validated at now") && $0["expected"] == "valid_at_creation" }.map { $0["file"] ?? "" })
    func expiredChainFailsWhenCheckedAtNow(file: String) async throws {
        let row = try #require(Self.rows.first { $0["file"] == file })
        let roots = try CertificateLoading.certificates(from: Array(Vectors.data("receipts/\(try Self.anchor(row))")))
        let verifier = Self.verifier(roots: roots) { $0.validationTime = .current }
        #expect(try await Self.verify(row, with: verifier).failure?.code == .certificateExpired)
    }

    /// Xcode's receipts are refused when only Apple's root is trusted.
    @Test(arguments: rows.filter { $0["environment"] == "Xcode" }.map { $0["file"] ?? "" })
    func xcodeReceiptIsRefusedUnderAppleRoot(file: String) async throws {
        let row = try #require(Self.rows.first { $0["file"] == file })
        let failure = try await Self.verify(row, with: Self.verifier(roots: [AppleRootCertificates.appleRootCA])).failure
        #expect(failure?.code == .untrustedChain)
    }

    /// Apple-signed receipts verify against the bundled root, which is the manifest's anchor.
    @Test func appleSignedReceiptsVerifyAgainstTheBundledRoot() async throws {
        let apple = Self.rows.filter { $0["expected"] == "valid_at_creation" && ($0["notes"] ?? "").hasPrefix("anchor=AppleIncRootCertificate.cer") }
        #expect(apple.count == 7)
        let verifier = Self.verifier(roots: [AppleRootCertificates.appleRootCA])
        for row in apple {
            let result = try await Self.verify(row, with: verifier)
            #expect(result.value != nil, "\(row["file"] ?? ""): \(String(describing: result.failure))")
        }
    }

    @Test func bundledAppleRootIsApplesRSARoot() throws {
        let fingerprint = SHA256.hash(data: AppleRootCertificates.appleRootCADER).map { String(format: "%02X", $0) }.joined()
        #expect(fingerprint == "B0B1730ECBC7FF4505142C49F1295E6EDA6BCAED7E2C68C5BE91B5A11001F024")
        #expect(AppleRootCertificates.appleRootCADER == Array(try Vectors.data("receipts/AppleIncRootCertificate.cer")))
        #expect(AppleRootCertificates.appleRootCA.subject.description.contains("CN=Apple Root CA"))
    }

    /// The device hash computed as Tally computes it matches a receipt made with a known GUID.
    @Test func deviceHashMatchesAnOutsideReceiptMadeWithAKnownGUID() throws {
        let container = try ReceiptContainer(Array(Vectors.data("receipts/receipt.der")))
        let decoded = try ReceiptPayloadDecoder.decode(container.content)
        let guid = try #require(DeviceIdentifier(hex: "112233445566778899aabbccddeeff00"))
        var hasher = Insecure.SHA1()
        hasher.update(data: guid.bytes)
        hasher.update(data: try #require(decoded.receipt.opaqueValue))
        hasher.update(data: try #require(decoded.bundleIDField))
        #expect(Data(hasher.finalize()) == decoded.receipt.sha1Hash)
    }

    /// A real receipt with every in-app field: product types, web order line items, offsets.
    @Test func sandboxReceiptDecodesItsSubscriptions() async throws {
        let row = try #require(Self.rows.first { $0["file"] == "receipt-sandbox-g5" })
        let roots = [AppleRootCertificates.appleRootCA]
        let receipt = try await Self.verify(row, with: Self.verifier(roots: roots)).get().payload
        #expect(receipt.environment == .sandbox)
        #expect(receipt.originalApplicationVersion == "1.0")
        #expect(receipt.sha1Hash?.count == 20)
        let purchases = receipt.inAppPurchases
        #expect(purchases.allSatisfy { $0.productType == .autoRenewableSubscription && $0.expiresDate != nil })
        #expect(purchases.allSatisfy { $0.webOrderLineItemID != nil && $0.cancellationDate == nil && $0.quantity == 1 })
        #expect(Set(purchases.map(\.originalTransactionID)).count == 1)
    }

    @Test func xcodeReceiptWithOffsetDateReadsInUTC() async throws {
        let row = try #require(Self.rows.first { $0["file"] == "receipt-xcode" })
        let roots = try CertificateLoading.certificates(from: Array(Vectors.data("receipts/StoreKitTestCertificate.cer")))
        let receipt = try await Self.verify(row, with: Self.verifier(roots: roots)).get().payload
        // 2020-07-22T18:33:15+0100
        #expect(receipt.receiptCreationDate == Date(timeIntervalSince1970: 1_595_439_195))
        #expect(receipt.expirationDate != nil)
    }

    // MARK: - Helpers

    static func anchor(_ row: [String: String]) throws -> String {
        let notes = row["notes"] ?? ""
        guard notes.hasPrefix("anchor="), let end = notes.firstIndex(of: ";") else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return String(notes[notes.index(notes.startIndex, offsetBy: 7)..<end])
    }

    /// No bundle identifier or environment check, as the manifest's verdicts assume; now is
    /// 2100, so only validation at the creation date can succeed.
    static func verifier(roots: [Certificate], configure: (inout ReceiptVerifier.Configuration) -> Void = { _ in }) -> ReceiptVerifier {
        var configuration = ReceiptVerifier.Configuration(bundleID: .any, environments: [.production, .sandbox, .xcode], rootCertificates: roots)
        configuration.acceptsMissingEnvironment = true
        configure(&configuration)
        return ReceiptVerifier(configuration, now: { Date(timeIntervalSince1970: 4_102_444_800) })
    }

    static func verify(_ row: [String: String], with verifier: ReceiptVerifier) async throws -> TallyVerify.VerificationResult<VerifiedReceipt> {
        let path = "receipts/\(row["file"] ?? "")"
        switch row["encoding"] {
        case "base64": return await verifier.verify(base64: try Vectors.text(path))
        default: return await verifier.verify(try Vectors.data(path))
        }
    }
}
