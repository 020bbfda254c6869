import Foundation
import TallyTestSupport
import Testing
import X509

@testable import TallyVerify

/// EXPECTED.md §3: the certificate chains from Apple's test code, checked without a JWS.
@Suite(.enabled(if: Vectors.available, Vectors.skipNote))
struct AppleChainVectorTests {
    static let effective = Fixtures.effectiveDate
    static let afterExpiry = Date(timeIntervalSince1970: 2_280_946_846)
    static let beforeRealLeaf = Date(timeIntervalSince1970: 1_700_000_000)

    static func cert(_ name: String) throws -> Certificate {
        try Certificate(derEncoded: Array(Vectors.data("apple/inline_certs/\(name).der")))
    }

    /// The chain's verdict at `time`: nil when valid.
    static func verdict(leaf: String, intermediate: String, root: String, at time: Date) async throws -> VerificationFailure? {
        let validator = ChainValidator(roots: [try cert(root)])
        switch await validator.validate(leaf: try cert(leaf), intermediate: try cert(intermediate)) {
        case .success(let chain): return chain.validityFailure(at: time)
        case .failure(let failure): return failure
        }
    }

    @Test func validTestChainYieldsTheLeafKey() async throws {
        let validator = ChainValidator(roots: [try Self.cert("ROOT_CA")])
        let chain = try await validator.validate(leaf: Self.cert("LEAF_CERT"), intermediate: Self.cert("INTERMEDIATE_CA")).get()
        #expect(chain.validityFailure(at: Self.effective) == nil)
        #expect(chain.certificates.count == 3)
        let spki = try Vectors.data("apple/inline_certs/LEAF_CERT_PUBLIC_KEY.spki.der")
        #expect(chain.leafKey.derRepresentation == spki)
    }

    @Test func intermediateWithWrongOIDFails() async throws {
        let failure = try await Self.verdict(
            leaf: "LEAF_CERT_FOR_INTERMEDIATE_CA_INVALID_OID", intermediate: "INTERMEDIATE_CA_INVALID_OID", root: "ROOT_CA", at: Self.effective)
        #expect(failure?.code == .missingAppleOID)
        #expect(failure?.reason.contains("intermediate") == true)
    }

    @Test func leafWithWrongOIDFails() async throws {
        let failure = try await Self.verdict(leaf: "LEAF_CERT_INVALID_OID", intermediate: "INTERMEDIATE_CA", root: "ROOT_CA", at: Self.effective)
        #expect(failure?.code == .missingAppleOID)
        #expect(failure?.reason.contains("leaf") == true)
    }

    @Test func chainAfterItsExpiryFails() async throws {
        let failure = try await Self.verdict(leaf: "LEAF_CERT", intermediate: "INTERMEDIATE_CA", root: "ROOT_CA", at: Self.afterExpiry)
        #expect(failure?.code == .certificateExpired)
    }

    @Test func testChainUnderAppleRootFails() async throws {
        let failure = try await Self.verdict(leaf: "LEAF_CERT", intermediate: "INTERMEDIATE_CA", root: "REAL_APPLE_ROOT", at: Self.effective)
        #expect(failure?.code == .untrustedChain)
    }

    @Test func realAppleChainIsValidOfflineOnlyWithinItsPeriod() async throws {
        let args = ("REAL_APPLE_SIGNING_CERTIFICATE", "REAL_APPLE_INTERMEDIATE", "REAL_APPLE_ROOT")
        #expect(try await Self.verdict(leaf: args.0, intermediate: args.1, root: args.2, at: Self.effective) == nil)
        #expect(try await Self.verdict(leaf: args.0, intermediate: args.1, root: args.2, at: Self.beforeRealLeaf)?.code == .certificateNotYetValid)
        #expect(try await Self.verdict(leaf: args.0, intermediate: args.1, root: args.2, at: Self.afterExpiry)?.code == .certificateExpired)
    }

    @Test func bundledRootIsTheRealAppleRootG3() throws {
        let shipped = try Vectors.data("apple/inline_certs/REAL_APPLE_ROOT.der")
        #expect(Data(AppleRootCertificates.appleRootCAG3DER) == shipped)
        let cerFile = Vectors.root!.deletingLastPathComponent().appendingPathComponent("certs/AppleRootCA-G3.cer")
        if let cer = try? Data(contentsOf: cerFile) {
            #expect(Data(AppleRootCertificates.appleRootCAG3DER) == cer)
        }
    }

    /// "abc" and base64("abc") as x5c entries: neither is a certificate.
    @Test(arguments: ["abc", Data("abc".utf8).base64EncodedString()])
    func garbageCertificateIsMalformed(entry: String) async throws {
        let ca = try Fixtures.authority()
        let jws = try ca.sign(Fixtures.transaction())
        let tampered = try Fixtures.resignedWithHeader(jws, key: ca.leafKey) { header in
            var x5c = header["x5c"] as! [String]
            x5c[0] = entry
            header["x5c"] = x5c
        }
        let verifier = Fixtures.verifier(roots: [ca.root])
        let failure = await verifier.verifyTransaction(tampered).failure
        #expect(failure?.code == .malformedCertificate)
        #expect(failure?.code.applePythonStatus == "INVALID_CERTIFICATE")
    }

    @Test func rootThatIsNotACertificateIsRefusedWhenLoading() {
        #expect(throws: CertificateLoadingError.self) {
            try CertificateLoading.certificates(from: Array("abc".utf8))
        }
    }
}
