import Foundation
import TallyCore
import TallyTesting
import TallyVerify
import Testing

/// A failure's reason says what is wrong with the input, never where in the code (a
/// library's `File.swift:123`).
@Suite struct FailureReasonTests {
    let ca: TestCertificateAuthority
    let verifier: SignedDataVerifier
    let valid: String

    init() throws {
        ca = try Fixtures.authority()
        verifier = Fixtures.verifier(roots: [ca.root])
        valid = try ca.sign(Fixtures.transaction())
    }

    /// Whether `text` names a source file and line, as `ASN1Error` and `CertificateError` descriptions do.
    static func namesSourceLocation(_ text: String) -> Bool {
        text.range(of: #"[A-Za-z0-9_+]+\.swift:\d+"#, options: .regularExpression) != nil
    }

    @Test(arguments: [
        ("not base64 at all!", "is not base64"),
        (Data("abc".utf8).base64EncodedString(), "is not a DER X.509 certificate"),  // base64 of bytes that are not DER
        (Data([0x30, 0x82, 0x01, 0x00, 0x02]).base64EncodedString(), "ends in the middle of a field"),  // a SEQUENCE cut short
        (Data([0x30, 0x03, 0x02, 0x01, 0x01]).base64EncodedString(), "is not a DER X.509 certificate"),  // a SEQUENCE holding an INTEGER
        (Data([0x04, 0x00]).base64EncodedString(), "is not a DER X.509 certificate"),  // an OCTET STRING
    ])
    func anX5cEntryThatIsNotACertificateSaysWhatIsWrong(entry: String, says: String) async throws {
        for index in 0..<2 {
            let bent = try Fixtures.resignedWithHeader(valid, key: ca.leafKey) { header in
                var x5c = header["x5c"] as! [String]
                x5c[index] = entry
                header["x5c"] = x5c
            }
            let failure = try #require(await verifier.verifyTransaction(bent).failure)
            #expect(failure.code == .malformedCertificate)
            #expect(failure.reason.contains(says), "\(failure.reason)")
            #expect(!Self.namesSourceLocation(failure.reason), "\(failure.reason)")
            #expect(!failure.reason.contains("ASN1Error") && !failure.reason.contains("CertificateError"), "\(failure.reason)")
        }
    }

    @Test func aRootFileThatIsNotACertificateSaysWhatIsWrong() throws {
        for bytes in [
            Array("garbage".utf8), [0x30, 0x82, 0x01, 0x00, 0x02],
            Array("-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n".utf8),
        ] {
            let error = #expect(throws: CertificateLoadingError.self) { try CertificateLoading.certificates(from: bytes) }
            let reason = error?.reason ?? ""
            #expect(!Self.namesSourceLocation(reason), "\(reason)")
            #expect(reason.contains("certificate"), "\(reason)")
        }
    }

    @Test(arguments: [
        #"{"transactionId":1}"#,
        #"{"quantity":"one"}"#,
        #"{"signedDate":"yesterday"}"#,
        #"{"environment":5}"#,
        "[1,2]",
        #"{"a":1,"a":2}"#,
        "{",
    ])
    func aPayloadThatDoesNotDecodeSaysWhatIsWrong(payload: String) async throws {
        let jws = try ca.sign(json: Data(payload.utf8))
        let failure = try #require(await verifier.verifyTransaction(jws).failure)
        #expect(failure.code == .payloadNotDecodable)
        #expect(!Self.namesSourceLocation(failure.reason), "\(failure.reason)")
        #expect(!failure.reason.contains("DecodingError"), "\(failure.reason)")
        #expect(!failure.reason.contains("codingPath"), "\(failure.reason)")
    }

    @Test func aTypeMismatchNamesTheField() async throws {
        let jws = try ca.sign(json: Data(#"{"quantity":"one"}"#.utf8))
        let failure = try #require(await verifier.verifyTransaction(jws).failure)
        #expect(failure.reason.hasPrefix("payload is not a TransactionPayload: quantity: "), "\(failure.reason)")
    }
}
