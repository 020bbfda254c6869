import Crypto
import Foundation
import TallyCore
import TallyKit
import TallyServer
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server signs its answers to `/v1/me…`; TallyKit checks them, and in its enforced mode
/// takes nothing from an answer that was changed, replayed, unsigned or signed by a key it
/// does not trust.
@Suite struct SignedResponseTests {
    /// A network in the middle: passes answers on, or changes them.
    final class Middleman: HTTPTransport, @unchecked Sendable {
        enum Mode { case pass, tamper, replay, strip, rewriteKey(String, String), swapToken(String) }
        private let lock = NSLock()
        private let real = URLSessionTransport()
        private var recorded: [String: (status: Int, headers: [String: String], body: Data)] = [:]
        var mode: Mode {
            get { lock.withLock { _mode } }
            set { lock.withLock { _mode = newValue } }
        }
        private var _mode = Mode.pass

        func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: Data) {
            var request = request
            let path = request.url?.path ?? ""
            switch mode {
            case .replay:
                if let old = lock.withLock({ recorded[path] }) { return old }
            case .rewriteKey(let from, let to):
                // Another idempotency key than the app's: the server answers for that one.
                request.httpBody = request.httpBody.map { Data(String(decoding: $0, as: UTF8.self).replacingOccurrences(of: from, with: to).utf8) }
            case .swapToken(let token):
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            default:
                break
            }
            var answer = try await real.send(request)
            lock.withLock { recorded[path] = answer }
            switch mode {
            case .tamper:
                // More credits than the server said.
                answer.body = Data(String(decoding: answer.body, as: UTF8.self).replacingOccurrences(of: "\"available\":", with: "\"available\":9").utf8)
            case .strip:
                answer.headers[ResponseSignature.signatureHeader.lowercased()] = nil
            default:
                break
            }
            return answer
        }
    }

    static let root = Curve25519.Signing.PrivateKey()

    static func verifier(_ time: ManualDate, roots: [Curve25519.Signing.PrivateKey] = [root]) throws -> ResponseVerifier {
        try ResponseVerifier(rootKeys: roots.map { $0.publicKey.rawRepresentation.base64EncodedString() }, now: { time.now })
    }

    static func credits(_ snapshot: AccountSnapshot) -> Int64 { snapshot.balance("credits").available }

    @Test func theEnforcedModeRefusesAChangedReplayedOrUnsignedAnswer() async throws {
        let device = try await Device()
        let key = try ResponseSigningKey.issue(root: Self.root, expiresAt: device.now.addingTimeInterval(30 * 86_400))
        try await LiveServer.run(time: device.time, responseSigningKey: key) { server in
            let credentials = try await ServerDelivery.register(baseURL: server.baseURL)
            let middleman = Middleman()
            let delivery = ServerDelivery(
                baseURL: server.baseURL, credentials: credentials, transport: middleman, responseCheck: .enforced(try Self.verifier(device.time)))
            let genuine = try await delivery.account(storeEntitlements: [], renewals: [])
            #expect(Self.credits(genuine) == 2 && genuine.trust == ResponseTrust(verified: true, failure: nil))

            for mode in [Middleman.Mode.tamper, .replay, .strip] {
                middleman.mode = mode
                await #expect(throws: TallyError(.responseNotTrusted, "")) { try await delivery.account(storeEntitlements: [], renewals: []) }
            }
            middleman.mode = .pass

            // A purchase whose answer is changed on the way is not taken as delivered; the
            // genuine answer, when it comes, is the server's one credit, not a second.
            let ticket = try await delivery.prepare(productID: "com.tally.photo.credits.10")
            guard
                case .success(let signed) = try await device.appStore.purchase(
                    "com.tally.photo.credits.10", options: .init(appAccountToken: ticket.appAccountToken))
            else { throw KitTestFailure("expected a paid transaction") }
            let transaction = try StoreTransaction(jws: signed.jws)
            middleman.mode = .tamper
            await #expect(throws: TallyError(.responseNotTrusted, "")) { try await delivery.deliver(transaction, ticket: ticket) }
            middleman.mode = .pass
            let receipt = try await delivery.deliver(transaction, ticket: ticket)
            #expect(receipt.replayed)
            #expect(Self.credits(try await delivery.account(storeEntitlements: [], renewals: [])) == 12)

            // The informational mode keeps going and says what it found.
            let watching = ServerDelivery(
                baseURL: server.baseURL, credentials: credentials, transport: middleman, responseCheck: .informational(try Self.verifier(device.time)))
            middleman.mode = .tamper
            let doubtful = try await watching.account(storeEntitlements: [], renewals: [])
            #expect(doubtful.trust == ResponseTrust(verified: false, failure: .badSignature))
            middleman.mode = .pass
            #expect(try await watching.account(storeEntitlements: [], renewals: []).trust?.verified == true)

            // Answers outside /v1/me (the catalog) are not signed, and not asked to be.
            #expect(try await delivery.catalog(language: .english).isEmpty == false)

            // The answer to a rewritten request: a spend whose key is swapped for an earlier
            // spend's gets that spend's (signed, genuine) replay, which is not this request's.
            middleman.mode = .pass
            _ = try await delivery.spend(SpendOrder(currency: "credits", amount: 1, idempotencyKey: "first", reference: "r"))
            middleman.mode = .rewriteKey("\"second\"", "\"first\"")
            await #expect(throws: TallyError(.responseNotTrusted, "")) {
                try await delivery.spend(SpendOrder(currency: "credits", amount: 1, idempotencyKey: "second", reference: "r"))
            }
            // Another user's answer (their token put in place of this user's).
            let other = try await ServerDelivery.register(baseURL: server.baseURL)
            middleman.mode = .swapToken(other.userToken)
            await #expect(throws: TallyError(.responseNotTrusted, "")) { try await delivery.account(storeEntitlements: [], renewals: []) }
            middleman.mode = .pass
            #expect(try await delivery.spend(SpendOrder(currency: "credits", amount: 1, idempotencyKey: "second", reference: "r")).replayed == false)
        }
    }

    @Test func keysTheAppDoesNotTrustAreRefused() async throws {
        let device = try await Device()
        let otherRoot = Curve25519.Signing.PrivateKey()
        let expired = try ResponseSigningKey.issue(root: Self.root, expiresAt: device.now.addingTimeInterval(-60))
        let foreign = try ResponseSigningKey.issue(root: otherRoot, expiresAt: device.now.addingTimeInterval(86_400))
        let rotated = try ResponseSigningKey.issue(root: Self.root, expiresAt: device.now.addingTimeInterval(90 * 86_400))
        // A server whose key has expired stops signing (and logs it); the app's own check of an
        // expired key is in ResponseSignatureTests.
        let cases: [(ResponseSigningKey?, ResponseVerifier.Failure?)] = [(expired, .unsigned), (foreign, .unknownRoot), (nil, .unsigned), (rotated, nil)]
        for (key, expected) in cases {
            try await LiveServer.run(time: device.time, responseSigningKey: key) { server in
                let credentials = try await ServerDelivery.register(baseURL: server.baseURL)
                let delivery = ServerDelivery(
                    baseURL: server.baseURL, credentials: credentials, responseCheck: .informational(try Self.verifier(device.time)))
                let trust = try await delivery.account(storeEntitlements: [], renewals: []).trust
                #expect(trust?.failure == expected, "\(String(describing: expected))")
                let enforcing = ServerDelivery(baseURL: server.baseURL, credentials: credentials, responseCheck: .enforced(try Self.verifier(device.time)))
                if expected == nil {
                    #expect(Self.credits(try await enforcing.account(storeEntitlements: [], renewals: [])) == 2)
                } else {
                    await #expect(throws: TallyError(.responseNotTrusted, "")) { try await enforcing.account(storeEntitlements: [], renewals: []) }
                }
            }
        }
        // An app that trusts both roots (while one replaces the other) takes either.
        try await LiveServer.run(time: device.time, responseSigningKey: foreign) { server in
            let credentials = try await ServerDelivery.register(baseURL: server.baseURL)
            let both = ServerDelivery(
                baseURL: server.baseURL, credentials: credentials, responseCheck: .enforced(try Self.verifier(device.time, roots: [Self.root, otherRoot])))
            #expect(Self.credits(try await both.account(storeEntitlements: [], renewals: [])) == 2)
        }
    }
}
