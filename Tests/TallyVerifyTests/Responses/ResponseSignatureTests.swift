import Crypto
import Foundation
import Testing

@testable import TallyVerify

/// Signed answers: what verifies, and each reason one does not.
@Suite struct ResponseSignatureTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    let root = Curve25519.Signing.PrivateKey()
    let nonce = Data((0..<24).map { UInt8($0) })
    let body = Data(#"{"balances":[{"currency":"credits","available":2}]}"#.utf8)

    func verifier(_ roots: [Curve25519.Signing.PrivateKey]? = nil, at time: Date = start) throws -> ResponseVerifier {
        try ResponseVerifier(rootKeys: (roots ?? [root]).map { $0.publicKey.rawRepresentation.base64EncodedString() }, now: { time })
    }

    func key(days: Double = 30, from root: Curve25519.Signing.PrivateKey? = nil) throws -> ResponseSigningKey {
        try ResponseSigningKey.issue(root: root ?? self.root, expiresAt: Self.start.addingTimeInterval(days * 86_400))
    }

    var signedAt: Int64 { Int64(Self.start.timeIntervalSince1970) }

    func request(
        nonce: Data? = nil, method: String = "POST", target: String = "/v1/me/spend", body: Data = Data(#"{"amount":1}"#.utf8), userID: String = "u1"
    ) -> SignedRequest {
        SignedRequest(nonce: nonce ?? self.nonce, method: method, target: target, body: body, userID: userID)
    }

    @Test func anAnswerVerifiesOnlyAsSigned() throws {
        let key = try key()
        let signature = try key.sign(request(), signedAt: signedAt, body: body)
        let verifier = try verifier()
        #expect(verifier.check(signature: signature, signedAt: String(signedAt), request: request(), body: body) == nil)

        var changed = body
        changed[changed.count - 3] = UInt8(ascii: "9")
        #expect(verifier.check(signature: signature, signedAt: String(signedAt), request: request(), body: changed) == .badSignature)
        #expect(
            verifier.check(signature: signature, signedAt: String(signedAt), request: request(nonce: Data(repeating: 7, count: 24)), body: body)
                == .badSignature,
            "another request's answer (replayed)")
        #expect(verifier.check(signature: signature, signedAt: String(signedAt), request: request(target: "/v1/me/ledger"), body: body) == .badSignature)
        #expect(
            verifier.check(signature: signature, signedAt: String(signedAt + 1), request: request(), body: body) == .badSignature,
            "the time is signed")
    }

    @Test func eachRefusalSaysWhy() throws {
        let key = try key()
        let signature = try key.sign(request(), signedAt: signedAt, body: body)
        let time = String(signedAt)
        #expect(try verifier().check(signature: nil, signedAt: time, request: request(), body: body) == .unsigned)
        #expect(try verifier().check(signature: signature, signedAt: nil, request: request(), body: body) == .unsigned)
        for broken in ["", "not base64!", Data([2] + [UInt8](repeating: 1, count: 168)).base64EncodedString(), String(signature.dropLast(4))] {
            #expect(try verifier().check(signature: broken, signedAt: time, request: request(), body: body) == .malformed, "\(broken)")
        }
        #expect(try verifier().check(signature: signature, signedAt: "soon", request: request(), body: body) == .malformed)
        for hostile in ["-9223372036854775808", "-1", "9223372036854775807", String(1 << 40)] {
            #expect(try verifier().check(signature: signature, signedAt: hostile, request: request(), body: body) == .malformed, "\(hostile)")
        }
        // From the future beyond five minutes.
        #expect(try verifier(at: Self.start.addingTimeInterval(-301)).check(signature: signature, signedAt: time, request: request(), body: body) == .stale)
        // Another server's root.
        #expect(
            try verifier([Curve25519.Signing.PrivateKey()]).check(signature: signature, signedAt: time, request: request(), body: body)
                == .unknownRoot)
        // An old answer, or a wrong clock, beyond five minutes.
        #expect(
            try verifier(at: Self.start.addingTimeInterval(301)).check(signature: signature, signedAt: time, request: request(), body: body) == .stale
        )
        #expect(
            try verifier(at: Self.start.addingTimeInterval(299)).check(signature: signature, signedAt: time, request: request(), body: body) == nil)
    }

    @Test func anIntermediateSignsUntilItsExpiryAndNotASecondLonger() throws {
        let key = try ResponseSigningKey.issue(root: root, expiresAt: Self.start.addingTimeInterval(60))
        let signature = try key.sign(request(), signedAt: signedAt, body: body)
        #expect(
            try verifier(at: Self.start.addingTimeInterval(60)).check(signature: signature, signedAt: String(signedAt), request: request(), body: body) == nil)
        #expect(
            try verifier(at: Self.start.addingTimeInterval(61)).check(signature: signature, signedAt: String(signedAt), request: request(), body: body)
                == .expiredKey)
    }

    @Test func theTargetIsTheAPIPathAndQuery() {
        #expect(ResponseSignature.target(path: "/v1/me", query: nil) == "/v1/me")
        #expect(ResponseSignature.target(path: "/tally/v1/me/ledger", query: "limit=200&cursor=5") == "/v1/me/ledger?limit=200&cursor=5")
        #expect(ResponseSignature.target(path: "/v1/me/orders/a%20b/fail", query: "") == "/v1/me/orders/a%20b/fail")
    }

    @Test func anExpiredIntermediateNoLongerSigns() throws {
        let expired = try ResponseSigningKey.issue(root: root, expiresAt: Self.start.addingTimeInterval(-3600))
        let signature = try expired.sign(request(), signedAt: signedAt, body: body)
        #expect(try verifier().check(signature: signature, signedAt: String(signedAt), request: request(), body: body) == .expiredKey)
        // Its expiry is signed by the root: moving it later breaks the root's signature.
        var blob = [UInt8](Data(base64Encoded: signature)!)
        blob[40] &+= 100
        #expect(
            try verifier().check(signature: Data(blob).base64EncodedString(), signedAt: String(signedAt), request: request(), body: body)
                == .unknownRoot)
    }

    @Test func aNewIntermediateNeedsNoNewApp() throws {
        let verifier = try verifier()
        for _ in 0..<2 {
            let rotated = try key(days: 90)
            let signature = try rotated.sign(request(), signedAt: signedAt, body: body)
            #expect(verifier.check(signature: signature, signedAt: String(signedAt), request: request(), body: body) == nil)
        }
        // While a root is replaced, the app trusts both.
        let nextRoot = Curve25519.Signing.PrivateKey()
        let fromNext = try key(from: nextRoot).sign(request(), signedAt: signedAt, body: body)
        #expect(verifier.check(signature: fromNext, signedAt: String(signedAt), request: request(), body: body) == .unknownRoot)
        #expect(try self.verifier([root, nextRoot]).check(signature: fromNext, signedAt: String(signedAt), request: request(), body: body) == nil)
    }

    @Test func theKeyFileKeepsTheKey() throws {
        let key = try key()
        let read = try ResponseSigningKey(fileData: try key.fileData())
        #expect(read.expiresAt == key.expiresAt)
        let signature = try read.sign(request(), signedAt: signedAt, body: body)
        #expect(try verifier().check(signature: signature, signedAt: String(signedAt), request: request(), body: body) == nil)
        #expect(throws: (any Error).self) { try ResponseSigningKey(fileData: Data("{}".utf8)) }
        #expect(throws: (any Error).self) { try ResponseVerifier(rootKeys: ["c2hvcnQ="]) }
    }

    @Test func nonces() {
        #expect(ResponseSignature.nonceBytes(ResponseSignature.makeNonce())?.count == 24)
        #expect(ResponseSignature.nonceBytes(Data(count: 8).base64EncodedString()) == nil)
        #expect(ResponseSignature.nonceBytes(Data(count: 65).base64EncodedString()) == nil)
        #expect(ResponseSignature.nonceBytes("%%%") == nil)
        #expect(ResponseSignature.makeNonce() != ResponseSignature.makeNonce())
    }
}
