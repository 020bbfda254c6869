import Foundation
import TallyCore
import TallyTestSupport
import TallyVerify
import Testing
import X509

/// Every verdict of `../shared/vectors/apple/EXPECTED.md` §2, table-driven: Apple's own test
/// vectors, checked against Apple's test root (`testCA.der`) as Apple's libraries check them.
@Suite(.enabled(if: Vectors.available, Vectors.skipNote))
struct AppleVectorTests {
    enum Method: String, Sendable { case notification, transaction, renewal, appTransaction }

    struct Row: Sendable, CustomTestStringConvertible {
        var vector: String
        var method: Method
        var environments: Set<AppStoreEnvironment>
        var bundleID: String = "com.example"
        var appAppleID: Int64 = 1234
        var trustAppleRoot = false
        /// `nil` for valid; otherwise the Tally code, whose Apple Swift status is also checked.
        var code: VerificationFailure.Code?
        var appleSwiftStatus: String?
        var testDescription: String {
            "\(vector) as \(method) \(environments.map(\.rawValue).sorted()) \(bundleID) \(appAppleID) → \(code?.rawValue ?? "valid")"
        }
    }

    static let xcodeBundle = "com.example.naturelab.backyardbirds.example"

    static let rows: [Row] = [
        Row(vector: "mock_signed_data/testNotification", method: .notification, environments: [.sandbox]),
        Row(
            vector: "mock_signed_data/testNotification", method: .notification, environments: [.production],
            code: .wrongEnvironment, appleSwiftStatus: "INVALID_ENVIRONMENT"),
        Row(
            vector: "mock_signed_data/testNotification", method: .notification, environments: [.production], appAppleID: 1235,
            code: .wrongAppAppleID, appleSwiftStatus: "INVALID_APP_IDENTIFIER"),
        Row(
            vector: "mock_signed_data/testNotification", method: .transaction, environments: [.sandbox], appAppleID: 1235,
            code: .wrongBundleID, appleSwiftStatus: "INVALID_APP_IDENTIFIER"),
        Row(vector: "mock_signed_data/transactionInfo", method: .transaction, environments: [.sandbox]),
        Row(
            vector: "mock_signed_data/transactionInfo", method: .transaction, environments: [.sandbox], bundleID: "com.example.x",
            code: .wrongBundleID, appleSwiftStatus: "INVALID_APP_IDENTIFIER"),
        Row(
            vector: "mock_signed_data/transactionInfo", method: .transaction, environments: [.sandbox], trustAppleRoot: true,
            code: .untrustedChain, appleSwiftStatus: "VERIFICATION_FAILURE"),
        Row(vector: "mock_signed_data/renewalInfo", method: .renewal, environments: [.sandbox]),
        Row(
            vector: "mock_signed_data/renewalInfo", method: .renewal, environments: [.production],
            code: .wrongEnvironment, appleSwiftStatus: "INVALID_ENVIRONMENT"),
        Row(
            vector: "mock_signed_data/wrongBundleId", method: .notification, environments: [.sandbox],
            code: .wrongBundleID, appleSwiftStatus: "INVALID_APP_IDENTIFIER"),
        Row(
            vector: "mock_signed_data/wrongBundleId", method: .notification, environments: [.sandbox], bundleID: "com.examplex",
            code: .wrongBundleID, appleSwiftStatus: "INVALID_APP_IDENTIFIER"),
        Row(
            vector: "mock_signed_data/missingX5CHeaderClaim", method: .notification, environments: [.sandbox],
            code: .badCertificateChainLength, appleSwiftStatus: "INVALID_JWT_FORMAT"),
        Row(vector: "xcode/xcode-signed-transaction", method: .transaction, environments: [.xcode], bundleID: xcodeBundle),
        Row(
            vector: "xcode/xcode-signed-transaction", method: .transaction, environments: [.xcode],
            code: .wrongBundleID, appleSwiftStatus: "INVALID_APP_IDENTIFIER"),
        Row(
            vector: "xcode/xcode-signed-transaction", method: .transaction, environments: [.sandbox], bundleID: xcodeBundle,
            code: .badCertificateChainLength, appleSwiftStatus: "INVALID_JWT_FORMAT"),
        Row(vector: "xcode/xcode-signed-renewal-info", method: .renewal, environments: [.xcode], bundleID: xcodeBundle),
        Row(vector: "xcode/xcode-signed-app-transaction", method: .appTransaction, environments: [.xcode], bundleID: xcodeBundle),
        Row(
            vector: "xcode/xcode-signed-app-transaction", method: .appTransaction, environments: [.production], bundleID: xcodeBundle,
            code: .badCertificateChainLength, appleSwiftStatus: "INVALID_JWT_FORMAT"),
    ]

    @Test(arguments: rows)
    func vectorGetsAppleVerdict(row: Row) async throws {
        let jws = try Vectors.text("apple/\(row.vector)")
        var roots = row.trustAppleRoot ? [AppleRootCertificates.appleRootCAG3] : [try Self.testRoot()]
        // Tally trusts Xcode's certificate only when it is given, as an app does under #if DEBUG.
        if row.environments.contains(.xcode) { roots.append(try Self.xcodeCertificate(of: jws)) }
        let verifier = Fixtures.verifier(
            roots: roots, bundleID: .equals(row.bundleID), appAppleID: .equals(row.appAppleID), environments: row.environments)
        let failure = await Self.verify(jws, method: row.method, with: verifier)
        #expect(failure?.code == row.code, "\(failure?.description ?? "valid")")
        if let status = row.appleSwiftStatus {
            #expect(failure?.code.appleSwiftStatus == status)
        }
    }

    @Test(arguments: ["a.b.c.d", "a.b.c"])
    func malformedLiteralsAreMalformedJWS(literal: String) async throws {
        let verifier = Fixtures.verifier(roots: [try Self.testRoot()], environments: [.sandbox, .localTesting])
        let result = await verifier.verifyNotification(literal)
        #expect(result.failure?.code == .malformedJWS)
        #expect(result.failure?.code.appleSwiftStatus == "INVALID_JWT_FORMAT")
    }

    @Test func testNotificationDecodesAsTest() async throws {
        let verifier = Fixtures.verifier(roots: [try Self.testRoot()])
        let verified = try await verifier.verifyNotification(Vectors.text("apple/mock_signed_data/testNotification")).get()
        #expect(verified.payload.notificationType == .test)
        #expect(verified.notification.validationTime == Date(timeIntervalSince1970: 1_681_314_324))
        #expect(verified.notification.origin == .certificateChain)
    }

    @Test func transactionInfoDecodesAsSandbox() async throws {
        let verifier = Fixtures.verifier(roots: [try Self.testRoot()])
        let verified = try await verifier.verifyTransaction(Vectors.text("apple/mock_signed_data/transactionInfo")).get()
        #expect(verified.payload.environment == .sandbox)
        #expect(verified.validationTime == Date(timeIntervalSince1970: 1_672_956_154))
    }

    /// x5c[2] of this vector is another root with the same subject and key as testCA.der:
    /// only the configured root anchors the chain, so trusting x5c[2] alone must fail.
    @Test func x5cRootIsNeverTrusted() async throws {
        let jws = try Vectors.text("apple/mock_signed_data/transactionInfo")
        let header = Fixtures.decodedJSON(Fixtures.segments(jws)[0])
        let embedded = try #require((header["x5c"] as? [String])?[2])
        let embeddedRoot = try Certificate(derEncoded: try #require(Base64.decode(embedded.utf8, alphabet: .standard)))
        #expect(embeddedRoot != (try Self.testRoot()))
        let trustsOnlyApple = Fixtures.verifier(roots: [AppleRootCertificates.appleRootCAG3])
        #expect(await trustsOnlyApple.verifyTransaction(jws).failure?.code == .untrustedChain)
    }

    @Test func xcodeTransactionFieldsDecode() async throws {
        let jws = try Vectors.text("apple/xcode/xcode-signed-transaction")
        let verifier = Fixtures.verifier(roots: [try Self.xcodeCertificate(of: jws)], bundleID: .equals(Self.xcodeBundle), environments: [.xcode])
        let verified = try await verifier.verifyTransaction(jws).get()
        #expect(verified.origin == .xcodeSelfSigned)
        #expect(verified.payload.productID == "pass.premium")
        #expect(verified.payload.transactionID == "0")
        #expect(verified.payload.environment == .xcode)
        #expect(verified.payload.offerType == .introductory)
        #expect(verified.payload.storefront == "USA")
        let appTransaction = try await verifier.verifyAppTransaction(Vectors.text("apple/xcode/xcode-signed-app-transaction")).get()
        #expect(appTransaction.payload.appAppleID == nil)
        #expect(appTransaction.payload.receiptType == .xcode)
    }

    /// Apple's libraries accept any Xcode-environment data; Tally checks its signature against
    /// its own certificate, so an edited Xcode payload fails.
    @Test func xcodeSignatureIsChecked() async throws {
        let jws = try Vectors.text("apple/xcode/xcode-signed-transaction")
        var parts = Fixtures.segments(jws)
        var payload = Fixtures.decodedJSON(parts[1])
        payload["productId"] = "pass.lifetime"
        parts[1] = Fixtures.encodedJSON(payload)
        let verifier = Fixtures.verifier(roots: [try Self.xcodeCertificate(of: jws)], bundleID: .equals(Self.xcodeBundle), environments: [.xcode])
        #expect(await verifier.verifyTransaction(parts.joined(separator: ".")).failure?.code == .badSignature)
    }

    @Test func editedPayloadWithTheOriginalSignatureFails() async throws {
        let jws = try Vectors.text("apple/mock_signed_data/transactionInfo")
        var parts = Fixtures.segments(jws)
        var payload = Fixtures.decodedJSON(parts[1])
        payload["bundleId"] = "com.example.other"
        parts[1] = Fixtures.encodedJSON(payload)
        let verifier = Fixtures.verifier(roots: [try Self.testRoot()])
        let failure = await verifier.verifyTransaction(parts.joined(separator: ".")).failure
        #expect(failure?.code == .badSignature)
        #expect(failure?.code.appleSwiftStatus == "INVALID_JWT_FORMAT")
        #expect(failure?.code.applePythonStatus == "VERIFICATION_FAILURE")
    }

    /// The certificate an Xcode vector is signed with (its only `x5c`), as a developer saves it from Xcode.
    static func xcodeCertificate(of jws: String) throws -> Certificate {
        let header = Fixtures.decodedJSON(Fixtures.segments(jws)[0])
        let x5c = try #require((header["x5c"] as? [String])?.first)
        return try Certificate(derEncoded: try #require(Base64.decode(x5c.utf8, alphabet: .standard)))
    }

    static func testRoot() throws -> Certificate {
        try Certificate(derEncoded: Array(Vectors.data("apple/certs/testCA.der")))
    }

    static func verify(_ jws: String, method: Method, with verifier: SignedDataVerifier) async -> VerificationFailure? {
        switch method {
        case .notification: return await verifier.verifyNotification(jws).failure
        case .transaction: return await verifier.verifyTransaction(jws).failure
        case .renewal: return await verifier.verifyRenewalInfo(jws).failure
        case .appTransaction: return await verifier.verifyAppTransaction(jws).failure
        }
    }
}
