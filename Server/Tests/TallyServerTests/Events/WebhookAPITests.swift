import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import Testing

@testable import TallyServer

/// The admin API of webhooks and events, over HTTP with the secret key.
@Suite struct WebhookAPITests {
    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil
    ) async throws
        -> TestResponse
    {
        try await client.execute(uri: path, method: method, headers: API.bearer(API.secret), body: body.map { ByteBuffer(string: $0) })
    }

    @Test func endpointsAreCreatedListedChangedRotatedDisabledAndDeleted() async throws {
        let api = try await API()
        try await api.test { client in
            let created = try await Self.send(client, .post, "/v1/admin/webhooks", #"{"url":"https://hooks.example.com/t","event_types":["credits.spent"]}"#)
            #expect(created.status == .created)
            let endpoint = try API.decode(WebhookEndpoint.self, created)
            let secret = try #require(endpoint.secret)
            #expect(WebhookSecret(secret) != nil && endpoint.eventTypes == [.creditsSpent] && !endpoint.disabled)

            // The secret is shown once.
            let listed = API.json(try await Self.send(client, .get, "/v1/admin/webhooks"))["endpoints"] as? [[String: Any]]
            #expect(listed?.count == 1 && listed?.first?["secret"] == nil && listed?.first?["url"] as? String == "https://hooks.example.com/t")
            #expect(try API.decode(WebhookEndpoint.self, try await Self.send(client, .get, "/v1/admin/webhooks/\(endpoint.id)")).secret == nil)

            let changed = try API.decode(
                WebhookEndpoint.self,
                try await Self.send(client, .patch, "/v1/admin/webhooks/\(endpoint.id)", #"{"event_types":[],"disabled":true,"description":"crm"}"#))
            #expect(changed.eventTypes.isEmpty && changed.disabled && changed.disabledReason == "disabled by an operator" && changed.description == "crm")

            let rotated = try API.decode(WebhookEndpoint.self, try await Self.send(client, .post, "/v1/admin/webhooks/\(endpoint.id)/rotate-secret", "{}"))
            #expect(rotated.secret != nil && rotated.secret != secret && rotated.previousSecretUntil != nil)
            // One rotation at a time: the first one's previous secret still signs.
            let again = try await Self.send(client, .post, "/v1/admin/webhooks/\(endpoint.id)/rotate-secret")
            #expect(again.status == .conflict && API.errorCode(again) == "conflict")
            // A secret of the team's own, on another endpoint; no body is a random one.
            let other = try API.decode(
                WebhookEndpoint.self, try await Self.send(client, .post, "/v1/admin/webhooks", #"{"url":"https://other.example.com/"}"#))
            let own = "whsec_" + Data(repeating: 9, count: 40).base64EncodedString()
            let chosen = try API.decode(
                WebhookEndpoint.self, try await Self.send(client, .post, "/v1/admin/webhooks/\(other.id)/rotate-secret", #"{"secret":"\#(own)"}"#))
            #expect(chosen.secret == own)

            // Disabled: a new user's event is not queued for it.
            _ = try await client.newUser()
            let page = try API.decode(WebhookDeliveryPage.self, try await Self.send(client, .get, "/v1/admin/webhooks/\(endpoint.id)/deliveries"))
            #expect(page.deliveries.isEmpty)

            #expect(try await Self.send(client, .delete, "/v1/admin/webhooks/\(endpoint.id)").status == .noContent)
            #expect(try await Self.send(client, .get, "/v1/admin/webhooks/\(endpoint.id)").status == .notFound)
            #expect(try await Self.send(client, .delete, "/v1/admin/webhooks/\(endpoint.id)").status == .notFound)
        }
    }

    @Test func eventsAreListedInOrderAndDeliveriesCanBeReplayed() async throws {
        let api = try await API()
        try await api.test { client in
            let endpoint = try API.decode(
                WebhookEndpoint.self, try await Self.send(client, .post, "/v1/admin/webhooks", #"{"url":"http://127.0.0.1:9/unreachable"}"#))
            var users: [String] = []
            for _ in 0..<3 { users.append(try await client.newUser().userID) }
            let first = try API.decode(TallyEventPage.self, try await Self.send(client, .get, "/v1/admin/events?limit=2"))
            #expect(first.events.map(\.data.userID) == [users[0], users[1]] && first.nextCursor == first.events.last?.sequence)
            let rest = try API.decode(TallyEventPage.self, try await Self.send(client, .get, "/v1/admin/events?after=\(first.nextCursor ?? 0)&limit=2"))
            #expect(rest.events.map(\.data.userID) == [users[2]] && rest.nextCursor == nil)
            let ofUser = try API.decode(TallyEventPage.self, try await Self.send(client, .get, "/v1/admin/events?user_id=\(users[1])&type=credits.granted"))
            #expect(ofUser.events.count == 1)

            let event = first.events[0]
            let replayed = try await Self.send(client, .post, "/v1/admin/webhooks/\(endpoint.id)/deliveries/\(event.id)/replay")
            #expect(replayed.status == .accepted)
            #expect(try API.decode(WebhookDelivery.self, replayed).eventID == event.id)
            let attempts = try await Self.send(client, .get, "/v1/admin/webhooks/\(endpoint.id)/deliveries/\(event.id)/attempts")
            #expect(attempts.status == .ok && (API.json(attempts)["attempts"] as? [Any]) != nil)
            let pending = try API.decode(
                WebhookDeliveryPage.self, try await Self.send(client, .get, "/v1/admin/webhooks/\(endpoint.id)/deliveries?status=pending&limit=1"))
            #expect(pending.deliveries.count == 1 && pending.nextCursor != nil)
        }
    }

    @Test(arguments: [
        ("POST", "/v1/admin/webhooks", #"{"url":"ftp://hooks.example.com/"}"#),
        ("POST", "/v1/admin/webhooks", #"{"url":"https://user:pass@hooks.example.com/"}"#),
        ("POST", "/v1/admin/webhooks", #"{"url":"/relative"}"#),
        ("POST", "/v1/admin/webhooks", #"{"url":"https://hooks.example.com/","event_types":["purchase.made"]}"#),
        ("POST", "/v1/admin/webhooks", #"{"url":"https://hooks.example.com/","secret":"whsec_c2hvcnQ="}"#),
        ("POST", "/v1/admin/webhooks", #"{"url":"https://hooks.example.com/","secret":"plain"}"#),
        ("POST", "/v1/admin/webhooks", #"{"url":"https://hooks.example.com/","description":"\#(String(repeating: "x", count: 501))"}"#),
        ("POST", "/v1/admin/webhooks", "{}"),
        ("GET", "/v1/admin/events?type=nope", nil),
        ("GET", "/v1/admin/events?after=-1", nil),
        ("GET", "/v1/admin/events?limit=1001", nil),
        ("GET", "/v1/admin/events?user_id=", nil),
    ])
    func badInputIsRefusedWithItsCodeAndChangesNothing(method: String, path: String, body: String?) async throws {
        let api = try await API()
        try await api.test { client in
            let response = try await Self.send(client, HTTPRequest.Method(method)!, path, body)
            #expect(response.status == .badRequest, "\(String(buffer: response.body))")
            #expect(API.errorCode(response) == "invalid_request")
            let listed = API.json(try await Self.send(client, .get, "/v1/admin/webhooks"))["endpoints"] as? [Any]
            #expect(listed?.isEmpty == true)
        }
    }

    @Test func aBadChangeOrStatusFilterIsRefused() async throws {
        let api = try await API()
        try await api.test { client in
            let endpoint = try API.decode(
                WebhookEndpoint.self, try await Self.send(client, .post, "/v1/admin/webhooks", #"{"url":"https://hooks.example.com/"}"#))
            for (method, path, body) in [
                (HTTPRequest.Method.patch, "/v1/admin/webhooks/\(endpoint.id)", #"{"url":"mailto:a@b.c"}"#),
                (.patch, "/v1/admin/webhooks/\(endpoint.id)", #"{"disabled":"yes"}"#),
                (.get, "/v1/admin/webhooks/\(endpoint.id)/deliveries?status=lost", nil),
                (.get, "/v1/admin/webhooks/\(endpoint.id)/deliveries?cursor=0", nil),
                (.post, "/v1/admin/webhooks/\(endpoint.id)/rotate-secret", #"{"secret":"whsec_"}"#),
            ] as [(HTTPRequest.Method, String, String?)] {
                let response = try await Self.send(client, method, path, body)
                #expect(response.status == .badRequest, "\(path) \(body ?? ""): \(String(buffer: response.body))")
            }
            let unchanged = try API.decode(WebhookEndpoint.self, try await Self.send(client, .get, "/v1/admin/webhooks/\(endpoint.id)"))
            #expect(unchanged.url == "https://hooks.example.com/" && !unchanged.disabled && unchanged.updatedAt == endpoint.updatedAt)
        }
    }

    @Test(arguments: Backend.available)
    func controlCharactersAreRefusedNotA500(backend: Backend) async throws {
        let api = try await API(backend)
        try await api.test { client in
            // Query values and JSON strings are decoded: a NUL there is refused.
            for (method, path, body) in [
                (HTTPRequest.Method.get, "/v1/admin/events?user_id=%00", nil),
                (.post, "/v1/admin/webhooks", #"{"url":"https://hooks.example.com/","description":"a\u0000b"}"#),
                (.post, "/v1/admin/webhooks", #"{"url":"https://hooks.example.com/\u0000"}"#),
            ] as [(HTTPRequest.Method, String, String?)] {
                let response = try await Self.send(client, method, path, body)
                #expect(response.status == .badRequest, "\(path): \(String(buffer: response.body))")
            }
            // Path segments are not percent-decoded: "%00" is three characters, and nobody's id.
            for path in ["/v1/admin/webhooks/%00", "/v1/admin/users/a%00b", "/v1/admin/webhooks/we_none/deliveries/evt%01/replay"] {
                let response = try await Self.send(client, path.hasSuffix("replay") ? .post : .get, path)
                #expect(response.status == .notFound, "\(path): \(String(buffer: response.body))")
            }
        }
    }
}
