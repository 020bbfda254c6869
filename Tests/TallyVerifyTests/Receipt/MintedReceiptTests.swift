import Foundation
import SwiftASN1
import TallyCore
import TallyTestSupport
import TallyTesting
import Testing
import X509

@testable import TallyVerify

/// Receipts minted in code, one thing wrong at a time.
@Suite struct MintedReceiptTests {
    typealias Options = TestReceiptAuthority.SigningOptions

    @Test func receiptVerifiesWithEveryFieldDecoded() async throws {
        let receipt = ReceiptFixtures.receipt()
        let bytes = try ReceiptFixtures.authority.sign(receipt)
        let verified = try await ReceiptFixtures.verifier(appVersion: .equals("42")).verify(bytes).get()
        #expect(verified.payload == ReceiptFixtures.decoded(receipt))
        #expect(verified.payload.rawEnvironment == "ProductionSandbox")
        #expect(verified.origin == .certificateChain)
        #expect(verified.validationTime == ReceiptFixtures.created)
        // The App Store's empty cancellation date reads as none.
        #expect(verified.payload.inAppPurchases.allSatisfy { $0.cancellationDate == nil })
    }

    @Test(arguments: ReceiptDigestAlgorithm.allCases, [Options.Encoding.der, .indefiniteLength(chunkSize: 1000), .indefiniteLength(chunkSize: 7)])
    func everyDigestAndEncodingVerifies(digest: ReceiptDigestAlgorithm, encoding: Options.Encoding) async throws {
        for signedAttributes in [false, true] {
            let options = Options(digest: digest, encoding: encoding, signedAttributes: signedAttributes)
            let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt(), options: options)
            let result = await ReceiptFixtures.verifier().verify(bytes)
            #expect(result.value?.payload.bundleID == "com.example", "\(options): \(String(describing: result.failure))")
        }
    }

    @Test func indefiniteLengthReceiptsLookLikeXcodes() throws {
        let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt(), options: Options(encoding: .indefiniteLength(chunkSize: 64)))
        #expect(Array(bytes.prefix(2)) == [0x30, 0x80])
        // The content sits in a constructed OCTET STRING of chunks: 24 80 04 40 …
        let marker: [UInt8] = [0x24, 0x80, 0x04, 0x40]
        #expect(bytes.indices.contains { Array(bytes[$0..<min($0 + 4, bytes.count)]) == marker })
    }

    @Test func chainSignedWithSHA1VerifiesLikeTheFirstWWDRIntermediate() async throws {
        let authority = try ReceiptFixtures.authority { $0.certificateDigest = .sha1 }
        #expect(authority.intermediate?.signatureAlgorithm == .sha1WithRSAEncryption)
        let bytes = try authority.sign(ReceiptFixtures.receipt(), options: Options(digest: .sha1))
        let verified = await ReceiptFixtures.verifier(roots: [authority.root]).verify(bytes)
        #expect(verified.value != nil, "\(String(describing: verified.failure))")
    }

    @Test func receiptCarryingTooManyCertificatesIsMalformed() async throws {
        // Indefinite lengths around the certificates field, so it can be replaced without
        // touching any other length: the same three certificates three times (9) or four times (12).
        let authority = ReceiptFixtures.authority
        let bytes = try authority.sign(ReceiptFixtures.receipt(), options: Options(encoding: .indefiniteLength(chunkSize: 1000)))
        let certificates = try authority.embeddedCertificates().map(TestCertificateAuthority.der).flatMap { $0 }
        let field = try #require(
            bytes.indices.first { index in
                index + 4 + certificates.count <= bytes.count && bytes[index] == 0xA0 && bytes[index + 1] == 0x82
                    && Array(bytes[(index + 4)..<(index + 4 + certificates.count)]) == certificates
            })
        func carrying(_ copies: Int) -> [UInt8] {
            let repeated = Array(repeating: certificates, count: copies).flatMap { $0 }
            return Array(bytes[..<field]) + [0xA0, 0x82, UInt8(repeated.count >> 8), UInt8(repeated.count & 0xFF)] + repeated
                + Array(bytes[(field + 4 + certificates.count)...])
        }
        #expect(await ReceiptFixtures.verifier().verify(carrying(3)).value != nil)
        let failure = await ReceiptFixtures.verifier().verify(carrying(4)).failure
        #expect(failure?.code == .malformedReceipt)
        #expect(failure?.reason.contains("12 certificates") == true)
    }

    @Test func receiptWithoutItsRootVerifiesAgainstTheConfiguredOne() async throws {
        let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt(), options: Options(embedsRoot: false))
        #expect(await ReceiptFixtures.verifier().verify(bytes).value != nil)
    }

    // MARK: - Trust

    @Test func receiptUnderAnotherRootIsUntrusted() async throws {
        let other = try ReceiptFixtures.authority(keys: ReceiptFixtures.otherKeys) { $0.organization = "Other" }
        let failure = await ReceiptFixtures.verifier(roots: [other.root]).verify(try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())).failure
        #expect(failure?.code == .untrustedChain)
    }

    @Test func receiptIsNotTrustedBecauseOfTheRootItCarries() async throws {
        // Same names as the configured chain, other keys, its own root embedded: only the configured root counts.
        let impostor = try ReceiptFixtures.authority(keys: ReceiptFixtures.otherKeys) { _ in }
        let failure = await ReceiptFixtures.verifier().verify(try impostor.sign(ReceiptFixtures.receipt())).failure
        #expect(failure?.code == .untrustedChain)
        #expect(
            await ReceiptFixtures.verifier(roots: [AppleRootCertificates.appleRootCA]).verify(try impostor.sign(ReceiptFixtures.receipt())).failure?.code
                == .untrustedChain)
    }

    @Test func receiptWithoutItsIntermediateIsUntrusted() async throws {
        let authority = ReceiptFixtures.authority
        let stripped = TestReceiptAuthority(root: authority.root, intermediate: nil, signer: authority.signer, signerKey: authority.signerKey)
        let failure = await ReceiptFixtures.verifier().verify(try stripped.sign(ReceiptFixtures.receipt())).failure
        #expect(failure?.code == .untrustedChain)
    }

    @Test(arguments: [nil, [1, 2, 840, 113635, 100, 6, 2, 2] as ASN1ObjectIdentifier])
    func intermediateWithoutTheWWDROIDFails(oid: ASN1ObjectIdentifier?) async throws {
        let authority = try ReceiptFixtures.authority { $0.intermediateOID = oid }
        let failure = await ReceiptFixtures.verifier(roots: [authority.root]).verify(try authority.sign(ReceiptFixtures.receipt())).failure
        #expect(failure?.code == .missingAppleOID)
        #expect(failure?.reason.contains("intermediate") == true)
    }

    @Test(arguments: [nil, [1, 2, 840, 113635, 100, 6, 11, 2] as ASN1ObjectIdentifier])
    func leafWithoutTheReceiptSigningOIDFails(oid: ASN1ObjectIdentifier?) async throws {
        let authority = try ReceiptFixtures.authority { $0.leafOID = oid }
        let failure = await ReceiptFixtures.verifier(roots: [authority.root]).verify(try authority.sign(ReceiptFixtures.receipt())).failure
        #expect(failure?.code == .missingAppleOID)
        #expect(failure?.reason.contains("leaf") == true)
    }

    // MARK: - Time

    @Test func receiptCreatedAfterTheLeafExpiredFails() async throws {
        let authority = try ReceiptFixtures.authority { $0.leafValidity = 30 * 86_400 }
        let receipt = ReceiptFixtures.receipt(created: authority.signer.notValidAfter.addingTimeInterval(1))
        let failure = await ReceiptFixtures.verifier(roots: [authority.root]).verify(try authority.sign(receipt)).failure
        #expect(failure?.code == .certificateExpired)
        #expect(failure?.reason.contains("leaf") == true)
    }

    @Test func receiptCreatedAtTheLeafsLastSecondVerifies() async throws {
        let authority = try ReceiptFixtures.authority { $0.leafValidity = 30 * 86_400 }
        let receipt = ReceiptFixtures.receipt(created: authority.signer.notValidAfter)
        #expect(await ReceiptFixtures.verifier(roots: [authority.root]).verify(try authority.sign(receipt)).value != nil)
    }

    @Test func receiptCreatedBeforeTheChainWasValidFails() async throws {
        let receipt = ReceiptFixtures.receipt(created: Fixtures.mintDate.addingTimeInterval(-2 * 86_400))
        let failure = await ReceiptFixtures.verifier().verify(try ReceiptFixtures.authority.sign(receipt)).failure
        #expect(failure?.code == .certificateNotYetValid)
    }

    @Test func receiptFromAnExpiredChainVerifiesAtItsCreationDate() async throws {
        // Every certificate expired long before "now"; the receipt was created while they were valid.
        let authority = try ReceiptFixtures.authority {
            $0.rootValidity = 90 * 86_400
            $0.intermediateValidity = 60 * 86_400
            $0.leafValidity = 30 * 86_400
        }
        let bytes = try authority.sign(ReceiptFixtures.receipt())
        let atCreation = await ReceiptFixtures.verifier(roots: [authority.root], now: ReceiptFixtures.farFuture).verify(bytes)
        #expect(atCreation.value?.validationTime == ReceiptFixtures.created)
        let atNow = await ReceiptFixtures.verifier(roots: [authority.root], now: ReceiptFixtures.farFuture) { $0.validationTime = .current }.verify(bytes)
        #expect(atNow.failure?.code == .certificateExpired)
    }

    @Test func receiptWithoutACreationDateIsHeldToNow() async throws {
        var receipt = ReceiptFixtures.receipt()
        receipt.receiptCreationDate = nil
        let bytes = try ReceiptFixtures.authority.sign(receipt)
        #expect(await ReceiptFixtures.verifier().verify(bytes).value?.validationTime == Fixtures.effectiveDate)
        #expect(await ReceiptFixtures.verifier(now: ReceiptFixtures.farFuture).verify(bytes).failure?.code == .certificateExpired)
    }

    // MARK: - Integrity

    @Test(arguments: [false, true])
    func changedContentFailsTheSignature(signedAttributes: Bool) async throws {
        var bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt(), options: Options(signedAttributes: signedAttributes))
        let bundle = Array("com.example".utf8)
        let at = try #require(bytes.indices.first { Array(bytes[$0..<min($0 + bundle.count, bytes.count)]) == bundle })
        bytes[at + 4] = UInt8(ascii: "X")  // com.eXample
        let failure = await ReceiptFixtures.verifier(bundleID: .any).verify(bytes).failure
        #expect(failure?.code == .badSignature)
        if signedAttributes { #expect(failure?.reason.contains("message digest") == true) }
    }

    @Test func changedSignatureFails() async throws {
        var bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())
        bytes[bytes.count - 1] ^= 0x01  // the signature is the last field
        #expect(await ReceiptFixtures.verifier().verify(bytes).failure?.code == .badSignature)
    }

    @Test func contentSignedByTheIntermediateKeyInsteadOfTheLeafFails() async throws {
        let authority = ReceiptFixtures.authority
        let forged = TestReceiptAuthority(
            root: authority.root, intermediate: authority.intermediate, signer: authority.signer, signerKey: ReceiptFixtures.keys.intermediate)
        #expect(await ReceiptFixtures.verifier().verify(try forged.sign(ReceiptFixtures.receipt())).failure?.code == .badSignature)
    }

    @Test func digestOtherThanSHA1OrSHA256IsUnsupported() async throws {
        var bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())
        // SHA-256's OID 2.16.840.1.101.3.4.2.1 becomes SHA-384's …2.2 wherever the signer names it.
        let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
        for index in bytes.indices.dropLast(sha256.count) where Array(bytes[index..<(index + sha256.count)]) == sha256 {
            bytes[index + sha256.count - 1] = 0x02
        }
        #expect(await ReceiptFixtures.verifier().verify(bytes).failure?.code == .unsupportedAlgorithm)
    }

    @Test func verifiedChainIsValidatedOnceForManyReceipts() async throws {
        let verifier = ReceiptFixtures.verifier()
        for index in 0..<3 {
            var receipt = ReceiptFixtures.receipt()
            receipt.inAppPurchases[0].transactionID = "100000000000010\(index)"
            #expect(await verifier.verify(try ReceiptFixtures.authority.sign(receipt)).value != nil)
        }
        #expect(verifier.chainValidations == 1)
        #expect(verifier.cachedChainCount == 1)
    }

    // MARK: - Claims

    @Test func receiptForAnotherAppIsRefused() async throws {
        let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())
        #expect(await ReceiptFixtures.verifier(bundleID: .equals("com.example.other")).verify(bytes).failure?.code == .wrongBundleID)
        #expect(await ReceiptFixtures.verifier(bundleID: .any).verify(bytes).value != nil)
    }

    @Test func receiptForAnotherAppVersionIsRefusedWhenTheVersionIsChecked() async throws {
        let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())
        let failure = await ReceiptFixtures.verifier(appVersion: .equals("43")).verify(bytes).failure
        #expect(failure?.code == .wrongAppVersion)
        #expect(await ReceiptFixtures.verifier(appVersion: .equals("42")).verify(bytes).value != nil)
        #expect(await ReceiptFixtures.verifier(appVersion: .any).verify(bytes).value != nil)
    }

    @Test func environmentMustBeAccepted() async throws {
        let production = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt(environment: .production))
        #expect(await ReceiptFixtures.verifier(environments: [.sandbox]).verify(production).failure?.code == .wrongEnvironment)
        #expect(await ReceiptFixtures.verifier(environments: [.production]).verify(production).value?.payload.environment == .production)
        let sandbox = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())
        #expect(await ReceiptFixtures.verifier(environments: [.production]).verify(sandbox).failure?.code == .wrongEnvironment)
    }

    @Test func receiptWithoutEnvironmentIsRefusedUnlessAllowed() async throws {
        var receipt = ReceiptFixtures.receipt()
        receipt.environment = nil
        let bytes = try ReceiptFixtures.authority.sign(receipt)
        #expect(await ReceiptFixtures.verifier().verify(bytes).failure?.code == .wrongEnvironment)
        #expect(await ReceiptFixtures.verifier { $0.acceptsMissingEnvironment = true }.verify(bytes).value != nil)
    }

    @Test func deviceHashMatchesOnlyTheDeviceItWasIssuedTo() async throws {
        let device = DeviceIdentifier(uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        var builder = ReceiptBuilder(ReceiptFixtures.receipt())
        builder.bind(to: device, opaqueValue: [0x4F, 0x9A, 0x01, 0x77, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xA0, 0xB0, 0xC0])
        let bytes = try ReceiptFixtures.authority.sign(builder)
        let verifier = ReceiptFixtures.verifier()
        #expect(await verifier.verify(bytes, deviceIdentifier: device).value != nil)
        #expect(await verifier.verify(bytes, deviceIdentifier: DeviceIdentifier(hex: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")).value != nil)
        let other = DeviceIdentifier(uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E60")!)
        #expect(await verifier.verify(bytes, deviceIdentifier: other).failure?.code == .deviceHashMismatch)
        // Without a device identifier there is nothing to compare with.
        #expect(await verifier.verify(bytes).value != nil)
    }

    @Test func receiptWithoutAHashFailsTheDeviceCheck() async throws {
        let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())
        let failure = await ReceiptFixtures.verifier().verify(bytes, deviceIdentifier: DeviceIdentifier(bytes: [1, 2, 3, 4, 5, 6])).failure
        #expect(failure?.code == .deviceHashMismatch)
    }

    // MARK: - Xcode

    @Test func xcodeReceiptIsRefusedWithoutXcodesCertificate() async throws {
        let bytes = try ReceiptFixtures.xcode.sign(ReceiptFixtures.receipt(environment: .xcode), options: Options(encoding: .indefiniteLength(chunkSize: 1000)))
        for roots in [[ReceiptFixtures.authority.root], [AppleRootCertificates.appleRootCA]] {
            let failure = await ReceiptFixtures.verifier(roots: roots, environments: [.xcode]).verify(bytes).failure
            #expect(failure?.code == .untrustedChain)
            #expect(failure?.reason.contains("Xcode") == true)
        }
    }

    @Test func xcodeReceiptVerifiesWithXcodesCertificateAndStillChecksItsSignature() async throws {
        var bytes = try ReceiptFixtures.xcode.sign(ReceiptFixtures.receipt(environment: .xcode), options: Options(encoding: .indefiniteLength(chunkSize: 1000)))
        let verifier = ReceiptFixtures.verifier(roots: [AppleRootCertificates.appleRootCA, ReceiptFixtures.xcode.root], environments: [.xcode])
        let verified = try await verifier.verify(bytes).get()
        #expect(verified.origin == .xcodeSelfSigned)
        #expect(verified.payload.rawEnvironment == "Xcode")
        // Trusting the certificate does not trust whatever it carries.
        let bundle = Array("com.example".utf8)
        let at = try #require(bytes.indices.first { Array(bytes[$0..<min($0 + bundle.count, bytes.count)]) == bundle })
        bytes[at] = UInt8(ascii: "C")
        #expect(await verifier.verify(bytes).failure?.code == .badSignature)
    }

    @Test func xcodeReceiptNeedsTheXcodeEnvironmentAccepted() async throws {
        let bytes = try ReceiptFixtures.xcode.sign(ReceiptFixtures.receipt(environment: .xcode))
        let failure = await ReceiptFixtures.verifier(roots: [ReceiptFixtures.xcode.root], environments: [.sandbox]).verify(bytes).failure
        #expect(failure?.code == .wrongEnvironment)
    }

    @Test func xcodesCertificateVouchesOnlyForXcodeReceipts() async throws {
        let bytes = try ReceiptFixtures.xcode.sign(ReceiptFixtures.receipt(environment: .production))
        let verifier = ReceiptFixtures.verifier(roots: [ReceiptFixtures.xcode.root], environments: [.production, .xcode])
        #expect(await verifier.verify(bytes).failure?.code == .untrustedChain)
    }

    // MARK: - Payload

    @Test func unknownAttributesAreSkipped() async throws {
        let receipt = ReceiptFixtures.receipt()
        var builder = ReceiptBuilder(receipt)
        builder.extraAttributes = [
            .utf8(type: 9999, "future field"), .integer(type: 25, 3), ReceiptAttribute(type: 6, value: [0xDE, 0xAD]),
            ReceiptAttribute(type: 7, version: 2, value: [0x31, 0x00]), ReceiptAttribute(type: 13, value: []),
        ]
        builder.extraInAppAttributes = [.utf8(type: 1799, "future in-app field"), .integer(type: 1722, 0), .ia5(type: 1714, "")]
        let verified = try await ReceiptFixtures.verifier().verify(try ReceiptFixtures.authority.sign(builder)).get()
        #expect(verified.payload == ReceiptFixtures.decoded(receipt))
    }

    @Test func datesWithXcodesOffsetsReadAsTheSameInstant() async throws {
        var builder = ReceiptBuilder(ReceiptFixtures.receipt())
        builder.dateOffset = 3600
        let verified = try await ReceiptFixtures.verifier().verify(try ReceiptFixtures.authority.sign(builder)).get()
        #expect(verified.payload.receiptCreationDate == ReceiptFixtures.created)
        #expect(verified.payload.inAppPurchases[1].expiresDate == ReceiptFixtures.receipt().inAppPurchases[1].expiresDate)
    }

    @Test(arguments: [
        ReceiptAttribute.integer(type: ReceiptAttributeType.bundleID, 7),
        ReceiptAttribute.ia5(type: ReceiptAttributeType.creationDate, "yesterday"),
        ReceiptAttribute(type: ReceiptAttributeType.applicationVersion, value: [0x0C, 0x02, 0xC3, 0x28]),
        ReceiptAttribute(type: ReceiptAttributeType.appAppleID, value: [0x02, 0x09, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
        ReceiptAttribute(type: ReceiptAttributeType.inAppPurchase, value: [0x30, 0x00]),
    ])
    func knownAttributeOfTheWrongShapeIsNotDecodable(attribute: ReceiptAttribute) async throws {
        var receipt = ReceiptFixtures.receipt()
        // Leave the modelled field out so the bent attribute is the only one of its type.
        switch attribute.type {
        case ReceiptAttributeType.bundleID: receipt.bundleID = nil
        case ReceiptAttributeType.creationDate: receipt.receiptCreationDate = nil
        case ReceiptAttributeType.applicationVersion: receipt.applicationVersion = nil
        case ReceiptAttributeType.appAppleID: receipt.appAppleID = nil
        default: break
        }
        var builder = ReceiptBuilder(receipt)
        builder.extraAttributes = [attribute]
        let failure = await ReceiptFixtures.verifier(bundleID: .any).verify(try ReceiptFixtures.authority.sign(builder)).failure
        #expect(failure?.code == .payloadNotDecodable)
        #expect(failure?.reason.contains("\(attribute.type)") == true)
    }

    @Test func duplicatedFieldIsNotDecodable() async throws {
        var builder = ReceiptBuilder(ReceiptFixtures.receipt())
        builder.extraAttributes = [.utf8(type: ReceiptAttributeType.bundleID, "com.example.other")]
        let failure = await ReceiptFixtures.verifier(bundleID: .any).verify(try ReceiptFixtures.authority.sign(builder)).failure
        #expect(failure?.code == .payloadNotDecodable)
        #expect(failure?.reason.contains("twice") == true)
    }

    @Test func signedContentThatIsNotAnAttributeSetIsNotDecodable() async throws {
        let bytes = try ReceiptFixtures.authority.sign(payload: Array("{\"bundle_id\":\"com.example\"}".utf8))
        #expect(await ReceiptFixtures.verifier().verify(bytes).failure?.code == .payloadNotDecodable)
    }

    // MARK: - Input

    @Test func base64WithLineBreaksVerifies() async throws {
        let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())
        let base64 = Data(bytes).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]) + "\n"
        #expect(await ReceiptFixtures.verifier().verify(base64: base64).value != nil)
        #expect(await ReceiptFixtures.verifier().verify(base64: "not base64!").failure?.code == .malformedReceipt)
        #expect(await ReceiptFixtures.verifier().verify(base64: "").failure?.code == .malformedReceipt)
    }

    @Test func receiptIsReadAsBytesOrAsBase64() async throws {
        let verifier = ReceiptFixtures.verifier()
        for encoding in [Options.Encoding.der, .indefiniteLength(chunkSize: 100)] {
            let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt(), options: Options(encoding: encoding))
            #expect(await verifier.verify(bytesOrBase64: bytes).value != nil)
            #expect(await verifier.verify(bytesOrBase64: Array((Data(bytes).base64EncodedString() + "\r\n").utf8)).value != nil)
        }
        #expect(await verifier.verify(bytesOrBase64: Array("NOT A RECEIPT".utf8)).failure?.code == .malformedReceipt)
    }

    @Test func receiptOverTheLimitIsNotParsed() async throws {
        let bytes = try ReceiptFixtures.authority.sign(ReceiptFixtures.receipt())
        let verifier = ReceiptFixtures.verifier { $0.maximumLength = bytes.count - 1 }
        #expect(await verifier.verify(bytes).failure?.code == .inputTooLarge)
        #expect(await verifier.verify(base64: String(repeating: "A", count: 4 * bytes.count)).failure?.code == .inputTooLarge)
    }

    @Test(arguments: [Options.Encoding.der, .indefiniteLength(chunkSize: 16)])
    func everyTruncationIsMalformed(encoding: Options.Encoding) async throws {
        var receipt = AppReceipt()
        receipt.bundleID = "com.example"
        receipt.environment = .sandbox
        receipt.receiptCreationDate = ReceiptFixtures.created
        let bytes = try ReceiptFixtures.authority.sign(receipt, options: Options(encoding: encoding, embedsRoot: false))
        let verifier = ReceiptFixtures.verifier()
        #expect(await verifier.verify(bytes).value != nil)
        var codes: [VerificationFailure.Code: Int] = [:]
        for length in 0..<bytes.count {
            let failure = await verifier.verify(Array(bytes[..<length])).failure
            codes[failure?.code ?? VerificationFailure.Code(rawValue: "valid"), default: 0] += 1
        }
        #expect(codes == [.malformedReceipt: bytes.count])
    }

    @Test func bytesThatAreNotAReceiptAreMalformed() async throws {
        let verifier = ReceiptFixtures.verifier()
        for input: [UInt8] in [[], Array("NOT A RECEIPT".utf8), [0x30, 0x00], [0x30, 0x80, 0x00, 0x00], [0x04, 0x01, 0x00]] {
            #expect(await verifier.verify(input).failure?.code == .malformedReceipt)
        }
        let transaction = try TestCertificateAuthority(profile: .init(issuedAt: Fixtures.mintDate)).sign(Fixtures.transaction())
        #expect(await verifier.verify(base64: transaction).failure?.code == .malformedReceipt)
    }
}
