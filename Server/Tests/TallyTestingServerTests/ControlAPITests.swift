import Foundation
import Hummingbird
import HummingbirdTesting
import TallyTestSupport
import TallyTesting
import TallyTestingServer
import Testing

/// The control API's wire format as scripts read it (the chaos driver, docs/simulated-app-store.md):
/// the exact bytes of small answers, the content type, and the errors.
@Suite struct ControlAPITests {
    let fixture: StoreFixture
    let app: Application<RouterResponder<BasicRequestContext>>

    init() throws {
        fixture = try StoreFixture()
        app = Application(router: AppStoreSimulatorRouter.build(store: fixture.store, credentials: ServerAPICredentials(issuerID: "i", keys: [:])))
    }

    static func text(_ response: TestResponse) -> String { String(buffer: response.body) }

    @Test func answersAreSnakeCaseJSONWithSortedKeys() async throws {
        try await app.test(.router) { client in
            let bought = try await client.execute(
                uri: "/control/purchases", method: .post, body: ByteBuffer(string: #"{"product_id":"com.tally.photo.credits.10"}"#))
            #expect(bought.headers[.contentType] == "application/json")
            let text = Self.text(bought)
            #expect(text.hasPrefix(#"{"result":"success","signed_transaction":""#), "\(text)")
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["transaction_id"] as? String)

            let consumption = try await client.execute(uri: "/control/transactions/\(id)/consumption", method: .get)
            #expect(Self.text(consumption) == #"{"count":0}"#)
            let requested = try await client.execute(uri: "/control/transactions/\(id)/consumption-request", method: .post)
            #expect(requested.status == .ok && Self.text(requested) == "{}")
            // A refund without a body, as the chaos driver sends it: a full refund for another reason.
            let refunded = try await client.execute(uri: "/control/transactions/\(id)/refund", method: .post)
            #expect(refunded.status == .ok)
            #expect(Self.text(refunded).contains(#""revoked":true"#))

            let status = Self.text(try await client.execute(uri: "/control/status", method: .get))
            let keys = ["ask_to_buy_enabled", "billing_grace_period_enabled", "billing_retry_on_renewal", "bundle_id", "environment"]
            let positions = keys.compactMap { status.range(of: "\"\($0)\"")?.lowerBound }
            #expect(positions.count == keys.count && positions == positions.sorted(), "\(status)")
        }
    }

    @Test func refusalsAreTheStoresCodeOrInvalidBody() async throws {
        try await app.test(.router) { client in
            let unknown = try await client.execute(uri: "/control/transactions/999999/finish", method: .post)
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/json")
            #expect(Self.text(unknown).hasPrefix(#"{"error":{"code":"not_found","message":"#), "\(Self.text(unknown))")
            // A body is required where members are: an empty one is refused, not read as {}.
            for uri in ["/control/time/advance", "/control/receipt/refresh", "/control/subscriptions/1/auto-renew"] {
                let empty = try await client.execute(uri: uri, method: .post)
                #expect(empty.status == .badRequest, "\(uri)")
                #expect(Self.text(empty).hasPrefix(#"{"error":{"code":"invalid_body","message":"the body is not the JSON this endpoint takes"#), "\(uri)")
            }
            let device = try await client.execute(uri: "/control/receipt", method: .get)
            #expect(device.status == .badRequest)
            #expect(Self.text(device).contains("device_id is required"))
        }
    }
}
