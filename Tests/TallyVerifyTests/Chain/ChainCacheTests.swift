import Foundation
import TallyCore
import TallyTesting
import Testing

@testable import TallyVerify

@Suite struct ChainCacheTests {
    @Test func aStreamOnOneChainCachesItOnce() async throws {
        let ca = try Fixtures.authority()
        let verifier = Fixtures.verifier(roots: [ca.root])
        for id in 0..<20 {
            #expect(await verifier.verifyTransaction(try ca.sign(Fixtures.transaction(id: "\(id)"))).value != nil)
        }
        #expect(verifier.cachedChainCount == 1)
    }

    @Test func aCachedChainIsStillCheckedAgainstEachPayloadsTime() async throws {
        let ca = try Fixtures.authority()
        let verifier = Fixtures.verifier(roots: [ca.root])
        #expect(await verifier.verifyTransaction(try ca.sign(Fixtures.transaction())).value != nil)
        #expect(verifier.cachedChainCount == 1)

        var late = Fixtures.transaction(id: "2")
        late.signedDate = ca.leaf.notValidAfter.addingTimeInterval(60)
        #expect(await verifier.verifyTransaction(try ca.sign(late)).failure?.code == .certificateExpired)
        var early = Fixtures.transaction(id: "3")
        early.signedDate = ca.leaf.notValidBefore.addingTimeInterval(-60)
        #expect(await verifier.verifyTransaction(try ca.sign(early)).failure?.code == .certificateNotYetValid)
    }

    @Test func aCachedChainStillNeedsAValidSignature() async throws {
        let ca = try Fixtures.authority()
        let verifier = Fixtures.verifier(roots: [ca.root])
        let jws = try ca.sign(Fixtures.transaction())
        #expect(await verifier.verifyTransaction(jws).value != nil)
        var parts = Fixtures.segments(jws)
        parts[1] = Fixtures.encodedJSON(["transactionId": "forged", "bundleId": "com.example", "environment": "Sandbox"])
        #expect(await verifier.verifyTransaction(parts.joined(separator: ".")).failure?.code == .badSignature)
    }

    @Test func theCacheIsBoundedAndAnEvictedChainIsValidatedAgain() async throws {
        var authorities: [TestCertificateAuthority] = []
        for _ in 0..<3 { authorities.append(try Fixtures.authority()) }
        let verifier = Fixtures.verifier(roots: authorities.map(\.root)) { $0.chainCacheCapacity = 2 }
        for ca in authorities {
            #expect(await verifier.verifyTransaction(try ca.sign(Fixtures.transaction())).value != nil)
        }
        #expect(verifier.cachedChainCount == 2)
        #expect(verifier.chainValidations == 3)
        // The least recently used chain (the first) was evicted: verifying with it validates again.
        #expect(await verifier.verifyTransaction(try authorities[0].sign(Fixtures.transaction(id: "2"))).value != nil)
        #expect(verifier.chainValidations == 4)
        // The most recent one is still cached.
        #expect(await verifier.verifyTransaction(try authorities[2].sign(Fixtures.transaction(id: "3"))).value != nil)
        #expect(verifier.chainValidations == 4)
    }

    @Test func rejectedChainsAreNotCached() async throws {
        let ca = try Fixtures.authority()
        let verifier = Fixtures.verifier(roots: [AppleRootCertificates.appleRootCAG3])
        #expect(await verifier.verifyTransaction(try ca.sign(Fixtures.transaction())).failure?.code == .untrustedChain)
        #expect(verifier.cachedChainCount == 0)
    }

    @Test func aDisabledCacheStillVerifies() async throws {
        let ca = try Fixtures.authority()
        let verifier = Fixtures.verifier(roots: [ca.root]) { $0.chainCacheCapacity = 0 }
        #expect(await verifier.verifyTransaction(try ca.sign(Fixtures.transaction())).value != nil)
        #expect(await verifier.verifyTransaction(try ca.sign(Fixtures.transaction(id: "2"))).value != nil)
        #expect(verifier.cachedChainCount == 0)
    }

    @Test func concurrentVerificationsAgree() async throws {
        let ca = try Fixtures.authority()
        let verifier = Fixtures.verifier(roots: [ca.root])
        let jws = try (0..<64).map { try ca.sign(Fixtures.transaction(id: "\($0)")) }
        let valid = await withTaskGroup(of: Bool.self) { group in
            for token in jws { group.addTask { await verifier.verifyTransaction(token).value != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(valid == 64)
        #expect(verifier.cachedChainCount == 1)
    }
}
