import Foundation
import TallyCore
import TallyTestSupport
import TallyVerify
import Testing

/// JWS signed by Apple's real chain (`../shared/vectors/real-apple`) verify against the bundled
/// Apple Root CA - G3 at their signed date; the rejected ones (`real-apple-rejected`) each
/// fail with the code that says what is wrong with them.
@Suite(.enabled(if: Vectors.available, Vectors.skipNote))
struct RealAppleVectorTests {
    static let accepted: [[String: String]] = (try? Vectors.manifest("real-apple/MANIFEST.tsv")) ?? []

    @Test func manifestListsAll25() {
        #expect(Self.accepted.count == 25)
    }

    @Test(arguments: accepted.map { $0["file"] ?? "" })
    func realAppleDataVerifies(file: String) async throws {
        let row = try #require(Self.accepted.first { $0["file"] == file })
        let environment = row["environment"] ?? ""
        let absent = environment == "(absent)"
        let bundle = String((row["bundleId"] ?? "").split(separator: " ").first ?? "")
        let appAppleID = Int64(row["appAppleId"] ?? "")
        let verifier = Fixtures.verifier(
            roots: [AppleRootCertificates.appleRootCAG3],
            bundleID: bundle.hasPrefix("(") ? .any : .equals(bundle),
            appAppleID: appAppleID.map { .equals($0) } ?? .any,
            environments: absent ? [.production, .sandbox] : [AppStoreEnvironment(rawValue: environment)],
            now: Date(timeIntervalSince1970: 4_102_444_800)  // 2100: proves the signed date, not now, is used
        ) { $0.acceptsMissingEnvironment = absent }
        let jws = try Vectors.text("real-apple/\(file)")
        let signed = try #require(ISO8601DateFormatter.withFractions.date(from: row["signedDate"] ?? ""))

        switch row["kind"] {
        case "notification":
            let verified = try await verifier.verifyNotification(jws, includingSignedData: true).get()
            #expect(abs(verified.notification.validationTime.timeIntervalSince(signed)) < 0.001)
            let type = (row["notificationType_or_productId"] ?? "").split(separator: "/").map(String.init)
            #expect(verified.payload.notificationType?.rawValue == type[0])
            if type.count > 1 { #expect(verified.payload.subtype?.rawValue == type[1]) }
            if verified.payload.data?.signedTransactionInfo != nil { #expect(verified.transaction != nil) }
            if verified.payload.data?.signedRenewalInfo != nil { #expect(verified.renewalInfo != nil) }
        case "transaction":
            let verified = try await verifier.verifyTransaction(jws).get()
            #expect(abs(verified.validationTime.timeIntervalSince(signed)) < 0.001)
            #expect(verified.payload.productID == row["notificationType_or_productId"])
        case "renewal":
            let verified = try await verifier.verifyRenewalInfo(jws).get()
            #expect(abs(verified.validationTime.timeIntervalSince(signed)) < 0.001)
            #expect(verified.payload.productID == row["notificationType_or_productId"])
        default:
            Issue.record("unknown kind \(row["kind"] ?? "")")
        }
    }

    /// A 2021 payload with no environment field is refused unless that is explicitly allowed,
    /// as Apple's Python library refuses it (INVALID_ENVIRONMENT).
    @Test func payloadWithoutEnvironmentIsRefusedByDefault() async throws {
        let verifier = Fixtures.verifier(
            roots: [AppleRootCertificates.appleRootCAG3], bundleID: .equals("com.tap4fun.bz.appstore"),
            environments: [.production, .sandbox])
        let failure = await verifier.verifyTransaction(try Vectors.text("real-apple/transaction-noenv-1.jws")).failure
        #expect(failure?.code == .wrongEnvironment)
        #expect(failure?.code.applePythonStatus == "INVALID_ENVIRONMENT")
    }

    @Test func realDataIsRefusedForAnotherApp() async throws {
        let verifier = Fixtures.verifier(
            roots: [AppleRootCertificates.appleRootCAG3], bundleID: .equals("com.nineton.taller"),
            appAppleID: .equals(1), environments: [.production])
        let failure = await verifier.verifyNotification(try Vectors.text("real-apple/notification-production-1.jws")).failure
        #expect(failure?.code == .wrongAppAppleID)
    }

    static let expectedRejections: [String: VerificationFailure.Code] = [
        "apple-testvector-testNotification.jws": .untrustedChain,
        "apple-testvector-transactionInfo.jws": .untrustedChain,
        "apple-testvector-renewalInfo.jws": .untrustedChain,
        "apple-testvector-missingX5CHeaderClaim.jws": .badCertificateChainLength,
        "apple-testvector-wrongBundleId.jws": .untrustedChain,
        "apple-testvector-legacyTransaction.jws": .malformedJWS,
        "redacted-gh73962-1.jws": .malformedCertificate,
        "redacted-gh73962-2.jws": .malformedCertificate,
        "truncated-sqltest-1.jws": .malformedJWS,  // its signature segment is cut mid-character
        "derived-truncated-2parts.jws": .malformedJWS,
        "derived-truncated-mid.jws": .malformedJWS,
        "derived-tampered-payload.jws": .badSignature,
        "derived-tampered-signature.jws": .badSignature,
        "derived-x5c-missing-intermediate.jws": .badCertificateChainLength,
        "derived-leaf-swapped.jws": .badSignature,
        "derived-der-signature.jws": .badSignature,
    ]

    static let rejected: [[String: String]] = (try? Vectors.manifest("real-apple-rejected/MANIFEST.tsv")) ?? []

    @Test func everyRejectedVectorHasAnExpectedCode() {
        #expect(Self.rejected.count == 16)
        #expect(Set(Self.rejected.compactMap { $0["file"] }) == Set(Self.expectedRejections.keys))
    }

    @Test(arguments: expectedRejections.keys.sorted())
    func rejectedVectorFailsWithItsCode(file: String) async throws {
        let row = try #require(Self.rejected.first { $0["file"] == file })
        // The manifest's last bracket names what Apple's Python run used: [kind/env/bundle].
        let used =
            (row["apple_py_verdict(kind/env/bundle used)"] ?? "")
            .split(separator: "[").last.map { $0.dropLast() }.map { $0.split(separator: "/").map(String.init) } ?? []
        try #require(used.count == 3)
        let verifier = Fixtures.verifier(
            roots: [AppleRootCertificates.appleRootCAG3], bundleID: .equals(used[2]), appAppleID: .any,
            environments: [AppStoreEnvironment(rawValue: used[1])])
        let jws = try Vectors.text("real-apple-rejected/\(file)")
        let failure: VerificationFailure? =
            switch used[0] {
            case "notification": await verifier.verifyNotification(jws).failure
            case "renewal": await verifier.verifyRenewalInfo(jws).failure
            default: await verifier.verifyTransaction(jws).failure
            }
        #expect(failure?.code == Self.expectedRejections[file], "\(failure?.description ?? "accepted")")
    }
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withFractions: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
