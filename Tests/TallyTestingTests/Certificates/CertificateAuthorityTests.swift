import Foundation
import TallyCore
import TallyTesting
import TallyVerify
import Testing

@Suite struct CertificateAuthorityTests {
    @Test func mintedChainVerifiesAgainstItsOwnRootOnly() async throws {
        let ca = try TestCertificateAuthority(profile: .init(issuedAt: Date(timeIntervalSince1970: 1_717_200_000)))
        var payload = TransactionPayload()
        payload.bundleID = "com.example"
        payload.environment = .sandbox
        payload.signedDate = Date(timeIntervalSince1970: 1_717_300_000)
        let jws = try ca.sign(payload)
        let trusting = SignedDataVerifier(
            .init(bundleID: .equals("com.example"), appAppleID: .any, environments: [.sandbox], rootCertificates: [ca.root]),
            now: { Date(timeIntervalSince1970: 1_717_300_000) })
        #expect(await trusting.verifyTransaction(jws).value != nil)
        let apple = SignedDataVerifier(
            .init(bundleID: .equals("com.example"), appAppleID: .any, environments: [.sandbox]),
            now: { Date(timeIntervalSince1970: 1_717_300_000) })
        #expect(await apple.verifyTransaction(jws).failure?.code == .untrustedChain)
    }
}
