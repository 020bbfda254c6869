import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import Testing

/// Bad input on every route gets a 4xx with a stable code and changes nothing; never a 500.
@Suite struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        var auth: Auth
        var status: Int
        var code: String
        var testDescription: String { "\(method) \(path) \(body ?? "") → \(status) \(code)" }
    }

    enum Auth: Sendable { case none, user, wrongToken, secret }

    static let cases: [Case] = {
        var cases: [Case] = []
        let userRoutes: [(HTTPRequest.Method, String)] = [
            (.get, "/v1/me"), (.get, "/v1/me/ledger"), (.post, "/v1/me/spend"), (.post, "/v1/me/purchases"), (.post, "/v1/me/restore"),
            (.post, "/v1/me/orders"), (.get, "/v1/me/orders/x"), (.post, "/v1/me/orders/x/fail"), (.post, "/v1/me/reservations"),
            (.post, "/v1/me/reservations/x/commit"), (.delete, "/v1/me/reservations/x"),
        ]
        for (method, path) in userRoutes {
            cases.append(Case(method: method, path: path, body: "{}", auth: .none, status: 401, code: "unauthorized"))
            cases.append(Case(method: method, path: path, body: "{}", auth: .wrongToken, status: 401, code: "unauthorized"))
        }
        for path in ["/v1/admin/users/x", "/v1/admin/transactions", "/v1/admin/notifications"] {
            cases.append(Case(method: .get, path: path, body: nil, auth: .user, status: 401, code: "unauthorized"))
        }
        let bodies: [(String, String)] = [
            ("{", "invalid_request"), ("[]", "invalid_request"), ("null", "invalid_request"), ("", "invalid_request"),
            ("\"text\"", "invalid_request"),
        ]
        for path in [
            "/v1/me/spend", "/v1/me/purchases", "/v1/me/restore", "/v1/me/orders", "/v1/me/reservations", "/v1/me/reservations/x/commit",
            "/v1/me/orders/x/fail",
        ] {
            for (body, code) in bodies {
                cases.append(Case(method: .post, path: path, body: body, auth: .user, status: 400, code: code))
            }
        }
        let spends: [(String, Int, String)] = [
            (#"{"currency":"credits","amount":"1","idempotency_key":"k"}"#, 400, "invalid_request"),
            (#"{"currency":"credits","amount":1.5,"idempotency_key":"k"}"#, 400, "invalid_request"),
            (#"{"currency":"credits","amount":0,"idempotency_key":"k"}"#, 400, "invalid_amount"),
            (#"{"currency":"credits","amount":-1,"idempotency_key":"k"}"#, 400, "invalid_amount"),
            (#"{"currency":"credits","amount":9223372036854775807,"idempotency_key":"k"}"#, 400, "invalid_amount"),
            (#"{"currency":"credits","amount":9223372036854775808,"idempotency_key":"k"}"#, 400, "invalid_request"),
            (#"{"currency":"credits","amount":1e30,"idempotency_key":"k"}"#, 400, "invalid_request"),
            (#"{"currency":"gold","amount":1,"idempotency_key":"k"}"#, 400, "unknown_currency"),
            (#"{"currency":"credits","amount":1}"#, 400, "invalid_request"),
            (#"{"currency":"credits","amount":1,"idempotency_key":""}"#, 400, "invalid_idempotency_key"),
            (#"{"currency":null,"amount":1,"idempotency_key":"k"}"#, 400, "invalid_request"),
            // An optional member sent as null is refused, not read as absent (the document has no nulls).
            (#"{"currency":"credits","amount":1,"idempotency_key":"k-null","reference":null}"#, 400, "invalid_request"),
            (#"{"currency":"credits","amount":100,"idempotency_key":"k"}"#, 403, "insufficient_credits"),
        ]
        for (body, status, code) in spends {
            cases.append(Case(method: .post, path: "/v1/me/spend", body: body, auth: .user, status: status, code: code))
        }
        let reservations: [(String, Int, String)] = [
            (#"{"currency":"credits","amount":1,"ttl_seconds":0,"idempotency_key":"k"}"#, 400, "invalid_request"),
            (#"{"currency":"credits","amount":1,"ttl_seconds":999999,"idempotency_key":"k"}"#, 400, "invalid_request"),
            (#"{"currency":"credits","amount":-3,"ttl_seconds":60,"idempotency_key":"k"}"#, 400, "invalid_amount"),
            (#"{"currency":"credits","amount":5,"ttl_seconds":60,"idempotency_key":"k"}"#, 403, "insufficient_credits"),
        ]
        for (body, status, code) in reservations {
            cases.append(Case(method: .post, path: "/v1/me/reservations", body: body, auth: .user, status: status, code: code))
        }
        cases += [
            Case(method: .post, path: "/v1/me/reservations/nope/commit", body: #"{"used":1}"#, auth: .user, status: 404, code: "not_found"),
            Case(method: .post, path: "/v1/me/reservations/nope/commit", body: #"{"used":-1}"#, auth: .user, status: 400, code: "invalid_amount"),
            Case(method: .delete, path: "/v1/me/reservations/nope", body: nil, auth: .user, status: 404, code: "not_found"),
            Case(method: .post, path: "/v1/me/orders", body: #"{"product_id":"com.nothing"}"#, auth: .user, status: 400, code: "unknown_product"),
            Case(method: .get, path: "/v1/me/orders/nope", body: nil, auth: .user, status: 404, code: "not_found"),
            Case(method: .post, path: "/v1/me/purchases", body: #"{"signed_transaction":"x.y.z"}"#, auth: .user, status: 422, code: "verification_failed"),
            Case(method: .post, path: "/v1/me/purchases", body: #"{"signed_transaction":42}"#, auth: .user, status: 400, code: "invalid_request"),
            Case(
                method: .post, path: "/v1/me/purchases", body: #"{"signed_transaction":"a.b.c","order_id":""}"#, auth: .user, status: 400,
                code: "invalid_request"),
            Case(method: .post, path: "/v1/me/restore", body: #"{"signed_transactions":"x"}"#, auth: .user, status: 400, code: "invalid_request"),
            Case(method: .get, path: "/v1/me/ledger?limit=0", body: nil, auth: .user, status: 400, code: "invalid_request"),
            Case(method: .get, path: "/v1/me/ledger?limit=abc", body: nil, auth: .user, status: 400, code: "invalid_request"),
            Case(method: .get, path: "/v1/me/ledger?cursor=-4", body: nil, auth: .user, status: 400, code: "invalid_request"),
            Case(method: .get, path: "/v1/me/ledger?currency=gold", body: nil, auth: .user, status: 400, code: "unknown_currency"),
            Case(method: .post, path: "/v1/users", body: "{", auth: .none, status: 400, code: "invalid_request"),
            Case(method: .post, path: "/v1/users", body: #"{"app_user_id":""}"#, auth: .secret, status: 400, code: "invalid_request"),
            Case(method: .post, path: "/v1/notifications/appstore", body: "{}", auth: .none, status: 400, code: "invalid_request"),
            Case(method: .post, path: "/v1/notifications/appstore", body: #"{"signedPayload":""}"#, auth: .none, status: 422, code: "verification_failed"),
            Case(
                method: .post, path: "/v1/admin/users/nobody/adjustments", body: #"{"currency":"credits","amount":1,"reason":"r","idempotency_key":"k"}"#,
                auth: .secret, status: 404, code: "not_found"),
            Case(
                method: .post, path: "/v1/admin/users/nobody/adjustments", body: #"{"currency":"credits","amount":0,"reason":"r","idempotency_key":"k"}"#,
                auth: .secret, status: 400, code: "invalid_amount"),
            Case(
                method: .post, path: "/v1/admin/users/nobody/adjustments",
                body: #"{"currency":"credits","amount":-9223372036854775808,"reason":"r","idempotency_key":"k"}"#,
                auth: .secret, status: 400, code: "invalid_amount"),
            Case(method: .get, path: "/v1/admin/transactions?status=odd", body: nil, auth: .secret, status: 400, code: "invalid_request"),
            Case(method: .get, path: "/v1/admin/users/nobody", body: nil, auth: .secret, status: 404, code: "not_found"),
            Case(method: .put, path: "/v1/me", body: "{}", auth: .user, status: 405, code: "method_not_allowed"),
            Case(method: .get, path: "/v1/nothing-here", body: nil, auth: .user, status: 404, code: "not_found"),
            Case(method: .get, path: "/v1/me/orders/" + String(repeating: "x", count: 129), body: nil, auth: .user, status: 400, code: "invalid_request"),
            Case(
                method: .delete, path: "/v1/me/reservations/" + String(repeating: "x", count: 129), body: nil, auth: .user, status: 400,
                code: "invalid_request"),
            Case(
                method: .get, path: "/v1/admin/users/" + String(repeating: "x", count: 129), body: nil, auth: .secret, status: 400,
                code: "invalid_request"),
            Case(
                method: .post, path: "/v1/me/orders/x/fail", body: "{\"reason\":\"" + String(repeating: "r", count: 201) + "\"}", auth: .user,
                status: 400, code: "invalid_request"),
            Case(
                method: .post, path: "/v1/me/spend", body: #"{"currency":"credits","amount":1,"amount":1,"idempotency_key":"k"}"#, auth: .user,
                status: 400, code: "invalid_request"),
        ]
        return cases
    }()

    @Test(arguments: cases)
    func badInputGetsItsCodeAndChangesNothing(badCase: Case) async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            let before = try API.decode(LedgerPage.self, try await client.get("/v1/me/ledger", token: user.userToken))
            var headers: HTTPFields = [.contentType: "application/json"]
            switch badCase.auth {
            case .none: break
            case .user: headers[.authorization] = "Bearer \(user.userToken)"
            case .wrongToken: headers[.authorization] = "Bearer tu_not-a-token"
            case .secret: headers[.authorization] = "Bearer \(API.secret)"
            }
            let response = try await client.execute(
                uri: badCase.path, method: badCase.method, headers: headers, body: badCase.body.map { ByteBuffer(string: $0) })
            #expect(Int(response.status.code) == badCase.status, "\(String(buffer: response.body))")
            #expect(API.errorCode(response) == badCase.code)
            #expect((API.json(response)["error"] as? [String: Any])?["request_id"] != nil)
            let after = try API.decode(LedgerPage.self, try await client.get("/v1/me/ledger", token: user.userToken))
            #expect(after == before)
            let account = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(account.balances.first { $0.currency == "credits" }?.available == 2)
            #expect(account.balances.allSatisfy { $0.held == 0 && $0.debt == 0 })
        }
    }

    @Test func aBodyOverTheLimitGets413() async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            let huge = ByteBuffer(string: "{\"signed_transaction\":\"" + String(repeating: "a", count: 70 * 1024) + "\"}")
            let response = try await client.post("/v1/me/purchases", token: user.userToken, body: huge)
            #expect(response.status == .contentTooLarge)
            #expect(API.errorCode(response) == "payload_too_large")
        }
    }

    @Test func tooManyRequestsGet429WithRetryAfter() async throws {
        var catalog = Harness.catalog
        catalog.limits.userRequestsPerMinute = 20
        let api = try await API(catalog: catalog)
        try await api.test { client in
            let user = try await client.newUser()
            var statuses: [Int] = []
            for index in 0..<12 {
                let response = try await client.post(
                    "/v1/me/spend", token: user.userToken, body: API.body(SpendRequest(currency: "credits", amount: 1, idempotencyKey: "same-\(index % 2)")))
                statuses.append(Int(response.status.code))
                if response.status == .tooManyRequests {
                    #expect(API.errorCode(response) == "rate_limited")
                    #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                }
            }
            #expect(statuses.prefix(10).allSatisfy { $0 == 200 })
            #expect(statuses.suffix(2).allSatisfy { $0 == 429 })
        }
    }
}
