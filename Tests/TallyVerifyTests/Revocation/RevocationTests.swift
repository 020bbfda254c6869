import Foundation
import TallyCore
import TallyTesting
import TallyVerify
import Testing

/// Online revocation checks against an in-process OCSP responder.
@Suite struct RevocationTests {
    static let now = Fixtures.mintDate.addingTimeInterval(30 * 86_400)

    func setUp() throws -> (TestCertificateAuthority, TestOCSPResponder) {
        let ca = try Fixtures.authority { $0.ocspResponderURI = "http://ocsp.tally.test/ocsp" }
        return (ca, TestOCSPResponder(authority: ca, now: { Self.now }))
    }

    func verifier(_ ca: TestCertificateAuthority, _ responder: TestOCSPResponder, now: Date = Self.now) -> SignedDataVerifier {
        Fixtures.verifier(roots: [ca.root], now: now) { $0.revocation = RevocationChecking(transport: responder) }
    }

    @Test func goodChainPassesAndIsValidatedNow() async throws {
        let (ca, responder) = try setUp()
        let verified = try await verifier(ca, responder).verifyTransaction(try ca.sign(Fixtures.transaction())).get()
        #expect(verified.validationTime == Self.now)
        #expect(responder.requestCount == 2)  // leaf and intermediate
    }

    @Test func revokedLeafFails() async throws {
        let (ca, responder) = try setUp()
        responder.setLeafStatus(.revoked(at: Fixtures.mintDate.addingTimeInterval(86_400)))
        let failure = await verifier(ca, responder).verifyTransaction(try ca.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .certificateRevoked)
        #expect(failure?.isRetryable == false)
    }

    @Test func revokedIntermediateFails() async throws {
        let (ca, responder) = try setUp()
        responder.setIntermediateStatus(.revoked(at: Fixtures.mintDate))
        #expect(await verifier(ca, responder).verifyTransaction(try ca.sign(Fixtures.transaction())).failure?.code == .certificateRevoked)
    }

    @Test func unreachableResponderIsRetryable() async throws {
        let (ca, responder) = try setUp()
        responder.setReachable(false)
        let verifier = verifier(ca, responder)
        let failure = await verifier.verifyTransaction(try ca.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .revocationCheckUnavailable)
        #expect(failure?.isRetryable == true)
        #expect(failure?.code.appleSwiftStatus == "RETRYABLE_VERIFICATION_FAILURE")
        // Once it is back, the same data verifies.
        responder.setReachable(true)
        #expect(await verifier.verifyTransaction(try ca.sign(Fixtures.transaction())).value != nil)
    }

    @Test func aGoodAnswerIsReusedWhileFresh() async throws {
        let (ca, responder) = try setUp()
        let verifier = verifier(ca, responder)
        for id in 0..<5 {
            #expect(await verifier.verifyTransaction(try ca.sign(Fixtures.transaction(id: "\(id)"))).value != nil)
        }
        #expect(responder.requestCount == 2)
    }

    @Test func aStaleAnswerIsAskedAgain() async throws {
        let (ca, responder) = try setUp()
        let clock = ManualDate(Self.now)
        let verifier = Fixtures.verifier(roots: [ca.root]) { $0.revocation = RevocationChecking(transport: responder) }
        let moving = SignedDataVerifier(verifier.configuration, now: clock.closure)
        #expect(await moving.verifyTransaction(try ca.sign(Fixtures.transaction())).value != nil)
        clock.set(Self.now.addingTimeInterval(16 * 60))
        #expect(await moving.verifyTransaction(try ca.sign(Fixtures.transaction(id: "2"))).value != nil)
        #expect(responder.requestCount == 4)
    }

    /// With revocation asked for, a chain that names no responder is refused, not waved through.
    @Test func chainWithoutAResponderCannotPassARevocationCheck() async throws {
        let ca = try Fixtures.authority()
        let responder = TestOCSPResponder(authority: ca, now: { Self.now })
        let failure = await verifier(ca, responder).verifyTransaction(try ca.sign(Fixtures.transaction())).failure
        #expect(failure?.code == .revocationCheckFailed)
        #expect(responder.requestCount == 0)
    }

    @Test func offByDefault() async throws {
        let (ca, responder) = try setUp()
        responder.setLeafStatus(.revoked(at: Fixtures.mintDate))
        #expect(await Fixtures.verifier(roots: [ca.root]).verifyTransaction(try ca.sign(Fixtures.transaction())).value != nil)
        #expect(responder.requestCount == 0)
    }
}
