import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import TallyTesting
import Testing

/// What every answer of the API does, whatever the route: methods, HEAD, headers, request
/// identifiers, bodies that say one thing twice.
@Suite struct HTTPConventionTests {
    @Test(arguments: [
        (HTTPRequest.Method.post, "/healthz", "GET, HEAD"),
        (.delete, "/v1/me", "GET, HEAD"),
        (.put, "/v1/me", "GET, HEAD"),
        (.get, "/v1/me/spend", "POST"),
        (.patch, "/v1/me/orders/abc", "GET, HEAD"),
        (.get, "/v1/me/reservations/abc", "DELETE"),
        (.options, "/v1/users", "POST"),
        (.head, "/v1/notifications/appstore", "POST"),
    ])
    func aMethodThePathDoesNotHaveGets405WithAllow(method: HTTPRequest.Method, path: String, allow: String) async throws {
        let api = try await API()
        try await api.test { client in
            let response = try await client.execute(uri: path, method: method)
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == allow)
            if method == .head {
                #expect(response.body.readableBytes == 0)
            } else {
                #expect(API.errorCode(response) == "method_not_allowed")
            }
        }
    }

    @Test(arguments: ["/nothing", "/v1", "/v1/me/orders/abc/nothing", "/v1/admin"])
    func aPathThatDoesNotExistStays404(path: String) async throws {
        let api = try await API()
        try await api.test { client in
            for method in [HTTPRequest.Method.get, .post] {
                let response = try await client.execute(uri: path, method: method)
                #expect(response.status == .notFound)
                #expect(API.errorCode(response) == "not_found")
                #expect(response.headers[.allow] == nil)
            }
        }
    }

    @Test(arguments: RouteCase.all.filter { $0.method == .get })
    func headAnswersAsGetWithoutTheBody(route: RouteCase) async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            for caller in [Caller.none, .user, .secretKey] {
                let headers = caller.headers(userToken: user.userToken)
                let get = try await client.execute(uri: route.path, method: .get, headers: headers)
                let head = try await client.execute(uri: route.path, method: .head, headers: headers)
                #expect(head.status == get.status, "\(caller)")
                #expect(head.body.readableBytes == 0)
                // A redirect (the console without a session) says where in its Location instead.
                #expect(get.status == .notFound || get.body.readableBytes > 0 || (get.status == .seeOther && get.headers[.location] != nil))
                #expect(head.headers[.contentType] == get.headers[.contentType])
            }
        }
    }

    @Test func answersAreNeitherSniffedNorCached() async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            let answers = [
                try await client.get("/v1/me", token: user.userToken),  // 200
                try await client.get("/v1/me", token: nil),  // 401
                try await client.execute(uri: "/nowhere", method: .get),  // 404
                try await client.execute(uri: "/v1/me", method: .put),  // 405
                try await client.get("/openapi.yaml", token: nil),
                try await client.get("/healthz", token: nil),
            ]
            for answer in answers {
                #expect(answer.headers[.init("X-Content-Type-Options")!] == "nosniff", "\(answer.status)")
                #expect(answer.headers[.cacheControl] == "no-store", "\(answer.status)")
            }
        }
    }

    @Test(arguments: [
        ("checkout-7f3a.2_b", true),
        (String(repeating: "a", count: 64), true),
        (String(repeating: "a", count: 65), false),
        ("two words", false),
        ("<script>alert(1)</script>", false),
        ("ключ", false),
        ("id\"quoted\"", false),
        ("", false),
    ])
    func aRequestIDIsKeptOnlyWhenShortAndPlain(incoming: String, kept: Bool) async throws {
        let api = try await API()
        try await api.test { client in
            let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.init("X-Request-Id")!: incoming])
            let echoed = try #require(response.headers[.init("X-Request-Id")!])
            let inBody = (API.json(response)["error"] as? [String: Any])?["request_id"] as? String
            #expect(inBody == echoed)
            if kept {
                #expect(echoed == incoming)
            } else {
                #expect(echoed != incoming)
                #expect(echoed.count == 36)  // a new UUID
            }
        }
    }

    @Test(arguments: [
        #"{"currency":"credits","amount":1,"amount":2,"idempotency_key":"k"}"#,
        #"{"currency":"credits","amount":1,"idempotency_key":"k","idempotency_key":"other"}"#,
        #"{"currency":"credits","amount":1,"idempotency_key":"k","idempotencyKey":"other"}"#,
        #"{"currency":"credits","amount":1,"idempotency_key":"k","\u0061mount":2}"#,
    ])
    func aBodyThatNamesAMemberTwiceIsRefusedAndChangesNothing(body: String) async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            let response = try await client.post("/v1/me/spend", token: user.userToken, body: ByteBuffer(string: body))
            #expect(response.status == .badRequest)
            #expect(API.errorCode(response) == "invalid_request")
            let message = (API.json(response)["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("more than once"), "\(message)")
            let account = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(account.balances.first { $0.currency == "credits" }?.available == 2)
        }
    }

    @Test func aNotificationBodyThatNamesAMemberTwiceIsRefused() async throws {
        let api = try await API()
        try await api.test { client in
            let response = try await client.post(
                "/v1/notifications/appstore", token: nil, body: ByteBuffer(string: #"{"signedPayload":"a.b.c","signedPayload":"d.e.f"}"#))
            #expect(response.status == .badRequest)
            #expect(API.errorCode(response) == "invalid_request")
        }
    }

    @Test func aFailureReasonOverItsLimitIsRefusedNotCut() async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            let order = try API.decode(
                Order.self,
                try await client.post(
                    "/v1/me/orders", token: user.userToken, body: API.body(CreateOrderRequest(productID: "com.tally.photo.credits.50"))))
            let path = "/v1/me/orders/\(order.orderID)"
            // 200 letters and a combining accent: 201 characters as JSON Schema counts them (code points), 200 as Swift does.
            for reason in [String(repeating: "r", count: 300), String(repeating: "r", count: 200) + "\u{301}"] {
                let refused = try await client.post(path + "/fail", token: user.userToken, body: API.body(["reason": reason]))
                #expect(refused.status == .badRequest)
                #expect(API.errorCode(refused) == "invalid_request")
                #expect(try API.decode(Order.self, try await client.get(path, token: user.userToken)).status == .created)
            }
            let reason = String(repeating: "é", count: 200)
            let failed = try await client.post(path + "/fail", token: user.userToken, body: API.body(["reason": reason]))
            #expect(failed.status == .ok)
            let stored = try API.decode(Order.self, try await client.get(path, token: user.userToken))
            #expect(stored.status == .failed)
            #expect(stored.failureReason == reason)
        }
    }

    @Test func notificationsHaveTheirOwnLimitPerAddress() async throws {
        var catalog = Harness.catalog
        catalog.limits.notificationRequestsPerMinute = 1
        let api = try await API(catalog: catalog)
        try await api.test { client in
            var statuses: [Int] = []
            for _ in 0..<12 {
                let response = try await client.post("/v1/notifications/appstore", token: nil, body: ByteBuffer(string: #"{"signedPayload":"a.b.c"}"#))
                statuses.append(Int(response.status.code))
                if response.status == .tooManyRequests {
                    #expect(API.errorCode(response) == "rate_limited")
                    #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                }
            }
            // The burst is a quarter of a minute's rate, at least 10.
            #expect(statuses.prefix(10).allSatisfy { $0 == 422 }, "\(statuses)")
            #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
            #expect(api.metrics.value("tally_rate_limited_total", ["limit": "notification"]) == 2)
            // Devices from the same address are not held back by the App Store's bucket.
            let user = try await client.newUser()
            let spend = try await client.post(
                "/v1/me/spend", token: user.userToken, body: API.body(SpendRequest(currency: "credits", amount: 1, idempotencyKey: "n")))
            #expect(spend.status == .ok)
        }
    }
}

/// Signed data with a genuine signature but an identifier the App Store never writes.
@Suite struct SignedIdentifierTests {
    @Test func aTransactionWithAnEmptyIDIsRefusedAndDoesNotBlockLaterOnes() async throws {
        let api = try await API()
        let harness = api.harness
        try await api.test { client in
            let user = try await client.newUser()
            guard
                case .success(let genuine) = try await harness.store.purchase(
                    "com.tally.photo.credits.50", options: SimulatedAppStore.PurchaseOptions(appAccountToken: user.appAccountToken, outcome: .success))
            else {
                Issue.record("the simulated purchase did not succeed")
                return
            }
            for id in ["", " ", "abc"] {
                var forged = genuine.payload
                forged.transactionID = id
                forged.originalTransactionID = id
                let response = try await client.post(
                    "/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: try Harness.authority.sign(forged))))
                #expect(response.status == .unprocessableContent)
                #expect(API.errorCode(response) == "verification_failed")
                #expect((API.json(response)["error"] as? [String: Any])?["verification_code"] as? String == "invalid_identifier")
            }
            var emptyProduct = genuine.payload
            emptyProduct.productID = ""
            let refused = try await client.post(
                "/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: try Harness.authority.sign(emptyProduct))))
            #expect((API.json(refused)["error"] as? [String: Any])?["verification_code"] as? String == "invalid_identifier")

            let delivered = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: genuine.jws)))
            #expect(delivered.status == .ok)
            #expect(try API.decode(PurchaseResponse.self, delivered).granted == [Amount(currency: "credits", amount: 50)])
            #expect(api.metrics.value("tally_verification_failures_total", ["code": "invalid_identifier"]) == 4)
        }
        try await harness.checkInvariants()
    }
}
