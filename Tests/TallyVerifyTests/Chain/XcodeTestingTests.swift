import Foundation
import TallyCore
import TallyTesting
import TallyVerify
import Testing
import X509

/// Xcode's StoreKit testing signs with a self-signed certificate made on the developer's Mac:
/// refused unless the app gives that very certificate, the documented `#if DEBUG` way.
struct XcodeTestingTests {
    /// A Mac's StoreKit testing certificate: a lone self-signed P-256 certificate, as `x5c`.
    static let mac = try! Fixtures.authority()
    static let otherMac = try! Fixtures.authority()

    /// A purchase made in Xcode on `mac`: an Xcode-environment transaction signed by its certificate alone.
    static func xcodePurchase(on authority: TestCertificateAuthority, environment: AppStoreEnvironment = .xcode) throws -> String {
        var payload = Fixtures.transaction(id: "0")
        payload.environment = environment
        let header = try TestCertificateAuthority.headerSegment(x5c: [authority.root])
        return try TestCertificateAuthority.sign(json: AppStoreJSON.encoder().encode(payload), headerSegment: header, key: authority.rootKey)
    }

    static func configuration() -> SignedDataVerifier.Configuration {
        SignedDataVerifier.Configuration(bundleID: .equals("com.example"), appAppleID: .equals(1234), environments: [.production, .sandbox])
    }

    @Test func anXcodePurchaseIsRefusedByAnAppsDefaultConfiguration() async throws {
        let verifier = SignedDataVerifier(Self.configuration(), now: { Fixtures.effectiveDate })
        #expect(await verifier.verifyTransaction(try Self.xcodePurchase(on: Self.mac)).failure?.code == .badCertificateChainLength)
    }

    @Test func acceptingTheXcodeEnvironmentAloneTrustsNoSelfSignedCertificate() async throws {
        var configuration = Self.configuration()
        configuration.environments.insert(.xcode)
        let verifier = SignedDataVerifier(configuration, now: { Fixtures.effectiveDate })
        let failure = await verifier.verifyTransaction(try Self.xcodePurchase(on: Self.mac)).failure
        #expect(failure?.code == .untrustedChain)
        #expect(failure?.reason.contains("acceptXcodeTesting") == true)
    }

    @Test func theCertificateSavedFromXcodeIsAcceptedTheDebugWay() async throws {
        var configuration = Self.configuration()
        try configuration.acceptXcodeTesting(certificate: Data(try TestCertificateAuthority.der(Self.mac.root)))
        let verifier = SignedDataVerifier(configuration, now: { Fixtures.effectiveDate })
        let verified = try await verifier.verifyTransaction(try Self.xcodePurchase(on: Self.mac)).get()
        #expect(verified.origin == .xcodeSelfSigned)
        #expect(verified.payload.environment == .xcode)
        // Another Mac's certificate, and that certificate vouching for non-Xcode data, stay refused.
        #expect(await verifier.verifyTransaction(try Self.xcodePurchase(on: Self.otherMac)).failure?.code == .untrustedChain)
        #expect(
            await verifier.verifyTransaction(try Self.xcodePurchase(on: Self.mac, environment: .production)).failure?.code == .untrustedChain)
    }

    @Test func bytesThatAreNotACertificateAreRefusedWithACode() throws {
        var configuration = Self.configuration()
        #expect(throws: VerificationFailure(.malformedCertificate, "")) { try configuration.acceptXcodeTesting(certificate: Data("nope".utf8)) }
        #expect(configuration.environments == [.production, .sandbox])
    }
}
