import Foundation
import HummingbirdTesting
import TallyCore
import TallyTestSupport
import Testing

@testable import TallyServer

/// `GET /v1/admin/metrics`: the report of a window, its parameters read strictly.
@Suite struct AdminMetricsTests {
    /// A query and the parameter its refusal must name.
    struct BadQuery: Sendable, CustomTestStringConvertible {
        let query: String
        let parameter: String
        var testDescription: String { query }
    }

    static let badQueries = [
        BadQuery(query: "from=2026-13-01", parameter: "from"),
        BadQuery(query: "from=yesterday", parameter: "from"),
        BadQuery(query: "from=", parameter: "from"),
        BadQuery(query: "through=2026-02-30", parameter: "through"),
        BadQuery(query: "through=2026-3-1", parameter: "through"),
        BadQuery(query: "from=2026-03-10&through=2026-03-01", parameter: "from"),
        BadQuery(query: "from=2027-01-01", parameter: "from"),
        BadQuery(query: "from=2025-01-01&through=2026-03-01", parameter: "from and through"),
        BadQuery(query: "environment=production", parameter: "environment"),
        BadQuery(query: "environment=LocalTesting", parameter: "environment"),
        BadQuery(query: "environment=", parameter: "environment"),
        BadQuery(query: "product_id=", parameter: "product_id"),
        BadQuery(query: "product_id=a%00b", parameter: "product_id"),
        BadQuery(query: "product_id=" + String(repeating: "p", count: 129), parameter: "product_id"),
        BadQuery(query: "subscription_group=", parameter: "subscription_group"),
        BadQuery(query: "subscription_group=%07", parameter: "subscription_group"),
    ]

    @Test(arguments: badQueries)
    func eachBadParameterIsRefusedByName(_ bad: BadQuery) async throws {
        let api = try await API()
        try await api.test { client in
            let response = try await client.get("/v1/admin/metrics?\(bad.query)", token: API.secret)
            #expect(response.status == .badRequest)
            #expect(API.errorCode(response) == "invalid_request")
            let message = (API.json(response)["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.hasPrefix(bad.parameter + " "), "\(message)")
        }
    }

    @Test func theReportNeedsTheSecretKey() async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            #expect(try await client.get("/v1/admin/metrics", token: nil).status == .unauthorized)
            #expect(try await client.get("/v1/admin/metrics", token: user.userToken).status == .unauthorized)
        }
    }

    @Test(arguments: Backend.available)
    func aPurchaseShowsInTheRevenueOfItsEnvironment(_ backend: Backend) async throws {
        let api = try await API(backend)
        let harness = api.harness
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        let price = try #require(verified.payload.price)
        let currency = try #require(verified.payload.currency)
        try await api.test { client in
            // The default window: the 30 days through today (the harness's clock).
            let sandbox = try API.decode(MetricsReport.self, try await client.get("/v1/admin/metrics?environment=Sandbox", token: API.secret))
            #expect(sandbox.environment == "Sandbox" && sandbox.days.count == 30)
            #expect(sandbox.from == Harness.start.addingTimeInterval(-29 * 86_400) && sandbox.to == Harness.start.addingTimeInterval(86_400))
            #expect(
                sandbox.revenue == [
                    .init(day: Harness.start, currency: currency, purchases: 1, milliunits: price, refunds: 0, refundedMilliunits: 0)
                ])
            // The sandbox is read apart: Production (the default) has none of it.
            let production = try API.decode(MetricsReport.self, try await client.get("/v1/admin/metrics", token: API.secret))
            #expect(production.environment == "Production" && production.revenue.isEmpty)
            // Another product's report has none of it either.
            let other = try API.decode(
                MetricsReport.self,
                try await client.get(
                    "/v1/admin/metrics?environment=Sandbox&from=2026-03-01&through=2026-03-01&product_id=com.tally.photo.credits.10", token: API.secret))
            #expect(other.days.count == 1 && other.revenue.isEmpty)

            // The members are the ones the OpenAPI document states, at each level.
            let spec = try String(contentsOf: Repository.server.appendingPathComponent("Sources/TallyServer/Resources/openapi.yaml"), encoding: .utf8)
            let document = try #require(try YAMLSubset.parse(spec) as? [String: Any])
            let schema = try #require(((document["components"] as? [String: Any])?["schemas"] as? [String: Any])?["MetricsReport"] as? [String: Any])
            let properties = try #require(schema["properties"] as? [String: Any])
            let answer = API.json(
                try await client.get("/v1/admin/metrics?environment=Sandbox&product_id=com.tally.photo.credits.50", token: API.secret))
            #expect(Set(answer.keys) == Set(properties.keys))
            for (member, sample) in [("days", answer["days"]), ("revenue", answer["revenue"])] {
                let documented = try #require(((properties[member] as? [String: Any])?["items"] as? [String: Any])?["properties"] as? [String: Any])
                let first = try #require((sample as? [Any])?.first as? [String: Any])
                #expect(Set(first.keys) == Set(documented.keys), "\(member)")
            }
        }
    }
}
