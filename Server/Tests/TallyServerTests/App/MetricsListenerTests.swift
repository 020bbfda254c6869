import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import Testing

@testable import TallyServer

/// `/metrics` counts the business's totals (grants and spends by currency, notifications by
/// type): the public listener never serves it; the metrics listener serves it and nothing else.
@Suite struct MetricsListenerTests {
    @Test func thePublicListenerDoesNotServeMetrics() async throws {
        let api = try await API()
        try await api.test { client in
            _ = try await client.newUser()
            for method in [HTTPRequest.Method.get, .head] {
                let response = try await client.execute(uri: "/metrics", method: method)
                #expect(response.status == .notFound, "\(method)")
                #expect(!String(buffer: response.body).contains("tally_"))
            }
            #expect(API.errorCode(try await client.get("/metrics", token: API.secret)) == "not_found")
        }
    }

    @Test func theMetricsListenerServesTheCountersAndNothingElse() async throws {
        let metrics = Metrics()
        metrics.increment("tally_grants_total", ["currency": "credits"], by: 5)
        let app = Application(router: buildMetricsRouter(metrics))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/plain; version=0.0.4")
            #expect(String(buffer: response.body).contains("tally_grants_total{currency=\"credits\"} 5"))
            for path in ["/healthz", "/v1/users", "/openapi.yaml", "/console/login"] {
                #expect(try await client.execute(uri: path, method: .get).status == .notFound, "\(path)")
            }
        }
    }

    @Test(
        arguments: [
            ("127.0.0.1:9464", ListenAddress(host: "127.0.0.1", port: 9464)), ("0.0.0.0:0", ListenAddress(host: "0.0.0.0", port: 0)),
            ("[::1]:9464", ListenAddress(host: "::1", port: 9464)), ("metrics.internal:80", ListenAddress(host: "metrics.internal", port: 80)),
            ("9464", nil), (":9464", nil), ("127.0.0.1:65536", nil), ("127.0.0.1:-1", nil), ("127.0.0.1:", nil), ("[::1]9464", nil),
        ] as [(String, ListenAddress?)])
    func anAddressIsHostAndPort(text: String, expected: ListenAddress?) {
        #expect(ListenAddress(text) == expected)
        if let expected { #expect(ListenAddress(expected.description) == expected) }
    }
}
