import Crypto
import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// Every way the JWS itself can be wrong. No input crashes the verifier.
@Suite struct MalformedInputTests {
    let ca: TestCertificateAuthority
    let verifier: SignedDataVerifier
    let valid: String

    init() throws {
        ca = try Fixtures.authority()
        verifier = Fixtures.verifier(roots: [ca.root])
        valid = try ca.sign(Fixtures.transaction())
    }

    @Test func theUnbentOriginalIsValid() async {
        #expect(await verifier.verifyTransaction(valid).value != nil)
    }

    @Test(arguments: ["none", "HS256", "ES384", "RS256", "es256", ""])
    func algorithmOtherThanES256IsRefused(alg: String) async throws {
        let bent = try Fixtures.resignedWithHeader(valid, key: ca.leafKey) { $0["alg"] = alg }
        #expect(await verifier.verifyTransaction(bent).failure?.code == .unsupportedAlgorithm)
    }

    @Test func missingAlgorithmIsRefused() async throws {
        let bent = try Fixtures.resignedWithHeader(valid, key: ca.leafKey) { $0.removeValue(forKey: "alg") }
        #expect(await verifier.verifyTransaction(bent).failure?.code == .unsupportedAlgorithm)
    }

    @Test func unsignedJWSWithAlgNoneIsRefused() async throws {
        var parts = Fixtures.segments(valid)
        var header = Fixtures.decodedJSON(parts[0])
        header["alg"] = "none"
        parts[0] = Fixtures.encodedJSON(header)
        parts[2] = ""
        #expect(await verifier.verifyTransaction(parts.joined(separator: ".")).failure?.code == .malformedJWS)
        #expect(await verifier.verifyTransaction(parts.dropLast().joined(separator: ".") + ".").failure?.code == .malformedJWS)
    }

    @Test func derEncodedSignatureIsRefused() async throws {
        var parts = Fixtures.segments(valid)
        let raw = try #require(Base64.decode(parts[2].utf8, alphabet: .url))
        let der = try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        parts[2] = Base64.encodeURL(der)
        let failure = await verifier.verifyTransaction(parts.joined(separator: ".")).failure
        #expect(failure?.code == .badSignature)
        #expect(failure?.reason.contains("DER") == true)
    }

    @Test(arguments: [63, 32, 1])
    func truncatedSignatureIsRefused(length: Int) async throws {
        var parts = Fixtures.segments(valid)
        let raw = try #require(Base64.decode(parts[2].utf8, alphabet: .url))
        parts[2] = Base64.encodeURL(raw.prefix(length))
        #expect(await verifier.verifyTransaction(parts.joined(separator: ".")).failure?.code == .badSignature)
    }

    @Test func editedPayloadIsRefused() async throws {
        var parts = Fixtures.segments(valid)
        var payload = Fixtures.decodedJSON(parts[1])
        payload["quantity"] = 100
        parts[1] = Fixtures.encodedJSON(payload)
        #expect(await verifier.verifyTransaction(parts.joined(separator: ".")).failure?.code == .badSignature)
    }

    @Test func editedHeaderIsRefused() async throws {
        var parts = Fixtures.segments(valid)
        var header = Fixtures.decodedJSON(parts[0])
        header["kid"] = "added"
        parts[0] = Fixtures.encodedJSON(header)
        #expect(await verifier.verifyTransaction(parts.joined(separator: ".")).failure?.code == .badSignature)
    }

    @Test(arguments: [0, 1, 2, 4])
    func x5cOfTheWrongLengthIsRefused(count: Int) async throws {
        let bent = try Fixtures.resignedWithHeader(valid, key: ca.leafKey) { header in
            let x5c = header["x5c"] as! [String]
            header["x5c"] = Array((x5c + x5c).prefix(count))
        }
        #expect(await verifier.verifyTransaction(bent).failure?.code == .badCertificateChainLength)
    }

    @Test func missingX5cIsRefused() async throws {
        let bent = try Fixtures.resignedWithHeader(valid, key: ca.leafKey) { $0.removeValue(forKey: "x5c") }
        #expect(await verifier.verifyTransaction(bent).failure?.code == .badCertificateChainLength)
    }

    @Test(arguments: [#"{"alg":"ES256","x5c":"MIIB"}"#, #"["ES256"]"#, #"{"alg":256}"#, "not json", #"{"alg":"ES256","x5c":[1,2,3]}"#])
    func headerOfTheWrongShapeIsMalformed(header: String) async throws {
        let parts = Fixtures.segments(valid)
        let bent = [Base64.encodeURL(Data(header.utf8)), parts[1], parts[2]].joined(separator: ".")
        #expect(await verifier.verifyTransaction(bent).failure?.code == .malformedJWS)
    }

    @Test func criticalHeaderExtensionIsRefused() async throws {
        let bent = try Fixtures.resignedWithHeader(valid, key: ca.leafKey) { $0["crit"] = ["exp"] }
        #expect(await verifier.verifyTransaction(bent).failure?.code == .malformedJWS)
    }

    @Test(arguments: ["", ".", "..", "...", "a", "a.b", "a.b.c.d", "!!!.???.***", "eyJ.eyJ.eyJ", "\u{0}.\u{0}.\u{0}", "éé.éé.éé"])
    func shapesThatAreNotCompactJWSAreMalformed(input: String) async {
        #expect(await verifier.verifyTransaction(input).failure?.code == .malformedJWS)
    }

    /// Combining marks right after a dot are part of the next segment, not of the dot: the
    /// JWS is refused, so no second spelling of a valid JWS verifies.
    @Test(arguments: ["\u{301}", "\u{301}\u{200D}\u{FE0F}", "\u{FE0F}"])
    func combiningMarksAfterADotAreMalformed(marks: String) async {
        let parts = Fixtures.segments(valid)
        let afterSecond = parts[0] + "." + parts[1] + "." + marks + parts[2]
        let afterFirst = parts[0] + "." + marks + parts[1] + "." + parts[2]
        #expect(await verifier.verifyTransaction(afterSecond).failure?.code == .malformedJWS)
        #expect(await verifier.verifyTransaction(afterFirst).failure?.code == .malformedJWS)
    }

    @Test func duplicatedHeaderMembersAreMalformed() async throws {
        let parts = Fixtures.segments(valid)
        var header = String(decoding: Base64.decode(parts[0].utf8, alphabet: .url)!, as: UTF8.self)
        header = header.replacingOccurrences(of: #"{"alg":"ES256""#, with: #"{"alg":"ES256","alg":"none""#)
        let segment = Base64.encodeURL(Data(header.utf8))
        let jws = try TestCertificateAuthority.sign(
            json: Data(Base64.decode(parts[1].utf8, alphabet: .url)!), headerSegment: segment, key: ca.leafKey)
        #expect(await verifier.verifyTransaction(jws).failure?.code == .malformedJWS)
    }

    @Test func paddedSegmentsAreMalformed() async {
        let parts = Fixtures.segments(valid)
        let padded = [parts[0], parts[1] + "==", parts[2]].joined(separator: ".")
        #expect(await verifier.verifyTransaction(padded).failure?.code == .malformedJWS)
    }

    @Test func hugeInputIsRefusedBeforeParsing() async {
        let huge = String(repeating: "A", count: 300 * 1024) + ".e30.AAAA"
        #expect(await verifier.verifyTransaction(huge).failure?.code == .inputTooLarge)
    }

    @Test func hugeSegmentsWithinTheLimitAreMalformed() async {
        let big = String(repeating: "A", count: 100 * 1024)
        #expect(await verifier.verifyTransaction(big + "." + big + "." + "AAAA").failure?.code == .malformedJWS)
    }

    @Test func payloadThatIsNotTheKindIsNotDecodable() async throws {
        for json in [#"["a"]"#, #"{"price":"free"}"#, #"{"signedDate":"yesterday"}"#, "{", "null"] {
            let jws = try ca.sign(json: Data(json.utf8))
            #expect(await verifier.verifyTransaction(jws).failure?.code == .payloadNotDecodable, "\(json)")
        }
    }

    /// Any single-byte change anywhere in a valid JWS makes it invalid, and never crashes.
    @Test func everySingleByteMutationIsRejected() async {
        var generator = SeededGenerator(seed: 0x7A11)
        let bytes = Array(valid.utf8)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \u{7F}".utf8)
        var accepted = 0
        for _ in 0..<400 {
            var mutated = bytes
            let index = Int.random(in: 0..<mutated.count, using: &generator)
            var replacement = alphabet.randomElement(using: &generator)!
            while replacement == mutated[index] { replacement = alphabet.randomElement(using: &generator)! }
            mutated[index] = replacement
            if await verifier.verifyTransaction(String(decoding: mutated, as: UTF8.self)).value != nil { accepted += 1 }
        }
        #expect(accepted == 0)
    }

    /// Random bytes and random truncations never crash the verifier and are never accepted.
    @Test func randomInputIsRejectedWithoutCrashing() async {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<300 {
            let length = Int.random(in: 0..<2048, using: &generator)
            let noise = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(await verifier.verifyNotification(String(decoding: noise, as: UTF8.self)).value == nil)
            let cut = Int.random(in: 0..<valid.utf8.count, using: &generator)
            #expect(await verifier.verifyTransaction(String(valid.prefix(cut))).value == nil)
        }
    }
}
