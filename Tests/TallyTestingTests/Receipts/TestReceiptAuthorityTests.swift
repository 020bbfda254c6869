import Foundation
import SwiftASN1
import TallyCore
import TallyTesting
import TallyVerify
import Testing
import X509

/// The receipt authority mints chains and receipts shaped like Apple's, which the verifier
/// accepts only when its root is trusted, and which independent parsers read as what they claim.
@Suite struct TestReceiptAuthorityTests {
    static let mintDate = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01
    static let keys: TestReceiptAuthority.Keys = try! TestReceiptAuthority.Keys.generate()
    static let authority: TestReceiptAuthority = try! TestReceiptAuthority(profile: .init(issuedAt: mintDate), keys: keys)

    static func receipt() -> AppReceipt {
        var receipt = AppReceipt()
        receipt.environment = .sandbox
        receipt.bundleID = "com.example"
        receipt.applicationVersion = "7"
        receipt.receiptCreationDate = mintDate.addingTimeInterval(3600)
        var purchase = InAppPurchaseReceipt()
        purchase.quantity = 1
        purchase.productID = "com.example.credits"
        purchase.transactionID = "2000000000000001"
        purchase.originalTransactionID = "2000000000000001"
        purchase.purchaseDate = mintDate.addingTimeInterval(1800)
        purchase.productType = .consumable
        receipt.inAppPurchases = [purchase]
        return receipt
    }

    static func verifier(roots: [Certificate], environments: Set<AppStoreEnvironment> = [.sandbox]) -> ReceiptVerifier {
        ReceiptVerifier(.init(bundleID: .equals("com.example"), environments: environments, rootCertificates: roots), now: { mintDate })
    }

    @Test func chainHasApplesShape() throws {
        let authority = Self.authority
        let intermediate = try #require(authority.intermediate)
        #expect(intermediate.extensions[oid: AppleOIDs.intermediateMarker] != nil)
        #expect(authority.signer.extensions[oid: AppleOIDs.receiptSigningMarker] != nil)
        #expect(authority.signer.extensions[oid: AppleOIDs.intermediateMarker] == nil)
        #expect(authority.root.publicKey.isValidSignature(intermediate.signature, for: intermediate))
        #expect(intermediate.publicKey.isValidSignature(authority.signer.signature, for: authority.signer))
        #expect(authority.signer.signatureAlgorithm == .sha256WithRSAEncryption)
        #expect(try authority.signer.extensions.basicConstraints == .notCertificateAuthority)
        #expect(authority.embeddedCertificates() == [authority.signer, intermediate, authority.root])
    }

    @Test func profileChangesOneThingAtATime() throws {
        var profile = TestReceiptAuthority.Profile(issuedAt: Self.mintDate)
        profile.intermediateOID = nil
        profile.leafOID = nil
        profile.certificateDigest = .sha1
        profile.leafValidity = 86_400
        let authority = try TestReceiptAuthority(profile: profile, keys: Self.keys)
        #expect(authority.intermediate?.extensions[oid: AppleOIDs.intermediateMarker] == nil)
        #expect(authority.signer.extensions[oid: AppleOIDs.receiptSigningMarker] == nil)
        #expect(authority.root.signatureAlgorithm == .sha1WithRSAEncryption)
        #expect(authority.signer.notValidAfter == Self.mintDate)  // a day from a day before
    }

    @Test func receiptsVerifyOnlyWhenTheRootIsTrusted() async throws {
        let bytes = try Self.authority.sign(Self.receipt())
        let verified = try await Self.verifier(roots: [Self.authority.root]).verify(bytes).get()
        #expect(verified.payload.inAppPurchases.first?.transactionID == "2000000000000001")
        #expect(verified.payload.inAppPurchases.first?.productType == .consumable)
        #expect(await Self.verifier(roots: [AppleRootCertificates.appleRootCA]).verify(bytes).failure?.code == .untrustedChain)
    }

    @Test func derReceiptIsStrictDERAndBERReceiptIsNot() throws {
        let der = try Self.authority.sign(Self.receipt())
        #expect(throws: Never.self) { try DER.parse(der) }
        let ber = try Self.authority.sign(Self.receipt(), options: .init(encoding: .indefiniteLength(chunkSize: 32)))
        #expect(Array(ber.prefix(2)) == [0x30, 0x80])
        #expect(throws: (any Error).self) { try DER.parse(ber) }
        #expect(throws: Never.self) { try BER.parse(ber) }
        // The payload is the same, only the envelope differs.
        let payload = ReceiptBuilder(Self.receipt()).payload()
        #expect(try DER.parse(payload).identifier == .set)
    }

    @Test(arguments: [TestReceiptAuthority.SigningOptions.Encoding.der, .indefiniteLength(chunkSize: 10)])
    func everySigningOptionVerifies(encoding: TestReceiptAuthority.SigningOptions.Encoding) async throws {
        for digest in ReceiptDigestAlgorithm.allCases {
            for signedAttributes in [false, true] {
                for embedsRoot in [false, true] {
                    let options = TestReceiptAuthority.SigningOptions(
                        digest: digest, encoding: encoding, signedAttributes: signedAttributes, embedsRoot: embedsRoot)
                    let result = await Self.verifier(roots: [Self.authority.root]).verify(try Self.authority.sign(Self.receipt(), options: options))
                    #expect(result.value != nil, "\(options): \(String(describing: result.failure))")
                }
            }
        }
    }

    @Test func xcodeAuthorityIsOneSelfSignedStoreKitCertificate() async throws {
        let xcode = try TestReceiptAuthority.xcode(issuedAt: Self.mintDate, key: Self.keys.root)
        #expect(xcode.intermediate == nil)
        #expect(xcode.signer == xcode.root)
        #expect(xcode.root.subject == xcode.root.issuer)
        #expect(xcode.root.subject.description == "CN=StoreKit")
        #expect(xcode.embeddedCertificates().count == 1)
        var receipt = Self.receipt()
        receipt.environment = .xcode
        let bytes = try xcode.sign(receipt, options: .init(encoding: .indefiniteLength(chunkSize: 1000)))
        #expect(await Self.verifier(roots: [xcode.root], environments: [.xcode]).verify(bytes).value?.origin == .xcodeSelfSigned)
        #expect(await Self.verifier(roots: [Self.authority.root], environments: [.xcode]).verify(bytes).failure?.code == .untrustedChain)
    }

    @Test func builderBindsTheReceiptToADevice() async throws {
        let device = DeviceIdentifier(uuid: UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!)
        var builder = ReceiptBuilder(Self.receipt())
        builder.bind(to: device, opaqueValue: Array(0..<16))
        #expect(builder.receipt.sha1Hash?.count == 20)
        let bytes = try Self.authority.sign(builder)
        let verifier = Self.verifier(roots: [Self.authority.root])
        #expect(await verifier.verify(bytes, deviceIdentifier: device).value != nil)
        #expect(await verifier.verify(bytes, deviceIdentifier: DeviceIdentifier(bytes: Array(repeating: 0, count: 16))).failure?.code == .deviceHashMismatch)
    }

    @Test(arguments: [
        (0.0, 0, "1970-01-01T00:00:00Z"),
        (1_595_439_195, 0, "2020-07-22T17:33:15Z"),
        (1_595_439_195, 3600, "2020-07-22T18:33:15+0100"),
        (1_595_439_195, -5400, "2020-07-22T16:03:15-0130"),
        (1_709_164_799.9, 0, "2024-02-28T23:59:59Z"),
        (64_092_211_200, 0, "4001-01-01T00:00:00Z"),
        (-1, 0, "1969-12-31T23:59:59Z"),
    ])
    func datesAreWrittenAsReceiptsWriteThem(seconds: Double, offset: Int, text: String) {
        #expect(ReceiptBuilder.rfc3339(Date(timeIntervalSince1970: seconds), offset: offset) == text)
    }

    @Test func unknownAttributesAreWrittenAsGiven() throws {
        var builder = ReceiptBuilder(Self.receipt())
        builder.extraAttributes = [ReceiptAttribute(type: 9999, version: 3, value: [0xDE, 0xAD])]
        let payload = builder.payload()
        // SEQUENCE { INTEGER 9999, INTEGER 3, OCTET STRING DE AD }
        let attribute: [UInt8] = [0x30, 0x0B, 0x02, 0x02, 0x27, 0x0F, 0x02, 0x01, 0x03, 0x04, 0x02, 0xDE, 0xAD]
        #expect(payload.indices.contains { Array(payload[$0..<min($0 + attribute.count, payload.count)]) == attribute })
    }
}
