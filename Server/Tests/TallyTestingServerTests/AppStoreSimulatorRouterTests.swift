import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyTestingServer
import TallyVerify
import Testing

/// The simulator's HTTP routes, run in memory with Hummingbird's test client.
@Suite struct AppStoreSimulatorRouterTests {
    let fixture: StoreFixture
    let key = P256.Signing.PrivateKey()
    let credentials: ServerAPICredentials
    let app: Application<RouterResponder<BasicRequestContext>>

    init() throws {
        fixture = try StoreFixture()
        credentials = ServerAPICredentials(issuerID: "issuer", keys: ["KEY1": key.publicKey])
        app = Application(router: AppStoreSimulatorRouter.build(store: fixture.store, credentials: credentials))
    }

    static func object(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any] ?? [:]
    }

    @Test func buyThroughTheControlAPIAndVerify() async throws {
        try await app.test(.router) { client in
            let body = #"{"product_id":"com.tally.photo.credits.10","app_account_token":"5c0b6f2e-8d5e-4c55-9a38-2f1c0d9e7b41","quantity":2}"#
            let response = try await client.execute(uri: "/control/purchases", method: .post, body: ByteBuffer(string: body))
            #expect(response.status == .ok)
            let result = Self.object(response.body)
            #expect(result["result"] as? String == "success")
            let jws = try #require(result["signed_transaction"] as? String)
            let verified = try await fixture.verifier.verifyTransaction(jws).get()
            #expect(verified.payload.quantity == 2)
            #expect(verified.payload.appAccountToken == "5c0b6f2e-8d5e-4c55-9a38-2f1c0d9e7b41")
        }
    }

    @Test func askToBuyApproveAndDeclineOverHTTP() async throws {
        try await app.test(.router) { client in
            let first = Self.object(
                try await client.execute(
                    uri: "/control/purchases", method: .post, body: ByteBuffer(string: #"{"product_id":"com.tally.echo.3hours","outcome":"ask_to_buy"}"#)
                ).body)
            #expect(first["result"] as? String == "pending")
            let id = try #require(first["pending_id"] as? String)
            let approved = try await client.execute(uri: "/control/pending/\(id)/approve", method: .post)
            #expect(approved.status == .ok)
            let again = try await client.execute(uri: "/control/pending/\(id)/approve", method: .post)
            #expect(again.status == .notFound)
            #expect((Self.object(again.body)["error"] as? [String: Any])?["code"] as? String == "not_found")
        }
    }

    @Test func refundAdvanceAndListOverHTTP() async throws {
        let bought = try await fixture.buy("com.tally.pro.monthly")
        try await app.test(.router) { client in
            let refund = try await client.execute(
                uri: "/control/transactions/\(bought.transactionID)/refund", method: .post, body: ByteBuffer(string: #"{"reason":"app_issue"}"#))
            #expect(refund.status == .ok)
            #expect(Self.object(refund.body)["revoked"] as? Bool == true)
            let advanced = try await client.execute(uri: "/control/time/advance", method: .post, body: ByteBuffer(string: #"{"seconds":86400}"#))
            #expect(Self.object(advanced.body)["now"] as? String == "2026-01-02T00:00:00Z")
            let list = try await client.execute(uri: "/control/transactions?unfinished=true", method: .get)
            let items = (try JSONSerialization.jsonObject(with: Data(list.body.readableBytesView))) as? [[String: Any]]
            #expect(items?.count == 1)
            let notifications = try await client.execute(uri: "/control/notifications", method: .get)
            let types = ((try JSONSerialization.jsonObject(with: Data(notifications.body.readableBytesView))) as? [[String: Any]])?
                .compactMap { $0["notification_type"] as? String }
            #expect(types == ["SUBSCRIBED", "REFUND"])
        }
    }

    @Test func badControlRequestsGetClearErrors() async throws {
        try await app.test(.router) { client in
            let notJSON = try await client.execute(uri: "/control/purchases", method: .post, body: ByteBuffer(string: "{"))
            #expect(notJSON.status == .badRequest)
            #expect((Self.object(notJSON.body)["error"] as? [String: Any])?["code"] as? String == "invalid_body")
            let unknown = try await client.execute(uri: "/control/purchases", method: .post, body: ByteBuffer(string: #"{"product_id":"nope"}"#))
            #expect((Self.object(unknown.body)["error"] as? [String: Any])?["code"] as? String == "product_unavailable")
            let badToken = try await client.execute(
                uri: "/control/purchases", method: .post, body: ByteBuffer(string: #"{"product_id":"com.tally.echo.3hours","app_account_token":"x"}"#))
            #expect(badToken.status == .badRequest)
            #expect((Self.object(badToken.body)["error"] as? [String: Any])?["code"] as? String == "invalid_body")
            let negative = try await client.execute(uri: "/control/time/advance", method: .post, body: ByteBuffer(string: #"{"seconds":-5}"#))
            #expect(negative.status == .badRequest)
            #expect(await fixture.store.now == StoreFixture.start)
        }
    }

    @Test func fakeServerAPIOverHTTPChecksTheToken() async throws {
        let bought = try await fixture.buy("com.tally.echo.3hours")
        let token = try ServerAPIToken.sign(issuerID: "issuer", keyID: "KEY1", bundleID: StoreFixture.bundleID, key: key, issuedAt: StoreFixture.start)
        try await app.test(.router) { client in
            let unauthorized = try await client.execute(uri: "/inApps/v1/transactions/\(bought.transactionID)", method: .get)
            #expect(unauthorized.status == .unauthorized)
            let ok = try await client.execute(
                uri: "/inApps/v1/transactions/\(bought.transactionID)", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(ok.status == .ok)
            let jws = try #require(Self.object(ok.body)["signedTransactionInfo"] as? String)
            #expect(try await fixture.verifier.verifyTransaction(jws).get().payload.transactionID == bought.transactionID)
            let history = try await client.execute(
                uri: "/inApps/v2/history/\(bought.transactionID)?productType=CONSUMABLE&sort=DESCENDING", method: .get,
                headers: [.authorization: "Bearer \(token)"])
            #expect((Self.object(history.body)["signedTransactions"] as? [String])?.count == 1)
        }
    }
}

/// Notifications delivered over real HTTP to a server on loopback.
@Suite struct LiveNotificationDeliveryTests {
    actor Received {
        var payloads: [String] = []
        var failuresLeft: Int
        init(failuresLeft: Int) { self.failuresLeft = failuresLeft }
        func receive(_ payload: String) -> Bool {
            if failuresLeft > 0 {
                failuresLeft -= 1
                return false
            }
            payloads.append(payload)
            return true
        }
    }

    @Test func notificationsArriveOverHTTPAndAreRetried() async throws {
        let received = Received(failuresLeft: 1)
        let router = Router()
        router.post("/notifications") { request, _ -> HTTPResponse.Status in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let payload = ((try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: String])?["signedPayload"] ?? ""
            return await received.receive(payload) ? .ok : .serviceUnavailable
        }
        let receiver = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await receiver.test(.live) { client in
            var configuration = SimulatedAppStore.Configuration(catalog: StoreFixture.catalog, bundleID: StoreFixture.bundleID, appAppleID: 6_450_000_001)
            configuration.notificationURL = URL(string: "http://127.0.0.1:\(client.port!)/notifications")
            let store = try SimulatedAppStore(
                configuration: configuration, authority: StoreFixture.authority, time: .manual(start: StoreFixture.start),
                transport: URLSessionNotificationTransport())
            _ = try await store.purchase("com.tally.echo.3hours")
            try await store.tick()
            #expect(await received.payloads.isEmpty)
            try await store.advance(by: .seconds(3600))
            let payloads = await received.payloads
            #expect(payloads.count == 1)
            let verifier = SignedDataVerifier(
                .init(
                    bundleID: .equals(StoreFixture.bundleID), appAppleID: .equals(6_450_000_001), environments: [.sandbox],
                    rootCertificates: [StoreFixture.authority.root]), now: { StoreFixture.start })
            #expect(try await verifier.verifyNotification(payloads[0]).get().payload.notificationType == .oneTimeCharge)
            #expect(await store.notifications.first?.attempts.map(\.result) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"])
        }
    }
}
