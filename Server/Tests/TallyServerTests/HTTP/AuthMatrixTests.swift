import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import Testing

/// Who calls: nobody, a made-up token, a user, or the app's server with the secret key.
enum Caller: String, CaseIterable, Sendable {
    case none, badToken, user, secretKey

    func headers(userToken: String) -> HTTPFields {
        var headers: HTTPFields = [.contentType: "application/json"]
        switch self {
        case .none: break
        case .badToken: headers[.authorization] = "Bearer tu_not-a-token-of-this-server"
        case .user: headers[.authorization] = "Bearer \(userToken)"
        case .secretKey: headers[.authorization] = "Bearer \(API.secret)"
        }
        return headers
    }
}

/// One route with a request that the right caller may make, and what each caller gets.
struct RouteCase: Sendable, CustomTestStringConvertible {
    var method: HTTPRequest.Method
    /// The route's template, as the router and the OpenAPI document name it.
    var route: String
    /// A concrete path of the route.
    var path: String
    var body: String?
    /// The status for nobody, a bad token, a user token and the secret key.
    var statuses: [Caller: Int]
    var testDescription: String { "\(method) \(path)" }

    init(
        _ method: HTTPRequest.Method, _ route: String, _ path: String? = nil, body: String? = nil,
        none: Int, badToken: Int, user: Int, secretKey: Int
    ) {
        self.method = method
        self.route = route
        self.path = path ?? route
        self.body = body
        statuses = [.none: none, .badToken: badToken, .user: user, .secretKey: secretKey]
    }

    /// A route anyone may call, with the same answer for all.
    static func open(_ method: HTTPRequest.Method, _ route: String, body: String? = nil, status: Int) -> RouteCase {
        RouteCase(method, route, body: body, none: status, badToken: status, user: status, secretKey: status)
    }

    /// A device route: a user token, nothing else.
    static func user(_ method: HTTPRequest.Method, _ route: String, _ path: String? = nil, body: String? = nil, status: Int) -> RouteCase {
        RouteCase(method, route, path, body: body, none: 401, badToken: 401, user: status, secretKey: 401)
    }

    /// An admin route: the secret key, nothing else.
    static func admin(_ method: HTTPRequest.Method, _ route: String, _ path: String? = nil, body: String? = nil, status: Int) -> RouteCase {
        RouteCase(method, route, path, body: body, none: 401, badToken: 401, user: 401, secretKey: status)
    }

    /// A console route: its session cookie is the only way in, so every bearer, the secret key
    /// included, gets what a browser without a session gets (pages and forms send it to the
    /// sign-in page, 303; signing in without a same-origin `Origin` is refused, 403).
    static func console(_ method: HTTPRequest.Method, _ route: String, _ path: String? = nil, status: Int = 303) -> RouteCase {
        RouteCase(method, route, path, none: status, badToken: status, user: status, secretKey: status)
    }

    /// Every route of the server. A route added without a row here fails `everyRouteIsInTheMatrix`.
    static let all: [RouteCase] = [
        .open(.get, "/healthz", status: 200),
        .open(.get, "/openapi.yaml", status: 200),
        .open(.get, "/v1/products", status: 200),
        // Anyone may sign up; a bad token is no secret key, so it is an anonymous sign-up.
        .open(.post, "/v1/users", status: 201),
        .user(.get, "/v1/me", status: 200),
        .user(.post, "/v1/me/orders", body: #"{"product_id":"com.tally.photo.credits.50"}"#, status: 201),
        .user(.get, "/v1/me/orders/{id}", "/v1/me/orders/no-such-order", status: 404),
        .user(.post, "/v1/me/orders/{id}/fail", "/v1/me/orders/no-such-order/fail", body: #"{"reason":"cancelled"}"#, status: 404),
        .user(.post, "/v1/me/purchases", body: #"{"signed_transaction":"a.b.c"}"#, status: 422),
        .user(.post, "/v1/me/restore", body: #"{"signed_transactions":[]}"#, status: 200),
        // The tests' server has no App Store Server API key.
        .user(.post, "/v1/me/subscriptions/refresh", status: 422),
        .user(.get, "/v1/me/ledger", status: 200),
        .user(.post, "/v1/me/spend", body: #"{"currency":"credits","amount":1,"idempotency_key":"matrix"}"#, status: 200),
        .user(.post, "/v1/me/reservations", body: #"{"currency":"credits","amount":1,"ttl_seconds":60,"idempotency_key":"matrix"}"#, status: 201),
        .user(.post, "/v1/me/reservations/{id}/commit", "/v1/me/reservations/no-such-hold/commit", body: #"{"used":0}"#, status: 404),
        .user(.delete, "/v1/me/reservations/{id}", "/v1/me/reservations/no-such-hold", status: 404),
        // Apple's notifications carry no token: the signature is the authentication.
        .open(.post, "/v1/notifications/appstore", body: #"{"signedPayload":"a.b.c"}"#, status: 422),
        .admin(.get, "/v1/admin/users/{id}", "/v1/admin/users/nobody", status: 404),
        .admin(
            .post, "/v1/admin/users/{id}/adjustments", "/v1/admin/users/nobody/adjustments",
            body: #"{"currency":"credits","amount":1,"reason":"goodwill","idempotency_key":"matrix"}"#, status: 404),
        .admin(.get, "/v1/admin/transactions", status: 200),
        .admin(.get, "/v1/admin/notifications", status: 200),
        .admin(.get, "/v1/admin/metrics", status: 200),
        .admin(.post, "/v1/admin/webhooks", body: #"{"url":"https://hooks.example.com/tally"}"#, status: 201),
        .admin(.get, "/v1/admin/webhooks", status: 200),
        .admin(.get, "/v1/admin/webhooks/{id}", "/v1/admin/webhooks/we_none", status: 404),
        .admin(.patch, "/v1/admin/webhooks/{id}", "/v1/admin/webhooks/we_none", body: #"{"disabled":true}"#, status: 404),
        .admin(.delete, "/v1/admin/webhooks/{id}", "/v1/admin/webhooks/we_none", status: 404),
        .admin(.post, "/v1/admin/webhooks/{id}/rotate-secret", "/v1/admin/webhooks/we_none/rotate-secret", body: "{}", status: 404),
        .admin(.get, "/v1/admin/webhooks/{id}/deliveries", "/v1/admin/webhooks/we_none/deliveries", status: 404),
        .admin(
            .get, "/v1/admin/webhooks/{id}/deliveries/{event}/attempts", "/v1/admin/webhooks/we_none/deliveries/evt_none/attempts", status: 404),
        .admin(.post, "/v1/admin/webhooks/{id}/deliveries/{event}/replay", "/v1/admin/webhooks/we_none/deliveries/evt_none/replay", status: 404),
        .admin(.get, "/v1/admin/events", status: 200),
        .admin(.delete, "/v1/admin/events/readers/{name}", "/v1/admin/events/readers/event_log", status: 404),
        .console(.get, "/console/assets/console.css", status: 200),
        .console(.get, "/console/login", status: 200),
        .console(.post, "/console/login", status: 403),
        .console(.post, "/console/logout"),
        .console(.get, "/console"),
        .console(.get, "/console/metrics"),
        .console(.get, "/console/metrics.csv"),
        .console(.get, "/console/transactions"),
        .console(.get, "/console/transactions.csv"),
        .console(.get, "/console/ledger"),
        .console(.get, "/console/ledger.csv"),
        .console(.get, "/console/users/{id}", "/console/users/nobody"),
        .console(.post, "/console/users/{id}/adjustments", "/console/users/nobody/adjustments"),
        .console(.post, "/console/users/{id}/entitlements", "/console/users/nobody/entitlements"),
        .console(.post, "/console/users/{id}/entitlements/{grant}/revoke", "/console/users/nobody/entitlements/none/revoke"),
        .console(.get, "/console/products"),
        .console(.get, "/console/notifications"),
        .console(.get, "/console/notifications.csv"),
        .console(.get, "/console/notifications/{uuid}", "/console/notifications/none"),
        .console(.get, "/console/audit"),
        .console(.get, "/console/audit.csv"),
        .console(.get, "/console/search"),
    ]
}

/// Every route × every kind of caller → the status each gets: no route answers a caller it
/// should not, and none refuses one it should serve.
@Suite struct AuthMatrixTests {
    @Test(arguments: RouteCase.all)
    func eachCallerGetsItsStatus(route: RouteCase) async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            for caller in Caller.allCases {
                let response = try await client.execute(
                    uri: route.path, method: route.method, headers: caller.headers(userToken: user.userToken),
                    body: route.body.map { ByteBuffer(string: $0) })
                let expected = try #require(route.statuses[caller])
                #expect(Int(response.status.code) == expected, "\(caller): \(String(buffer: response.body))")
                if expected == 401 { #expect(API.errorCode(response) == "unauthorized") }
            }
        }
    }

    @Test func everyRouteIsInTheMatrix() async throws {
        let api = try await API()
        let served = Set(api.router.routes.filter { $0.method != .head }.map { "\($0.method.rawValue) \($0.path.description)" })
        let listed = Set(RouteCase.all.map { "\($0.method.rawValue) \($0.route)" })
        #expect(served == listed, "not in the matrix: \(served.subtracting(listed).sorted()); not served: \(listed.subtracting(served).sorted())")
    }

    @Test func theBearerSchemeIsCaseInsensitive() async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
                let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "\(scheme) \(user.userToken)"])
                #expect(response.status == .ok, "\(scheme)")
            }
            let admin = try await client.execute(uri: "/v1/admin/transactions", method: .get, headers: [.authorization: "bearer \(API.secret)"])
            #expect(admin.status == .ok)
            // Another scheme, or the scheme's name without a space, is no bearer token.
            for header in ["Basic \(user.userToken)", "Bearer\(user.userToken)", "Bearer ", user.userToken] {
                let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: header])
                #expect(response.status == .unauthorized, "\(header)")
            }
        }
    }
}
