import Crypto
import Foundation
import SwiftASN1
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing
import X509

/// Every way a chain can be wrong, minted in code one change at a time.
@Suite struct MintedChainTests {
    @Test func wellFormedMintedChainVerifies() async throws {
        let ca = try Fixtures.authority()
        let verified = try await Fixtures.verifier(roots: [ca.root]).verifyTransaction(ca.sign(Fixtures.transaction())).get()
        #expect(verified.payload.transactionID == "1000000000000001")
        #expect(verified.origin == .certificateChain)
    }

    @Test func chainUnderAnotherRootIsUntrusted() async throws {
        let ca = try Fixtures.authority()
        let other = try Fixtures.authority()
        let failure = await Fixtures.verifier(roots: [other.root]).verifyTransaction(try ca.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .untrustedChain)
    }

    @Test func chainIsNotTrustedBecauseOfItsOwnX5cRoot() async throws {
        // The attacker's chain is complete and consistent, root included; only Apple's root is configured.
        let attacker = try Fixtures.authority()
        let failure = await Fixtures.verifier(roots: [AppleRootCertificates.appleRootCAG3])
            .verifyTransaction(try attacker.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .untrustedChain)
    }

    @Test(arguments: [nil, [1, 2, 840, 113635, 100, 6, 11, 2] as ASN1ObjectIdentifier])
    func leafWithoutTheReceiptSigningOIDFails(oid: ASN1ObjectIdentifier?) async throws {
        let ca = try Fixtures.authority { $0.leafOID = oid }
        let failure = await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .missingAppleOID)
        #expect(failure?.reason.contains("leaf") == true)
    }

    @Test(arguments: [nil, [1, 2, 840, 113635, 100, 6, 2, 2] as ASN1ObjectIdentifier])
    func intermediateWithoutTheAppleOIDFails(oid: ASN1ObjectIdentifier?) async throws {
        let ca = try Fixtures.authority { $0.intermediateOID = oid }
        let failure = await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .missingAppleOID)
        #expect(failure?.reason.contains("intermediate") == true)
    }

    @Test func dataSignedAfterTheLeafExpiredFails() async throws {
        let ca = try Fixtures.authority()
        var payload = Fixtures.transaction()
        payload.signedDate = ca.leaf.notValidAfter.addingTimeInterval(1)
        let failure = await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(payload)).failure
        #expect(failure?.code == .certificateExpired)
    }

    @Test func dataSignedBeforeTheLeafWasValidFails() async throws {
        let ca = try Fixtures.authority()
        var payload = Fixtures.transaction()
        payload.signedDate = ca.leaf.notValidBefore.addingTimeInterval(-1)
        let failure = await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(payload)).failure
        #expect(failure?.code == .certificateNotYetValid)
    }

    @Test func validityBoundsAreInclusive() async throws {
        let ca = try Fixtures.authority()
        for date in [ca.leaf.notValidBefore, ca.leaf.notValidAfter] {
            var payload = Fixtures.transaction()
            payload.signedDate = date
            #expect(await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(payload)).value != nil)
        }
    }

    @Test func expiredIntermediateIsNamed() async throws {
        let ca = try Fixtures.authority { $0.intermediateValidity = 30 * 86_400 }
        var payload = Fixtures.transaction()
        payload.signedDate = ca.intermediate.notValidAfter.addingTimeInterval(3600)
        let failure = await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(payload)).failure
        #expect(failure?.code == .certificateExpired)
        #expect(failure?.reason.hasPrefix("intermediate") == true)
    }

    @Test func unknownCriticalExtensionFails() async throws {
        let unknown = Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 99999, 1], critical: true, value: [0x05, 0x00])
        let ca = try Fixtures.authority { $0.extraLeafExtensions = [unknown] }
        let failure = await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .unhandledCriticalExtension)
    }

    @Test func unknownNonCriticalExtensionIsFine() async throws {
        let unknown = Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 99999, 1], critical: false, value: [0x05, 0x00])
        let ca = try Fixtures.authority { $0.extraLeafExtensions = [unknown] }
        #expect(await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(Fixtures.transaction())).value != nil)
    }

    @Test func forgedLeafNamingTheIntermediateIsUntrusted() async throws {
        // A leaf signed by another key but naming the intermediate as its issuer.
        let ca = try Fixtures.authority()
        let forger = P256.Signing.PrivateKey()
        let forgedLeaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(forger.publicKey),
            notValidBefore: ca.leaf.notValidBefore, notValidAfter: ca.leaf.notValidAfter,
            issuer: ca.intermediate.subject, subject: ca.leaf.subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: ca.leaf.extensions, issuerPrivateKey: .init(forger))
        let header = try TestCertificateAuthority.headerSegment(x5c: [forgedLeaf, ca.intermediate, ca.root])
        let jws = try TestCertificateAuthority.sign(
            json: AppStoreJSON.encoder().encode(Fixtures.transaction()), headerSegment: header, key: forger)
        let failure = await Fixtures.verifier(roots: [ca.root]).verifyTransaction(jws).failure
        #expect(failure?.code == .untrustedChain)
        #expect(failure?.reason.contains("leaf is not signed by the intermediate") == true)
    }

    /// A self-made leaf under Apple's real intermediate and root must fail: the leaf names
    /// Apple's intermediate as its issuer but was signed by the forger's key.
    @Test(.enabled(if: Vectors.available, Vectors.skipNote))
    func selfMadeLeafUnderRealAppleIntermediateFails() async throws {
        let intermediate = try Certificate(derEncoded: Array(Vectors.data("apple/inline_certs/REAL_APPLE_INTERMEDIATE.der")))
        let realLeaf = try Certificate(derEncoded: Array(Vectors.data("apple/inline_certs/REAL_APPLE_SIGNING_CERTIFICATE.der")))
        let forger = P256.Signing.PrivateKey()
        let forgedLeaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(forger.publicKey),
            notValidBefore: realLeaf.notValidBefore, notValidAfter: realLeaf.notValidAfter,
            issuer: intermediate.subject, subject: realLeaf.subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: realLeaf.extensions, issuerPrivateKey: .init(forger))
        let header = try TestCertificateAuthority.headerSegment(x5c: [forgedLeaf, intermediate, AppleRootCertificates.appleRootCAG3])
        var payload = Fixtures.transaction()
        payload.signedDate = Fixtures.effectiveDate
        let jws = try TestCertificateAuthority.sign(json: AppStoreJSON.encoder().encode(payload), headerSegment: header, key: forger)
        let failure = await Fixtures.verifier(roots: [AppleRootCertificates.appleRootCAG3]).verifyTransaction(jws).failure
        #expect(failure?.code == .untrustedChain)
    }

    @Test func intermediateThatIsNotACertificateAuthorityFails() async throws {
        let ca = try Fixtures.authority()
        // Re-issue the intermediate with basicConstraints CA:FALSE, same key, then the leaf under it.
        var extensions = Certificate.Extensions()
        for ext in ca.intermediate.extensions where ext.oid != .X509ExtensionID.basicConstraints {
            try extensions.append(ext)
        }
        try extensions.append(Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true))
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(ca.intermediateKey.publicKey),
            notValidBefore: ca.intermediate.notValidBefore, notValidAfter: ca.intermediate.notValidAfter,
            issuer: ca.root.subject, subject: ca.intermediate.subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions, issuerPrivateKey: .init(ca.rootKey))
        let broken = try TestCertificateAuthority(
            root: ca.root, intermediate: intermediate, leaf: ca.leaf,
            rootKey: ca.rootKey, intermediateKey: ca.intermediateKey, leafKey: ca.leafKey)
        let failure = await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try broken.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .invalidCertificateChain)
    }
}
